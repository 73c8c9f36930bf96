"""A remote run in the view: answered, spoken to and stopped from the front end as a local
run is, each through a request to the AG-UI server."""

from __future__ import annotations

from tests.agui.canned import Canned, serving, stream
from tests.agui.test_remote import DONE, START, approval_then_done, text
from tests.helpers import until
from tests.widget.recording import RecordingComm, recording_of

from pausepoint.agui import RemoteRun


async def test_a_card_answered_in_the_view_posts_the_continuation_and_shows_the_rest(
    comms: list[RecordingComm],
) -> None:
    interrupt, server = approval_then_done()
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        await remote.run("Refund order 42")
        recording = recording_of(remote)
        view = remote.view
        assert view.meta["remote"] == url
        assert [(c["id"], c["canResolve"]) for c in view.pending] == [(interrupt["id"], True)]

        recording.browser_send(
            {"type": "resume", "requestId": "a1", "interrupt": interrupt["id"], "data": True}
        )
        [response] = await until(lambda: recording.custom("response"))
        assert response == {"type": "response", "requestId": "a1", "ok": True}
        await until(lambda: remote.status == "completed")

    assert server.bodies[1]["resume"] == [
        {"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}
    ]
    record = remote.prompt.items[2]
    assert record.interrupts[0].resolution.by == "view"  # type: ignore[union-attr]
    await until(lambda: view.status == "completed" and view.pending == [])
    await until(lambda: len(view.items) == len(remote.prompt.items))
    assert view.items[-1]["text"] == "Refunded order 42."


async def test_the_message_box_sends_the_next_message_to_the_server(
    comms: list[RecordingComm],
) -> None:
    server = Canned(stream(START, *text("m1", "Hello."), DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        await remote.run("Hi")
        recording = recording_of(remote)
        recording.browser_send({"type": "say", "requestId": "m1", "text": "And goodbye."})
        [response] = await until(lambda: recording.custom("response"))
        assert response["ok"] is True
        await until(lambda: len(server.bodies) == 2 and remote.status == "completed")

    assert server.bodies[1]["messages"][-1]["content"] == "And goodbye."
    assert [m["role"] for m in server.bodies[1]["messages"]] == ["user", "assistant", "user"]


async def test_stop_in_the_view_closes_the_stream(comms: list[RecordingComm]) -> None:
    server = Canned(stream(START, *text("m1", *(f"w{i} " for i in range(500))), DONE), pause=0.02)
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        remote.start("Write a lot")
        recording = recording_of(remote)
        await until(lambda: len(remote.events) > 3)
        recording.browser_send({"type": "cancel", "requestId": "s1"})
        await until(lambda: remote.status == "cancelled")
        assert server.closed_early.wait(5)

    await until(lambda: remote.view.status == "cancelled")
    assert remote.result is not None
    assert remote.result.error is not None
    assert remote.result.error.message == "Stopped from the view."
