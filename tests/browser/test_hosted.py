"""Other frameworks' agents hosted in the kernel (`pausepoint.host`), answered by clicks in
a real JupyterLab: langchain's human in the loop on a LangGraph agent, and a Pydantic AI
approval. The agents are the interop tests' own (tests/agui/peers/), their models
scripted; what their tools did is read from the kernel. Screenshots go to
test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

SETUP = """
import pausepoint
from tests.agui.peers.langchain_hitl_app import RAN, build_agent
from tests.agui.peers.pydantic_ai_app import build_agent as build_shop

desk = pausepoint.host(build_agent("batched"))
desk.start("Refund order 42 and tell Ada.")
desk
"""
SHOP = """
shop = pausepoint.host(build_shop())
shop.start("Please refund order 42.")
shop
"""
CHECK = """
print("KERNEL", desk.status, RAN, "|", shop.status, shop.prompt.output)
"""

OpenNotebook = Callable[[str, list[str]], Any]
WAIT = 60_000


def test_hosted_agents_of_two_frameworks_are_answered_by_clicks(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("hosted", [SETUP, SHOP, CHECK])
    nb.run_all()

    # LangGraph: a card per gated call, read from its pause, offering what its review allows.
    desk = nb.widget(0)
    expect(desk.get_by_test_id("pp-remote")).to_have_text(
        "LangGraph agent in this kernel", timeout=WAIT
    )
    cards = desk.get_by_test_id("pp-card")
    refund = cards.filter(has_text="refund")
    notify = cards.filter(has_text="notify")
    expect(refund).to_be_visible(timeout=WAIT)
    for card in (refund, notify):
        expect(card.get_by_test_id("pp-read-from")).to_have_text("Read from LangGraph's pause")
    expect(notify.get_by_test_id("pp-respond")).to_have_count(0)
    expect(desk.get_by_test_id("pp-debug")).to_have_count(0)
    nb.screenshot("hosted-langgraph")
    refund.get_by_test_id("pp-approve").click()
    notify.get_by_test_id("pp-reject-reason").fill("Ada asked not to be mailed")
    notify.get_by_test_id("pp-reject").click()
    expect(desk.get_by_test_id("pp-status")).to_contain_text("Completed", timeout=WAIT)
    decisions = desk.get_by_test_id("pp-decision")
    expect(decisions).to_have_count(2)
    expect(decisions.first).to_contain_text("Approved")
    expect(decisions.last).to_contain_text("Declined")
    expect(decisions.last).to_contain_text("Ada asked not to be mailed")

    # Pydantic AI: its approval, read from its shape, approved on the card.
    shop = nb.widget(1)
    expect(shop.get_by_test_id("pp-remote")).to_have_text("Pydantic AI agent in this kernel")
    card = shop.get_by_test_id("pp-card")
    expect(card.get_by_test_id("pp-read-from")).to_have_text("Read from Pydantic AI's pause")
    card.get_by_test_id("pp-approve").click()
    expect(shop.get_by_test_id("pp-status")).to_contain_text("Completed", timeout=WAIT)
    expect(shop.get_by_test_id("pp-decision")).to_contain_text("Approved")
    nb.screenshot("hosted-pydantic-ai")

    nb.run_cell(2)
    out = nb.output(2).last
    expect(out).to_contain_text(
        "KERNEL completed [('refund', {'order_id': 42, 'amount': 30.0})]", timeout=30_000
    )
    expect(out).to_contain_text('| completed Done: {"refunded":30.0,"order_id":42}')
