"""Debugging a run from its view in a real JupyterLab: Step buttons, a breakpoint with
edited arguments, Continue, and Fork here at an answered approval. Screenshots go to
test-artifacts/browser/."""

from __future__ import annotations

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
FORK = """
fork = run.forks[0]
result = await fork.reject("not today")
print("FORK", result.status, "|", fork.prompt.output, "|", fork.prompt.parent.run_id == run.id,
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


def test_step_break_edit_continue_and_fork_from_the_view(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("debugging", [SETUP, START, CHECK, FORK])
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
    answered = view.locator('[data-testid="pp-answered"]', has_text="tool-approval")
    answered.get_by_test_id("pp-fork-here").click()
    expect(view.get_by_test_id("pp-fork")).to_have_count(1, timeout=30_000)
    nb.screenshot("debug-forked")

    nb.run_cell(3)
    expect(nb.output(3).last).to_contain_text(
        "FORK completed | Refund rejected. | True | [500]", timeout=30_000
    )
