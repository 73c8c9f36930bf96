"""The view's Stop request: the run is cancelled on its own loop and the view says so."""

from __future__ import annotations

import asyncio

import pytest
from tests.helpers import until
from tests.widget.recording import RecordingComm, recording_of

from pausepoint import Agent, ScriptedModel, action, call


@pytest.mark.parametrize("from_thread", [False, True])
async def test_stop_from_the_view_cancels_the_run_and_the_view_shows_cancelled(
    comms: list[RecordingComm], from_thread: bool
) -> None:
    entered = asyncio.Event()
    never = asyncio.Event()

    @action
    async def slow() -> str:
        """Take forever."""
        entered.set()
        await never.wait()
        return "never"

    run = Agent(model=ScriptedModel([call("slow"), "done"]), actions=[slow]).new_run("x")
    recording = recording_of(run)
    run.start()
    await entered.wait()
    assert run.view.status == "running"
    message = {"type": "cancel", "requestId": "s1"}

    if from_thread:
        await asyncio.to_thread(recording.browser_send, message)
    else:
        recording.browser_send(message)

    (response,) = await until(lambda: recording.custom("response"))
    assert response == {"type": "response", "requestId": "s1", "ok": True}
    assert run.view.status == "cancelled"
    assert run.result is not None
    assert run.result.status == "cancelled"
    record = next(run.prompt.tool_calls())
    assert record.status == "cancelled"
    assert run.view.items[-1]["status"] == "cancelled"
    assert record.cancellation is not None
    assert record.cancellation.reason == "Stopped from the view."


async def test_stop_when_nothing_runs_answers_ok_and_changes_nothing(
    comms: list[RecordingComm],
) -> None:
    run = Agent(model=ScriptedModel(["hi"])).new_run("x")
    await run.run()
    recording = recording_of(run)
    before = run.prompt.model_dump_json()

    recording.browser_send({"type": "cancel", "requestId": "s2"})

    (response,) = await until(lambda: recording.custom("response"))
    assert response["ok"] is True
    assert run.view.status == "completed"
    assert run.prompt.model_dump_json() == before
