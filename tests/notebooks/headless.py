"""Notebooks executed headless with Jupyter's own command-line tools, as a user would run
them in CI or before sharing: `jupyter execute` and `jupyter nbconvert --execute`."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "notebooks" / "01-quickstart.ipynb"

EVIL = '<img src=x onerror="window.__pwned = 1"> <script>window.__pwned = 2</script>'

SETUP = f"""
from pausepoint import Agent, ScriptedModel, action, call
EVIL = {EVIL!r}

@action(needs_approval=True)
def wipe(target: str) -> str:
    \"\"\"Wipe a target.\"\"\"
    return "wiped " + target

agent = Agent(
    model=ScriptedModel([call("wipe", target=EVIL), "Done " + EVIL]), actions=[wipe]
)
"""
START = 'run = agent.start("Please " + EVIL)\nrun'
WAIT = "result = await run.wait()\nprint(result.status)"
APPROVE = "result = await run.resume(True)\nprint(result.status)"


def notebook(*cells: str) -> NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source.strip()) for source in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def answered_later() -> NotebookNode:
    """A run started in the background, shown, then approved in a later cell."""
    return notebook(SETUP, START, WAIT, APPROVE)


def left_waiting() -> NotebookNode:
    """A run shown and left waiting for an approval when the notebook ends."""
    return notebook(SETUP, START, WAIT)


def jupyter(*args: str, cwd: Path) -> None:
    """Run a `jupyter` subcommand with this interpreter; fail with its output."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, f"jupyter {' '.join(args)} failed:\n{done.stderr}"


def execute(nb: NotebookNode, folder: Path, name: str, *flags: str) -> NotebookNode:
    """`jupyter nbconvert --to notebook --execute`; returns the saved notebook."""
    source = folder / f"{name}.ipynb"
    nbformat.write(nb, source)
    jupyter(
        "nbconvert", "--to", "notebook", "--execute", source.name,
        "--output", f"{name}-executed", *flags, cwd=folder,
    )  # fmt: skip
    return nbformat.read(folder / f"{name}-executed.ipynb", as_version=4)


def run_outputs(nb: NotebookNode) -> list[NotebookNode]:
    """The saved outputs that show a pausepoint run."""
    return [
        output
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if "pausepoint-snapshot" in output.get("data", {}).get("text/html", "")
    ]


def execute_in_process(nb: NotebookNode, *, store_widget_state: bool = True) -> NotebookNode:
    """What `--execute` does (nbconvert's ExecutePreprocessor is an nbclient
    `NotebookClient`), without starting the command line tool; then saved and read back."""
    client = NotebookClient(
        nb, kernel_name="python3", timeout=120, store_widget_state=store_widget_state
    )
    client.execute()
    return nbformat.reads(nbformat.writes(nb), as_version=4)


@cache
def executed(name: str) -> NotebookNode:
    """One headless execution per test session of each notebook the tests look at:
    `quickstart` (with `jupyter nbconvert --execute`), `waiting` (left waiting), `later`
    (answered in a later cell) and `later-no-state` (the same, saved without widget
    state). Callers must not modify it."""
    if name == "quickstart":
        folder = Path(tempfile.mkdtemp(prefix="pausepoint-quickstart-"))
        return execute(nbformat.read(QUICKSTART, as_version=4), folder, name)
    if name == "waiting":
        return execute_in_process(left_waiting())
    if name == "later":
        return execute_in_process(answered_later())
    if name == "later-no-state":
        return execute_in_process(answered_later(), store_widget_state=False)
    raise ValueError(f"no notebook called {name!r}")
