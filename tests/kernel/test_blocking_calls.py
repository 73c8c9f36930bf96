"""run_sync / resume_sync / reject_sync work without `await`: in a script and in a kernel."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import nbformat
from nbclient import NotebookClient

PROGRAM = textwrap.dedent(
    """
    from pausepoint import Agent, ScriptedModel, action, call

    @action(needs_approval=True)
    def wipe(disk: str) -> str:
        \"\"\"Wipe a disk.\"\"\"
        return f"wiped {disk}"

    run = Agent(
        model=ScriptedModel([call("wipe", disk="d1"), "Wiped.", call("wipe", disk="d2"), "Kept."]),
        actions=[wipe],
    ).new_run("wipe d1")
    print("first", run.run_sync().status)
    print("then", run.resume_sync(True).status, run.prompt.output)
    print("again", run.run_sync("wipe d2").status)
    print("finally", run.reject_sync("no").status, run.prompt.output)
    """
)
EXPECTED = [
    "first interrupted",
    "then completed Wiped.",
    "again interrupted",
    "finally completed Kept.",
]


def test_blocking_calls_in_a_plain_script() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split("\n")[:4] == EXPECTED


def test_blocking_calls_in_a_notebook_cell() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(PROGRAM)]
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert text.split("\n")[:4] == EXPECTED
