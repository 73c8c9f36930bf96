"""Going back from the view in a real JupyterLab: Go back here on a finished run's tool
call makes a fork that opens in place below the run, its breakpoint card edits the
call's arguments, and the fork runs that call with them, answered there, without asking
the model for anything before the fork point. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

SETUP = """
from pausepoint import Agent, ScriptedModel, action, call
executed = []
asked = []

@action
def lookup(order: int) -> dict:
    \"\"\"Look an order up.\"\"\"
    return {"order": order}

@action
def refund(order: int, cents: int) -> str:
    \"\"\"Refund part of an order.\"\"\"
    executed.append(cents)
    return f"refunded {cents}"

def reply(request):
    turns = sum(1 for item in request.items if item.type == "assistant")
    asked.append(turns)
    if turns == 0:
        return call("lookup", order=42)
    if turns == 1:
        return call("refund", order=42, cents=12000)
    return f"Refunded {request.items[-1].result}."

agent = Agent(model=ScriptedModel(reply), actions=[lookup, refund])
run = agent.start("Refund order 42")
run
"""
CHECK = """
fork = run.forks[0]
print("FORK", fork.result.status, "|", fork.fork_name, "|", fork.prompt.output, "|", executed,
      "|", asked)
"""

OpenNotebook = Callable[[str, list[str]], Any]


def test_a_fork_made_in_the_view_from_a_tool_call_runs_it_with_an_edited_argument_in_place(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("time-travel", [SETUP, CHECK])
    nb.run_cell(0)
    view = nb.widget(0)
    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=60_000
    )
    expect(view).to_contain_text("Refunded refunded 12000.")

    refund = view.locator('[data-testid="pp-tool-call"][data-name="refund"]')
    refund.get_by_test_id("pp-go-back-call").click()

    # The fork opens in place, below the run, as its own live view, paused before refund.
    shown = view.get_by_test_id("pp-fork-view")
    expect(shown).to_be_visible(timeout=30_000)
    expect(shown.get_by_test_id("pp-fork-view-name")).to_have_text("went back to refund")
    fork = shown.locator(".pp-root")
    card = fork.locator('[data-testid="pp-card"][data-kind="breakpoint"]')
    expect(card).to_contain_text("Went back to refund", timeout=30_000)
    expect(fork.get_by_test_id("pp-status")).to_have_attribute("data-status", "interrupted")
    expect(view.get_by_test_id("pp-fork")).to_have_count(0)  # the Debug panel is closed
    shown.scroll_into_view_if_needed()
    nb.screenshot("time-travel-went-back")

    # Answered there: edit the cents and run the call again with them.
    card.get_by_test_id("pp-debug-edit").click()
    cents = card.get_by_test_id("pp-field-cents")
    expect(cents).to_have_value("12000")
    cents.fill("500")
    card.get_by_test_id("pp-debug-run-edited").click()
    expect(fork.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=60_000
    )
    expect(fork).to_contain_text("Refunded refunded 500.")
    expect(shown.get_by_test_id("pp-fork-view-name")).to_have_text(
        "edited cents at refund", timeout=30_000
    )
    # The parent is as it was.
    expect(
        view.locator('.pp-transcript [data-testid="pp-tool-call"][data-name="refund"]').first
    ).to_have_attribute("data-status", "succeeded")
    shown.scroll_into_view_if_needed()
    nb.screenshot("time-travel-fork-answered")

    # The model was asked for turns 0, 1 and 2 by the run, and only turn 2 by the fork.
    nb.run_cell(1)
    expect(nb.output(1).last).to_contain_text(
        "FORK completed | edited cents at refund | Refunded refunded 500. | [12000, 500] | "
        "[0, 1, 2, 2]",
        timeout=30_000,
    )
    print("model calls before the fork point, made by the fork: 0 (asked: [0, 1, 2, 2])")

    # The forks list names it, the id on hover, and Compare still works.
    view.get_by_test_id("pp-debug").locator("summary").first.click()
    row = view.get_by_test_id("pp-fork")
    expect(row.get_by_test_id("pp-fork-name")).to_have_text("edited cents at refund")
    run_id = row.get_attribute("data-run-id")
    expect(row.get_by_test_id("pp-fork-name")).to_have_attribute("title", f"Run {run_id}")
    expect(row).not_to_contain_text(str(run_id))
    row.get_by_test_id("pp-compare").click()
    parent = view.locator('[data-testid="pp-branch"][data-branch="parent"]').first
    child = view.locator('[data-testid="pp-branch"][data-branch="fork"]').first
    expect(parent.get_by_test_id("pp-branch-answer")).to_have_text(
        "Ran as the model asked (succeeded)", timeout=30_000
    )
    expect(child.get_by_test_id("pp-branch-answer")).to_have_text(
        "Ran with edited arguments: cents 12000 → 500"
    )
    view.get_by_test_id("pp-branches").first.scroll_into_view_if_needed()
    nb.screenshot("time-travel-compare")


CHECK_TURN = """
fork = run.forks[0]
print("TURN", fork.result.status, "|", fork.fork_name, "|", fork.prompt.items[0].text, "|",
      fork.prompt.output, "|", executed, "|", asked)
