"""A run shown in a notebook: its live view in one output, its snapshot in the next with
one display id per run, and the snapshot updated whenever the run stops (from whatever
loop the run is on) and at the end of a cell, only when what it shows changed."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from tests.helpers import paused_delete, until

from pausepoint import Action, Agent, ScriptedModel, call
from pausepoint.widget import _display

VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """What would reach the front end: ("display" | "update", message)."""
    calls: list[tuple[str, dict[str, Any]]] = []
    lock = threading.Lock()
    monkeypatch.setattr(_display, "_DISPLAYED", _display._Displayed())

    def display(data: dict[str, Any], **kwargs: Any) -> None:
        with lock:
            calls.append(("display", {"data": data, **kwargs}))

    def update_display(data: dict[str, Any], **kwargs: Any) -> None:
        with lock:
            calls.append(("update", {"data": data, **kwargs, "thread": threading.get_ident()}))

    import IPython.display

    monkeypatch.setattr(IPython.display, "display", display)
    monkeypatch.setattr(IPython.display, "update_display", update_display)
    return calls


def updates(sent: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [message for kind, message in sent if kind == "update"]


async def test_outputs_follow_the_run_and_only_when_it_changed(
    delete_record: Action, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    run = await paused_delete(delete_record, reply="All gone.")
    run._ipython_display_()
    run._ipython_display_()  # shown twice: both snapshots share one id
    [(_, view), (_, first), (_, view_again), (_, second)] = sent
    assert view["data"][VIEW]["model_id"] == view_again["data"][VIEW]["model_id"]
    assert "display_id" not in view  # the live view is never sent again
    assert "text/html" not in view["data"]
    assert view["data"]["text/plain"] == ""
    assert first["display_id"] == second["display_id"]
    assert first["display_id"].startswith(f"pausepoint-{run.id}-")
    assert VIEW not in first["data"]
    assert "Waiting for your answer" in first["data"]["text/html"]
    assert "pausepoint-snapshot-beside-view" in first["data"]["text/html"]
    assert "waiting on" in first["data"]["text/plain"]

    _display._DISPLAYED.refresh()  # a cell ends, nothing changed
    assert len(sent) == 4

    await run.resume({"approved": True})  # the run stops: its snapshot follows at once
    [update] = updates(sent)
    _display._DISPLAYED.refresh()
    _display._DISPLAYED.refresh()

    # The cell ends: sent once more (nbclient drops an update sent from outside the
    # running cell), then nothing new to send.
    assert len(updates(sent)) == 2
    assert updates(sent)[1]["data"] == update["data"]
    assert update["display_id"] == first["display_id"]
    assert "All gone." in update["data"]["text/html"]
    assert "Waiting for your answer" not in update["data"]["text/html"]
    assert VIEW not in update["data"]  # updating the snapshot never redraws the view


async def test_a_run_that_pauses_after_its_cell_ended_updates_its_snapshot(
    delete_record: Action, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    """The quickstart's flow: `agent.start(...)` in one cell, `run` in the next; the run
    pauses later, with no cell running, and is answered from the view."""
    model = ScriptedModel([call("delete_record", id=7), "Record 7 is gone."])
    run = Agent(model=model, actions=[delete_record]).start("Delete record 7")
    run._ipython_display_()
    [_, (_, shown)] = sent
    assert "Waiting for your answer" not in shown["data"]["text/html"]

    await run.wait()
    [paused] = updates(sent)
    assert "Waiting for your answer" in paused["data"]["text/html"]
    assert "delete_record" in paused["data"]["text/html"]

    await run.resume(True)
    await run.wait()
    [_, done] = updates(sent)
    assert "Completed" in done["data"]["text/html"]
    assert "Record 7 is gone." in done["data"]["text/html"]


@pytest.mark.parametrize("ending", ["completed", "failed", "cancelled"])
async def test_every_way_a_run_stops_updates_its_snapshot(
    delete_record: Action, sent: list[tuple[str, dict[str, Any]]], ending: str
) -> None:
    gate = asyncio.Event()
    replies: dict[str, Any] = {
        "completed": ["Nothing to do."],
        "failed": [],  # the scripted model runs out of replies: the run fails
        "cancelled": [call("slow")],
    }

    from pausepoint import action

    @action
    async def slow() -> str:
        """Wait for the test."""
        await gate.wait()
        return "done"

    agent = Agent(model=ScriptedModel(replies[ending]), actions=[delete_record, slow])
    run = agent.start("Go")
    run._ipython_display_()
    if ending == "cancelled":
        await asyncio.sleep(0.05)
        await run.cancel()
    await run.wait()

    assert run.status == ending
    last = updates(sent)[-1]["data"]["text/html"]
    assert {"completed": "Completed", "failed": "Failed", "cancelled": "Stopped"}[ending] in last


def test_a_run_on_another_threads_loop_updates_its_snapshot_from_there(
    delete_record: Action, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    model = ScriptedModel([call("delete_record", id=7), "Gone."])
    run = Agent(model=model, actions=[delete_record]).new_run("Delete record 7")
    run._ipython_display_()
    worker: list[int] = []

    def on_its_own_loop() -> None:
        worker.append(threading.get_ident())
        asyncio.run(run.run())

    thread = threading.Thread(target=on_its_own_loop)
    thread.start()
    thread.join(30)

    [paused] = updates(sent)
    assert paused["thread"] == worker[0]
    assert "Waiting for your answer" in paused["data"]["text/html"]


async def test_a_run_answered_from_code_updates_its_snapshot_at_most_once_an_interval(
    sent: list[tuple[str, dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each pause would be some 40 KB of HTML the page draws again: a burst of pauses
    sends the first at once and the last at the end of the interval; the end at once."""
    monkeypatch.setattr(_display, "SNAPSHOT_INTERVAL", 0.3)
    from pausepoint import ActionContext, ActionInterrupt, action

    @action
    async def confirm(n: int, ctx: ActionContext) -> int:
        """Ask before returning n."""
        if ctx.resumption is None:
            raise ActionInterrupt(f"Act on {n}?", {"n": n})
        return n

    pauses = 20
    replies: list[Any] = [call("confirm", n=n) for n in range(pauses)]
    agent = Agent(model=ScriptedModel([*replies, "All confirmed."]), actions=[confirm])
    run = agent.new_run("Go")
    run._ipython_display_()
    result = await run.run()
    while result.status == "interrupted":
        result = await run.resume(True)
        if len(result.pending) == 1 and result.pending[0].interrupt.message == "Act on 9?":
            await until(lambda: len(updates(sent)) == 2)  # the burst's last pause, later
            [first, later] = updates(sent)
            assert "Act on 0?" in first["data"]["text/html"]
            assert "Act on 9?" in later["data"]["text/html"]
            monkeypatch.setattr(_display, "SNAPSHOT_INTERVAL", 60.0)  # the rest: held back
    # The first pause, the one held back, and the end, which does not wait for the
    # update held back since.
    assert len(updates(sent)) == 3
    assert "All confirmed." in updates(sent)[-1]["data"]["text/html"]
    assert "Completed" in updates(sent)[-1]["data"]["text/html"]
