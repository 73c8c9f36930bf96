"""Debugging a run from its view in a real JupyterLab: Step buttons, a breakpoint with
edited arguments, Continue, Fork here at an answered approval, the fork answered the other
way in its own view, both branches side by side, the step slider back to the approval, and
the header's Copy menu closing as menus do. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

SETUP = """
from pausepoint import Agent, ScriptedModel, action, call
executed = []

@action
def lookup(order: int) -> dict:
    \"\"\"Look an order up.\"\"\"
    return {"order": order}

@action(needs_approval=True)
def refund(order: int, cents: int) -> str:
    \"\"\"Refund part of an order.\"\"\"
    executed.append(cents)
    return f"refunded {cents}"

def reply(request):
    turns = sum(1 for item in request.items if item.type == "assistant")
    if turns == 0:
        return call("lookup", order=42)
    if turns == 1:
        return call("refund", order=42, cents=12000)
    last = request.items[-1]
    return f"Refund {last.status}."

agent = Agent(model=ScriptedModel(reply), actions=[lookup, refund])
"""
START = """
run = agent.new_run("Refund order 42", step=True, breakpoints=["refund"]).start()
run
"""
CHECK = """
refund_call = [r for r in run.prompt.tool_calls() if r.name == "refund"][0]
print("KERNEL", run.result.status, "|", run.prompt.output, "|", executed, "|",
      refund_call.effective_input["cents"])
"""
SHOW_FORK = """
run.forks[0]
"""
FORK = """
fork = run.forks[0]
print("FORK", fork.result.status, "|", fork.prompt.output, "|", fork.prompt.parent.run_id == run.id,
      "|", executed)
