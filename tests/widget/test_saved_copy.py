"""What a notebook keeps of a run view: the view's code once per kernel (every run view
refers to one shared model), a small state per view, and what a view whose kernel is
gone needs to say what works: whether the run is stored, and the line that loads it."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest
from tests.widget.recording import RecordingComm

from pausepoint import Agent, ScriptedModel
from pausepoint.store import SQLiteStore
from pausepoint.widget import _bundle
from pausepoint.widget._snapshot import snapshot_html

STATIC = Path(_bundle.__file__).parent / "static"


@pytest.fixture(autouse=True)
def fresh_front_end(monkeypatch: pytest.MonkeyPatch, comms: list[RecordingComm]) -> None:
    """Each test starts as a new kernel does: no shared front end yet, comms recorded."""
    monkeypatch.setattr(_bundle, "_shared", None)


def agent(store: SQLiteStore | None = None) -> Agent:
    return Agent(model=ScriptedModel(["Hello."]), store=store)


def opened(comms: list[RecordingComm]) -> list[dict[str, object]]:
    return [c.opened_state() for c in comms]


def test_run_views_share_one_front_end_and_each_carries_only_a_loader(
    comms: list[RecordingComm],
) -> None:
    first, second = agent().new_run("Hi"), agent().new_run("Hello")
    assert first.view._front_end is second.view._front_end

    states = opened(comms)
    front_ends = [s for s in states if "pausepoint_front_end" in s]
    views = [s for s in states if s.get("_anywidget_id") == "pausepoint.widget._view.RunView"]
    assert len(front_ends) == 1  # sent (and saved) once per kernel, not once per view
    assert len(views) == 2
    [shared] = front_ends
    for view in views:
        assert view["_front_end"] == f"IPY_MODEL_{first.view._front_end.model_id}"
        assert len(json.dumps(view)) < 8_000  # the loader and the run, not the bundle
        assert "_css" not in view or view["_css"] == ""

    # The shared model holds the bundle itself, compressed, and its style sheet.
    assert shared["encoding"] == "gzip+base64"
    code = gzip.decompress(base64.b64decode(str(shared["code"])))
    assert code == (STATIC / "widget.js").read_bytes()
    css = gzip.decompress(base64.b64decode(str(shared["css"])))
    assert css == (STATIC / "widget.css").read_bytes()
    assert len(str(shared["code"])) < 0.6 * len(code)


def test_a_closed_front_end_is_made_again_for_the_next_view(
    comms: list[RecordingComm],
) -> None:
    run = agent().new_run("Hi")
    run.view._front_end.close()
    again = agent().new_run("Hello")
    assert again.view._front_end.comm is not None
    assert again.view._front_end is not run.view._front_end


def test_a_run_kept_in_memory_has_no_line_to_load_it() -> None:
    run = agent().new_run("Hi")
    assert run.view.load_line == ""
    html = snapshot_html(run)
    assert "gone with its kernel" in html
    assert "run the cell again" not in html.lower()


def test_a_run_stored_by_its_agent_names_the_line_that_loads_it(
    tmp_path: Path, comms: list[RecordingComm]
) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    run = agent(store).new_run("Hi")

    assert run.view.load_line == f'agent.load("{run.id}")'
    view_state = next(s for s in opened(comms) if s.get("run_id") == run.id)
    assert view_state["load_line"] == f'agent.load("{run.id}")'
    assert f"agent.load(&quot;{run.id}&quot;)" in snapshot_html(run)
    assert "run the cell again" not in snapshot_html(run).lower()
    # The line does what it says, in a new kernel with the same agent and store.
    assert agent(store).load(run.id).id == run.id


def test_a_run_stored_elsewhere_names_its_store(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    run = agent().new_run("Hi", store=store)
    assert run.view.load_line == f'agent.load("{run.id}", store=store)'
    assert agent().load(run.id, store=store).id == run.id
