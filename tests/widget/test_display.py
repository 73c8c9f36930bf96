"""A run shown in a notebook: one display id per run, and its outputs updated at the end
of a cell only when what they show changed."""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers import paused_delete

from pausepoint import Action
from pausepoint.widget import _display


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """What would reach the front end: ("display" | "update", message)."""
    calls: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(_display, "_DISPLAYED", _display._Displayed())

    def display(data: dict[str, Any], **kwargs: Any) -> None:
        calls.append(("display", {"data": data, **kwargs}))

    def update_display(data: dict[str, Any], **kwargs: Any) -> None:
        calls.append(("update", {"data": data, **kwargs}))

    import IPython.display

    monkeypatch.setattr(IPython.display, "display", display)
    monkeypatch.setattr(IPython.display, "update_display", update_display)
    return calls


async def test_outputs_follow_the_run_and_only_when_it_changed(
    delete_record: Action, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    run = await paused_delete(delete_record, reply="All gone.")
    run._ipython_display_()
    run._ipython_display_()  # shown twice: both outputs share one id
    [(_, first), (_, second)] = sent
    assert first["display_id"] == second["display_id"]
    assert first["display_id"].startswith(f"pausepoint-{run.id}-")
    assert "Waiting for your answer" in first["data"]["text/html"]

    _display._DISPLAYED.refresh()  # a cell ends, nothing changed
    assert len(sent) == 2

    await run.resume({"approved": True})
    _display._DISPLAYED.refresh()
    _display._DISPLAYED.refresh()

    updates = [message for kind, message in sent if kind == "update"]
    assert len(updates) == 1
    assert updates[0]["display_id"] == first["display_id"]
    assert "All gone." in updates[0]["data"]["text/html"]
    assert "Waiting for your answer" not in updates[0]["data"]["text/html"]
    assert updates[0]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] == (
        run.view.model_id
    )