"""

OpenNotebook = Callable[[str, list[str]], Any]


def _status(view: Any, status: str) -> None:
    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", status, timeout=60_000
    )


def _breakpoint_before(view: Any, tool: str) -> Any:
    card = view.locator('[data-testid="pp-card"][data-kind="breakpoint"]')
    expect(card).to_contain_text(f"before {tool}", timeout=30_000)
    return card


def test_step_break_edit_continue_fork_compare_and_go_back_from_the_view(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("debugging", [SETUP, START, CHECK, SHOW_FORK, FORK])
    nb.run_cell(0)
    nb.run_cell(1)
    view = nb.widget(0)

    _status(view, "paused")  # stepping: stopped before the first model request
    view.get_by_test_id("pp-model-pause").get_by_test_id("pp-debug-step").click()
    _breakpoint_before(view, "lookup").get_by_test_id("pp-debug-step").click()
    _status(view, "paused")
    view.get_by_test_id("pp-model-pause").get_by_test_id("pp-debug-step").click()
    card = _breakpoint_before(view, "refund")
    nb.screenshot("debug-breakpoint")

    card.get_by_test_id("pp-debug-edit").click()
    cents = card.get_by_test_id("pp-field-cents")
    expect(cents).to_have_value("12000")
    cents.fill("500")
    card.get_by_test_id("pp-debug-run-edited").click()

    approval = view.locator('[data-testid="pp-card"][data-kind="tool-approval"]')
    expect(approval).to_contain_text("500", timeout=30_000)
    approval.get_by_test_id("pp-approve").click()
    _status(view, "paused")
    view.get_by_test_id("pp-model-pause").get_by_test_id("pp-debug-continue").click()
    _status(view, "completed")
    expect(view).to_contain_text("Refund succeeded.")

    nb.run_cell(2)
    expect(nb.output(2).last).to_contain_text(
        "KERNEL completed | Refund succeeded. | [500] | 500", timeout=30_000
    )

    view.get_by_test_id("pp-debug").locator("summary").click()
    answered = view.locator('[data-testid="pp-answered"][data-kind="tool-approval"]')
    expect(answered).to_contain_text("Approval of refund: Approved")
    expect(answered.get_by_test_id("pp-when")).to_have_text(re.compile("just now|min ago"))
    answered.get_by_test_id("pp-fork-here").click()
    expect(view.get_by_test_id("pp-fork")).to_have_count(1, timeout=30_000)
    expect(view.get_by_test_id("pp-fork-name")).to_have_text("went back to refund")
    expect(view.get_by_test_id("pp-debug")).not_to_contain_text("interrupt")
    nb.screenshot("debug-forked")

    # The fork, in its own view: the approval open again; reject it this time.
    nb.run_cell(3)
    forked = nb.widget(1)
    approval = forked.locator('[data-testid="pp-card"][data-kind="tool-approval"]')
    approval.get_by_test_id("pp-reject-reason").fill("not today")
    approval.get_by_test_id("pp-reject").click()
    _status(forked, "completed")  # stepping was off when the parent was forked
    expect(forked).to_contain_text("Refund rejected.")
    nb.run_cell(4)
    expect(nb.output(4).last).to_contain_text(
        "FORK completed | Refund rejected. | True | [500]", timeout=30_000
    )

    # Both branches side by side in the parent's view, from the approval on.
    fork_row = view.get_by_test_id("pp-fork")
    expect(fork_row).to_have_attribute("data-status", "completed", timeout=30_000)
    fork_row.get_by_test_id("pp-compare").click()
    parent = view.locator('[data-testid="pp-branch"][data-branch="parent"]')
    child = view.locator('[data-testid="pp-branch"][data-branch="fork"]')
    expect(parent.get_by_test_id("pp-branch-answer")).to_have_text("Approved")
    expect(child.get_by_test_id("pp-branch-answer")).to_have_text("Declined: not today")
    expect(parent).to_contain_text("Refund succeeded.")
    expect(child).to_contain_text("Refund rejected.")
    view.get_by_test_id("pp-branches").scroll_into_view_if_needed()
    nb.screenshot("debug-compare")

    # Back to the moment the approval waited, with the keyboard: read-only.
    slider = view.get_by_test_id("pp-scrubber-range")
    slider.focus()
    slider.press("Home")
    for _ in range(20):
        if "Waiting for a person: refund" in (slider.get_attribute("aria-valuetext") or ""):
            break
        slider.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuetext", re.compile("Waiting for a person: refund"))
    past = view.get_by_test_id("pp-past")
    expect(past.get_by_test_id("pp-past-status")).to_have_attribute("data-status", "interrupted")
    expect(past.get_by_test_id("pp-past-status")).to_have_text("Waiting for an answer")
    then = past.locator(".pp-past-head").get_by_test_id("pp-when")
    expect(then).to_have_text(re.compile("just now|min ago"))
    expect(then).to_have_attribute("title", re.compile(r"\d:\d\d:\d\d"))
    card = past.get_by_test_id("pp-past-card")
    expect(card).to_have_attribute("data-kind", "tool-approval")
    # The arguments as edited at the breakpoint before it.
    expect(card.get_by_test_id("pp-past-args")).to_contain_text("500")
    expect(past.get_by_test_id("pp-approve")).to_have_count(0)
    expect(past.locator('[data-testid="pp-tool-call"][data-name="refund"]')).to_have_attribute(
        "data-status", "interrupted"
    )
    expect(past).not_to_contain_text("Refund succeeded.")
    view.get_by_test_id("pp-scrubber").scroll_into_view_if_needed()
    nb.screenshot("debug-scrubbed")
    view.get_by_test_id("pp-scrubber-live").click()
    expect(view.get_by_test_id("pp-past")).to_have_count(0)

    # The Copy menu closes on a click outside it, and on Escape with focus back on Copy.
    menu = view.get_by_test_id("pp-copy-menu")
    copy = menu.locator("summary")
    copy.click()
    expect(menu.get_by_test_id("pp-copy-run-id")).to_be_visible()
    view.get_by_test_id("pp-status").click()
    expect(menu).not_to_have_attribute("open", "")
    expect(menu.get_by_test_id("pp-copy-run-id")).to_be_hidden()
    copy.click()
    menu.get_by_test_id("pp-copy").focus()
    nb.page.keyboard.press("Escape")
    expect(menu.get_by_test_id("pp-copy")).to_be_hidden()
    expect(copy).to_be_focused()
