"""What an answer leaves behind in the thread, in a real JupyterLab: an approval declined
from code reads as declined, an approval with edits shows the arguments that ran on its
collapsed row, and Skip at a breakpoint reads as skipped. Screenshots go to
test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

SETUP = """
from pausepoint import Agent, ScriptedModel, action, call
ran = []

@action(needs_approval=True)
def refund(order_id: int, cents: int) -> str:
    \"\"\"Refund part of an order.\"\"\"
    ran.append(order_id)
    return f"refunded {cents} on order {order_id}"

def agent():
    return Agent(model=ScriptedModel([call("refund", order_id=7, cents=500), "Done."]),
                 actions=[refund])
"""
DECLINED = """
declined = agent().new_run("Refund order 7")
await declined.run()
await declined.resume(False)
declined
"""
EDITED = """
edited = agent().new_run("Refund order 7")
await edited.run()
await edited.resume({"approved": True, "editedArgs": {"order_id": 42, "cents": 500}})
edited
"""
SKIPPED = """
skipped = agent().new_run("Refund order 7", breakpoints=["refund"])
await skipped.run()
await skipped.debug.skip()
skipped
"""
CHECK = """
print("KERNEL", ran, declined.result.status, edited.result.status, skipped.result.status)
"""
RESPOND = """
def heard(request):
    if not any(item.type == "tool" for item in request.items):
        return call("refund", order_id=9, cents=100)
    return f"Noted: {request.items[-1].result}"

responding = Agent(model=ScriptedModel(heard), actions=[refund]).start("Refund order 9")
responding
"""
RESPONDED = """
result = await responding.wait()
print("RESPONDED", ran, result.status, "|", responding.prompt.output)
"""

OpenNotebook = Callable[[str, list[str]], Any]


def _row(view: Any) -> Any:
    row = view.locator('[data-testid="pp-tool-call"][data-name="refund"]')
    expect(row).to_have_count(1, timeout=30_000)
    return row


def test_each_answer_reads_as_what_was_decided_in_the_thread(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("decisions", [SETUP, DECLINED, EDITED, SKIPPED, CHECK])
    nb.run_all()
    expect(nb.output(4)).to_contain_text(
        "KERNEL [42] completed completed completed", timeout=60_000
    )

    declined, edited, skipped = (_row(nb.widget(i)) for i in range(3))

    # Declined from code with resume(False): never "Approved".
    expect(declined.get_by_test_id("pp-tool-status")).to_have_text("declined")
    declined.locator("summary").click()
    answer = declined.get_by_test_id("pp-resolution")
    expect(answer).to_have_attribute("data-decision", "declined")
    expect(answer).to_contain_text("Declined")
    expect(answer).not_to_contain_text("Approved")

    # Approved with edits: the collapsed row names the order that was refunded.
    expect(edited.get_by_test_id("pp-tool-args")).to_contain_text("42")
    expect(edited.get_by_test_id("pp-tool-args")).not_to_contain_text("7")
    edited.locator("summary").click()
    expect(edited.get_by_test_id("pp-resolution")).to_contain_text(
        "Approved with changes: order_id 7 → 42"
    )
    expect(edited.get_by_test_id("pp-tool-input")).to_contain_text('"order_id": 42')

    # Each decision is also a line in the conversation, saying who answered.
    expect(nb.widget(0).get_by_test_id("pp-decision")).to_contain_text("From code")
    expect(nb.widget(0).get_by_test_id("pp-decision")).to_contain_text("Declined")

    # Skipped at a breakpoint: "skipped", not "rejected".
    expect(skipped.get_by_test_id("pp-tool-status")).to_have_text("skipped")
    skipped.locator("summary").click()
    expect(skipped.get_by_test_id("pp-resolution")).to_contain_text("Skipped")
    expect(skipped).not_to_contain_text("ejected")

    nb.screenshot("decisions")


def test_respond_reaches_the_model_and_the_action_does_not_run(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("respond", [SETUP, RESPOND, RESPONDED])
    nb.run_cell(0)
    nb.run_cell(1)
    view = nb.widget(0)
    card = view.get_by_test_id("pp-card")
    expect(card).to_be_visible(timeout=30_000)

    card.get_by_test_id("pp-respond").click()
    expect(card.get_by_test_id("pp-respond-send")).to_be_disabled()
    card.get_by_test_id("pp-respond-text").fill("Only half, and tell them why.")
    card.get_by_test_id("pp-respond-send").click()

    line = view.get_by_test_id("pp-decision")
    expect(line).to_contain_text("Responded: Only half, and tell them why.", timeout=30_000)
    expect(line).to_contain_text("You")
    expect(view.get_by_test_id("pp-tool-status")).to_have_text("responded")
    nb.run_cell(2)
    expect(nb.output(2)).to_contain_text(
        "RESPONDED [] completed | Noted: Only half, and tell them why.", timeout=30_000
    )
    nb.screenshot("respond")


CHAT = """
from pausepoint import Agent, ScriptedModel
from pausepoint.transcript import UserMessage

def echo(request):
    said = [item.text for item in request.items if isinstance(item, UserMessage)]
    return f"You said: {said[-1]}"

chat = Agent(model=ScriptedModel(echo)).start("Hello")
chat
"""
CHAT_CHECK = """
print("CHAT", [item.text for item in chat.prompt.items if item.type == "user"], chat.prompt.output)
"""


def test_the_message_box_continues_a_completed_run(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("chat", [CHAT, CHAT_CHECK])
    nb.run_cell(0)
    view = nb.widget(0)
    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=30_000
    )

    view.get_by_test_id("pp-message-text").fill("And goodbye.")
    view.get_by_test_id("pp-message-send").click()

    expect(view).to_contain_text("You said: And goodbye.", timeout=30_000)
    expect(view.get_by_test_id("pp-message-text")).to_have_value("")
    nb.run_cell(1)
    expect(nb.output(1)).to_contain_text(
        "CHAT ['Hello', 'And goodbye.'] You said: And goodbye.", timeout=30_000
    )
    nb.screenshot("message-box")
