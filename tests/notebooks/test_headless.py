"""Notebooks executed headless (`jupyter execute`, `jupyter nbconvert --execute`) save a
readable record of each run: the display's `text/html` snapshot, brought up to date as
the run moves on, and nbconvert's HTML export shows it with nothing live in it."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter
from nbformat import NotebookNode
from tests.notebooks.headless import EVIL, answered_later, executed, jupyter, run_outputs

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class Page(HTMLParser):
    """What a browser would make of an HTML page: its visible text, tags and scripts."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.text: list[str] = []
        self.scripts: list[tuple[str | None, str]] = []
        self.imgs: list[dict[str, str | None]] = []
        self.handlers: list[str] = []
        self._script_type: str | None = None
        self._in_script = False
        self._in_style = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        if tag == "script":
            self._in_script, self._script_type = True, dict(attrs).get("type")
            self.scripts.append((self._script_type, ""))
        elif tag == "style":
            self._in_style = True
        elif tag == "img":
            self.imgs.append(dict(attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False
        elif tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            kind, body = self.scripts[-1]
            self.scripts[-1] = (kind, body + data)
        elif not self._in_style:
            self.text.append(data)

    @property
    def visible(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.text))


def to_html(nb: NotebookNode, **config: object) -> Page:
    exporter = HTMLExporter(**config)  # type: ignore[arg-type]
    body, _ = exporter.from_notebook_node(nb)
    return Page(body)


def assert_nothing_live(page: Page) -> None:
    assert page.imgs == []
    assert page.handlers == []
    for kind, body in page.scripts:
        # nbconvert's own scripts, and JSON data that no browser runs.
        if "__pwned" in body:
            assert kind is not None
            assert kind.startswith("application/vnd.jupyter.widget"), kind
            assert "</script" not in body.lower()


def test_quickstart_executed_by_nbconvert_saves_its_final_state() -> None:
    nb = executed("quickstart")

    shown = run_outputs(nb)
    assert len(shown) == 2  # the reader's run and "try your own request"
    waiting, mine = (output.data for output in shown)
    # Nothing answers the card the reader is invited to click: it is saved waiting.
    assert "Waiting for an answer" in waiting["text/html"]
    assert "Approve running refund_order?" in waiting["text/html"]
    # Shown while the run was waiting; saved as it ended, after a later cell answered it.
    assert "Completed" in mine["text/html"]
    assert "Done: refund_order returned refunded 12.50 for order 7." in mine["text/html"]
    assert "Approved" in mine["text/html"]
    assert "output: Done: refund_order returned" in mine["text/plain"]
    views = [
        o.data[WIDGET_VIEW]
        for c in nb.cells
        for o in c.get("outputs", [])
        if WIDGET_VIEW in o.get("data", {})
    ]
    assert len(views) == 2  # each run's live view, in the output before its snapshot
    for view in views:
        assert (
            view["model_id"]
            in nb.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
        )


def test_jupyter_execute_saves_a_run_answered_in_a_later_cell(tmp_path: Path) -> None:
    nbformat.write(answered_later(), tmp_path / "later.ipynb")
    jupyter("execute", "--inplace", "later.ipynb", cwd=tmp_path)
    nb = nbformat.read(tmp_path / "later.ipynb", as_version=4)

    [shown] = run_outputs(nb)
    html = shown.data["text/html"]
    assert "Completed" in html
    assert "Approved" in html
    assert "Waiting for your answer" not in html
    assert nb.cells[2].outputs[0].text == "interrupted\n"  # it was waiting in between


def test_a_run_left_waiting_is_saved_with_its_read_only_card() -> None:
    nb = executed("waiting")

    page = Page(run_outputs(nb)[0].data["text/html"])

    assert "Waiting for an answer" in page.visible
    assert "Waiting for your answer" in page.visible
    assert "(read-only here)" in page.visible
    assert "await run.resume(True) or await run.reject('why')" in page.visible


def test_html_export_without_widget_state_shows_the_snapshot_escaped() -> None:
    """HTML in the user's message, the model's text and the tool's arguments."""
    page = to_html(executed("later-no-state"))

    assert f"Please {EVIL}" in page.visible  # the markup shows as text
    assert f"Done {EVIL}" in page.visible
    assert "wipe" in page.visible
    assert "Completed" in page.visible
    assert_nothing_live(page)


def test_html_export_with_saved_widget_state_shows_the_snapshot_beside_the_widget() -> None:
    """nbconvert renders a widget output as the widget when the notebook carries that
    model's saved state (the default of `--execute`), drawn later by a script from a CDN;
    the snapshot is an output of its own, so the export shows the run without it too."""
    nb = executed("later")
    page = to_html(nb)

    kinds = [kind for kind, _ in page.scripts]
    assert WIDGET_VIEW in kinds
    assert "application/vnd.jupyter.widget-state+json" in kinds
    assert "Completed" in page.visible
    assert f"Done {EVIL}" in page.visible
    assert_nothing_live(page)

    cleared = to_html(nb, preprocessors=["nbconvert.preprocessors.ClearMetadataPreprocessor"])
    assert WIDGET_VIEW not in [kind for kind, _ in cleared.scripts]
    assert f"Done {EVIL}" in cleared.visible
    assert_nothing_live(cleared)
