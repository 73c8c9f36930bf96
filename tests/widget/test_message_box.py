"""The message box: the next message of a conversation, and Continue after a stop."""

from __future__ import annotations

import asyncio

from tests.helpers import until
from tests.widget.recording import RecordingComm, recording_of

from pausepoint import Agent, ModelRequest, ScriptedModel, action, call
from pausepoint.transcript import AssistantMessage, UserMessage


def chatty() -> Agent:
    def reply(request: ModelRequest) -> str:
        said = [item.text for item in request.items if isinstance(item, UserMessage)]
        return f"You said: {said[-1]}"

    return Agent(model=ScriptedModel(reply))


async def test_a_message_from_the_box_continues_a_completed_run_with_a_new_turn(
    comms: list[RecordingComm],
) -> None:
    run = chatty().new_run("Hello")
    await run.run()
    recording = recording_of(run)

    recording.browser_send({"type": "say", "requestId": "m1", "text": "And goodbye."})

    [response] = await until(lambda: recording.custom("response"))
    assert response == {"type": "response", "requestId": "m1", "ok": True}
    await until(lambda: run.prompt.output == "You said: And goodbye.")
    users = [item.text for item in run.prompt.items if isinstance(item, UserMessage)]
    assert users == ["Hello", "And goodbye."]
    assert run.status == "completed"


async def test_an_empty_message_is_refused_and_nothing_is_added(
    comms: list[RecordingComm],
) -> None:
    run = chatty().new_run("Hello")
    await run.run()
    recording = recording_of(run)
    before = run.prompt.model_dump_json()

    recording.browser_send({"type": "say", "requestId": "m1", "text": "   "})

    [response] = await until(lambda: recording.custom("response"))
    assert response["ok"] is False
    assert response["error"]["code"] == "bad-request"
    assert run.prompt.model_dump_json() == before


async def test_a_message_while_a_card_waits_is_refused_with_what_to_do(
    comms: list[RecordingComm],
) -> None:
    @action(needs_approval=True)
    def wipe() -> str:
        """Wipe it."""
        return "wiped"

    run = Agent(model=ScriptedModel([call("wipe"), "ok"]), actions=[wipe]).new_run("go")
    await run.run()
    recording = recording_of(run)
    before = run.prompt.model_dump_json()

    recording.browser_send({"type": "say", "requestId": "m1", "text": "hurry up"})

    [response] = await until(lambda: recording.custom("response"))
    assert response["ok"] is False
    assert response["error"]["name"] == "RunSuspendedError"
    assert run.prompt.model_dump_json() == before


async def test_continue_goes_on_after_a_stop(comms: list[RecordingComm]) -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    @action
    async def slow() -> str:
        """Take a while."""
        started.set()
        await release.wait()
        return "done"

    run = Agent(model=ScriptedModel([call("slow"), "Finished."]), actions=[slow]).new_run("go")
    run.start()
    await started.wait()
    await run.cancel()
    assert run.status == "cancelled"
    release.set()
    recording = recording_of(run)

    recording.browser_send({"type": "say", "requestId": "c1", "text": None})

    [response] = await until(lambda: recording.custom("response"))
    assert response["ok"] is True
    await until(lambda: run.status == "completed")
    assert run.prompt.output == "Finished."


async def test_retry_from_the_view_sets_the_stopped_turn_aside_and_shows_it(
    comms: list[RecordingComm],
) -> None:
    started = asyncio.Event()

    @action
    async def slow() -> str:
        """Take a while."""
        started.set()
        await asyncio.Event().wait()
        return "done"

    run = Agent(model=ScriptedModel([call("slow"), "Finished."]), actions=[slow]).new_run("go")
    run.start()
    await started.wait()
    await run.cancel()
    recording = recording_of(run)

    recording.browser_send({"type": "retry", "requestId": "r1"})

    [response] = await until(lambda: recording.custom("response"))
    assert response == {"type": "response", "requestId": "r1", "ok": True}
    await until(lambda: run.status == "completed")
    assert run.prompt.output == "Finished."
    turn = run.prompt.items[1]
    assert isinstance(turn, AssistantMessage)
    assert turn.set_aside is not None
    assert turn.set_aside.by == "view"
    # The front end learns of it: the turn is sent again, marked.
    sent = [m for m in recording.custom("items") if m["start"] <= 1 < m["start"] + len(m["items"])]
    assert sent
    assert sent[0]["items"][1 - sent[0]["start"]]["set_aside"]["by"] == "view"
