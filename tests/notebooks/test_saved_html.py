"""The quickstart, run headless and answered from code, saved and exported with the
default `jupyter nbconvert --to html`: the export shows each run's final state as text,
with no script needed; the notebook keeps none of the view's code (the Jupyter server
serves it), so a lone view adds as little as each of many."""

from __future__ import annotations

import json
import re
import tempfile
from functools import cache
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from tests.notebooks.headless import QUICKSTART, execute, jupyter
from tests.notebooks.test_headless import Page

STATE = "application/vnd.jupyter.widget-state+json"
VIEW = "application/vnd.jupyter.widget-view+json"
RUN_VIEW = "pausepoint.widget._view.RunView"
STATIC = Path(__file__).resolve().parents[2] / "src" / "pausepoint" / "widget" / "static"
ANSWER = "result = await run.resume(True)  # what Approve does\nprint(result.status)"


@cache
def answered() -> tuple[Path, NotebookNode]:
    """The quickstart executed with `jupyter nbconvert --execute`, the reader's card
    answered from code in a cell at its end; the saved notebook."""
    folder = Path(tempfile.mkdtemp(prefix="pausepoint-saved-html-"))
    nb = nbformat.read(QUICKSTART, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(ANSWER))
    executed = execute(nb, folder, "quickstart")
    return folder / "quickstart-executed.ipynb", executed


def test_the_html_export_shows_each_runs_final_state_offline() -> None:
    path, nb = answered()
    assert nb.cells[-1].outputs[0].text == "completed\n"

    jupyter("nbconvert", "--to", "html", path.name, "--output", "exported", cwd=path.parent)
    html = (path.parent / "exported.html").read_text("utf-8")
    page = Page(html)

    # The snapshots are HTML of their own: visible with no script run, network or not.
    snapshots = re.findall(r'<div class="pausepoint-snapshot[^"]*"', html)
    assert len(snapshots) == 2  # the reader's run and "try your own request"
    visible = page.visible
    assert visible.count("Completed") >= 2
    assert "Approved" in visible
    assert "Done: refund_order returned refunded 35.00 for order 42." in visible
    assert "Waiting for your answer" not in visible
    # The live views are there too, for a reader online (drawn by scripts from a CDN).
    assert VIEW in [kind for kind, _ in page.scripts]


def test_a_saved_run_view_adds_little_to_the_notebook() -> None:
    path, nb = answered()
    state = nb.metadata.widgets[STATE]["state"]
    views = {k: v for k, v in state.items() if v["state"].get("_anywidget_id") == RUN_VIEW}
    front_ends = {k: v for k, v in state.items() if "pausepoint_front_end" in v["state"]}
    assert len(views) == 2
    assert len(front_ends) == 1  # names the view's code for every view; holds none of it

    def size(entry: object) -> int:
        return len(json.dumps(entry, indent=1))

    bundle = len(json.dumps((STATIC / "widget.js").read_text("utf-8")))
    bundle += len(json.dumps((STATIC / "widget.css").read_text("utf-8")))
    per_view = [size(v) for v in views.values()]
    shared = size(next(iter(front_ends.values())))
    total = path.stat().st_size
    spread = (sum(per_view) + shared) / len(views)
    print(
        f"\nsaved quickstart: {total / 1000:.1f} KB with {len(views)} run views; "
        f"each view's state {', '.join(f'{s / 1000:.1f} KB' for s in per_view)}; "
        f"the shared model: {shared / 1000:.1f} KB "
        f"(the view's code, not saved, is {bundle / 1000:.1f} KB); "
        f"per view with the shared model spread: {spread / 1000:.1f} KB"
    )
    assert all(s <= 20_000 for s in per_view)
    assert shared <= 1_000
    assert max(per_view) + shared <= 60_000  # a notebook with one view alone
    assert spread <= 60_000
