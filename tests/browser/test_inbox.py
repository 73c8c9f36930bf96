"""The inbox in a real JupyterLab: two runs wait in a SQLite store; opening one of the
list's rows and approving its card completes it and it leaves the list. Screenshots go to
test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

SETUP = """
import tempfile, pathlib
import pausepoint
from pausepoint import Agent, ScriptedModel, action, call
from pausepoint.store import SQLiteStore

store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "runs.db")

@action(needs_approval=True)
def delete_record(id: int) -> str:
    \"\"\"Delete a record.\"\"\"
    return f"deleted {id}"

def script(request):
    if len(request.items) == 1:
        return call("delete_record", id=int(request.items[0].text.split()[-1]))
    return "Done."

agent = Agent(model=ScriptedModel(script), actions=[delete_record], name="ops", store=store)
first = agent.new_run("Delete record 1")
second = agent.new_run("Delete record 2")
print("PAUSED", (await first.run()).status, (await second.run()).status)
"""
SHOW = """
box = pausepoint.inbox(store, agents={"ops": agent})
box
"""
CHECK = """
print("KERNEL", store.summary(first.id).status, store.summary(second.id).status)
"""

OpenNotebook = Callable[[str, list[str]], Any]


def test_approving_a_run_in_the_inbox_completes_it_and_it_leaves(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("inbox", [SETUP, SHOW, CHECK])
    nb.run_cell(0)
    expect(nb.output(0).last).to_contain_text("PAUSED interrupted interrupted", timeout=60_000)
    nb.run_cell(1)
    view = nb.widget(0)
    rows = view.get_by_test_id("pp-triage-row")
    expect(rows).to_have_count(2, timeout=60_000)
    expect(rows.first).to_contain_text("Delete record 2")  # newest first
    expect(rows.first).to_contain_text("id 2")  # the key argument of the call that asks
    expect(view.get_by_test_id("pp-inbox-count")).to_contain_text("2 runs waiting")
    nb.screenshot("inbox-two-waiting")

    rows.filter(has_text="Delete record 1").get_by_test_id("pp-triage-open").click()
    opened = view.get_by_test_id("pp-inbox-entry")
    expect(opened.get_by_test_id("pp-triage-thread")).to_contain_text("Delete record 1")
    nb.screenshot("inbox-opened")
    opened.get_by_test_id("pp-approve").click()

    expect(rows).to_have_count(1, timeout=30_000)
    expect(rows.first).to_contain_text("Delete record 2")
    expect(view.get_by_test_id("pp-inbox-count")).to_contain_text("1 run waiting")
    # The answered run's row closes and says what became of the run, in place of a card
    # left saying "Sent; waiting for the run".
    expect(view.get_by_test_id("pp-triage-answered")).to_have_text(
        "“Delete record 1”: nothing waits there now; the run completed.", timeout=30_000
    )
    expect(view.get_by_test_id("pp-triage-answered")).to_be_visible()
    expect(opened).to_have_count(0)
    expect(view.get_by_test_id("pp-sent")).to_have_count(0)
    nb.screenshot("inbox-one-left")
    nb.run_cell(2)
    expect(nb.output(2).last).to_contain_text("KERNEL completed interrupted", timeout=30_000)