"""


def test_a_fork_made_in_the_view_at_a_turn_has_its_message_and_a_result_edited_there(
    open_notebook: OpenNotebook,
) -> None:
    """Go back to the second turn (Turn 2 on screen, turn 1 in code) from the Debug panel:
    in the fork, opened in place, Edit the message and the lookup's result, then Continue:
    the model reads both edits, nothing before that turn is asked again, and the rows say
    what a person changed."""
    nb = open_notebook("time-travel-turn", [SETUP, CHECK_TURN])
    nb.run_cell(0)
    view = nb.widget(0)
    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=60_000
    )
    view.get_by_test_id("pp-debug").locator("summary").first.click()
    view.locator('[data-testid="pp-debug-turn"][data-turn="1"]').get_by_test_id(
        "pp-go-back-turn"
    ).click()

    shown = view.get_by_test_id("pp-fork-view")
    expect(shown.get_by_test_id("pp-fork-view-name")).to_have_text(
        "asked again at turn 2", timeout=30_000
    )
    fork = shown.locator(".pp-root")
    expect(fork.get_by_test_id("pp-status")).to_have_attribute("data-status", "paused")
    edits = fork.get_by_test_id("pp-edit-item")
    expect(edits).to_have_count(2)  # the message and the lookup; not the assistant's turn

    # The message, in words.
    edits.first.click()
    words = fork.get_by_test_id("pp-edit-text")
    expect(words).to_have_value("Refund order 42")
    words.fill("Refund order 43")
    fork.get_by_test_id("pp-edit-save").click()
    expect(fork.get_by_test_id("pp-item-editor")).to_have_count(0, timeout=30_000)
    message = fork.locator('[data-testid="pp-item"][data-type="user"]').first
    expect(message).to_contain_text("Refund order 43")
    expect(message.get_by_test_id("pp-edited-mark")).to_have_text("Message edited by a person")

    # The lookup's result, as JSON.
    fork.get_by_test_id("pp-edit-item").last.click()
    editor = fork.get_by_test_id("pp-json-editor")
    editor.fill('{"order": 43}')
    fork.get_by_test_id("pp-edit-save").click()
    expect(fork.get_by_test_id("pp-item-editor")).to_have_count(0, timeout=30_000)
    expect(fork.get_by_test_id("pp-edited-mark")).to_have_count(2)
    expect(shown.get_by_test_id("pp-fork-view-name")).to_have_text(
        "asked again at turn 2 with 2 items edited", timeout=30_000
    )
    shown.scroll_into_view_if_needed()
    nb.screenshot("time-travel-turn-edited")

    fork.get_by_test_id("pp-debug-continue").click()
    expect(fork.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=60_000
    )
    expect(fork.get_by_test_id("pp-edit-item")).to_have_count(0)  # it moved on
    nb.run_cell(1)
    # The run asked for turns 0, 1, 2; the fork for 1 and 2 only: nothing before turn 1.
    expect(nb.output(1).last).to_contain_text(
        "TURN completed | asked again at turn 2 with 2 items edited | Refund order 43 | "
        "Refunded refunded 12000. | [12000, 12000] | [0, 1, 2, 1, 2]",
        timeout=30_000,
    )
