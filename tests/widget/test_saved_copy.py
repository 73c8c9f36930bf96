"""What a notebook keeps of a run view: none of the view's code (the Jupyter server serves
it, or the kernel sends it on request), a small state per view that refers to one shared
model naming the code by digest, and what a view whose kernel is gone needs to say what
works: whether the run is stored, and the line that loads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.widget.recording import RecordingComm

from pausepoint import Agent, Inbox, ScriptedModel
from pausepoint.store import SQLiteStore
from pausepoint.widget import _bundle
from pausepoint.widget._snapshot import snapshot_html
from pausepoint_server import read_bundle

STATIC = Path(_bundle.__file__).parent / "static"


@pytest.fixture(autouse=True)
def fresh_front_end(monkeypatch: pytest.MonkeyPatch, comms: list[RecordingComm]) -> None:
    """Each test starts as a new kernel does: no shared front end yet, comms recorded."""
    monkeypatch.setattr(_bundle, "_shared", None)


def agent(store: SQLiteStore | None = None) -> Agent:
    return Agent(model=ScriptedModel(["Hello."]), store=store)


def opened(comms: list[RecordingComm]) -> list[dict[str, object]]:
    return [c.opened_state() for c in comms]


def front_end_comm(comms: list[RecordingComm]) -> RecordingComm:
    [shared] = [c for c in comms if "pausepoint_front_end" in c.opened_state()]
    return shared


def test_run_views_share_one_front_end_that_names_the_code_and_carries_none(
    comms: list[RecordingComm],
) -> None:
    first, second = agent().new_run("Hi"), agent().new_run("Hello")
    assert first.view._front_end is second.view._front_end

    states = opened(comms)
    front_ends = [s for s in states if "pausepoint_front_end" in s]
    views = [s for s in states if s.get("_anywidget_id") == "pausepoint.widget._view.RunView"]
    assert len(front_ends) == 1  # one per kernel, not one per view
    assert len(views) == 2
    [shared] = front_ends
    for view in views:
        assert view["_front_end"] == f"IPY_MODEL_{first.view._front_end.model_id}"
        assert view["_esm"] == _bundle.LOADER
        assert len(json.dumps(view)) < 8_000  # the loader and the run, not the bundle
        assert "_css" not in view or view["_css"] == ""

    # The shared model names the installed bundle by the digest the server serves it
    # under; what a notebook saves of it is that name, not the code.
    bundle = read_bundle(STATIC)
    assert bundle is not None
    assert shared["pausepoint_front_end"] == bundle.digest
    assert shared["code"] == ""
    assert len(json.dumps(shared)) < 1_000


def test_the_kernel_sends_the_code_to_a_view_that_asks_and_saves_none_of_it(
    comms: list[RecordingComm],
) -> None:
    """What the loader does when no Jupyter server serves the code (VS Code, Voila, an
    install without the server extension): it asks the shared model, and the kernel
    answers with a message, which is not part of the state a notebook saves."""
    assert agent().new_run("Hi").view.comm is not None
    shared = front_end_comm(comms)

    shared.browser_send({"type": "front-end", "id": "r1"})

    [reply] = shared.custom("front-end")
    assert reply["id"] == "r1"
    assert reply["js"] == (STATIC / "widget.js").read_text("utf-8")
    assert reply["css"] == (STATIC / "widget.css").read_text("utf-8")
    assert shared.updates() == []
    assert shared.opened_state()["code"] == ""


def test_without_a_bundle_the_shared_model_carries_the_note_that_says_what_to_do(
    tmp_path: Path, comms: list[RecordingComm]
) -> None:
    front_end = _bundle.FrontEnd(tmp_path)  # a static folder without the built front end

    assert "pausepoint/widget/static/widget.js is missing" in front_end.code
    assert front_end.pausepoint_front_end
    front_end_comm(comms).browser_send({"type": "front-end", "id": "r1"})
    assert front_end_comm(comms).custom() == []  # the note is the whole module


def test_an_inbox_shares_the_loader_and_the_front_end_of_run_views(
    tmp_path: Path, comms: list[RecordingComm]
) -> None:
    run = agent().new_run("Hi")
    box = Inbox(SQLiteStore(tmp_path / "runs.db"), poll=None)

    assert box._front_end is run.view._front_end
    state = next(s for s in opened(comms) if s.get("view") == "inbox")
    assert state["_esm"] == _bundle.LOADER
    assert state["_front_end"] == f"IPY_MODEL_{run.view._front_end.model_id}"
    assert "_css" not in state or state["_css"] == ""
    assert len(json.dumps(state)) < 8_000
    assert len([s for s in opened(comms) if "pausepoint_front_end" in s]) == 1


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
