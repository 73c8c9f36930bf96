"""RemoteRun against servers that send too much or nothing: each bound of `RemoteLimits`
closes the stream, ends the run `failed` with a `RemoteLimitError` naming the field to
raise, and keeps what arrived before; the server sees the client leave."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from pausepoint import UsageError
from pausepoint.agui import RemoteLimits, RemoteRun
from pausepoint.errors import RemoteLimitError
from pausepoint.run import FailedEvent
from pausepoint.transcript import AssistantMessage, UserMessage

from .canned import Canned, serving, stream

KiB = 1024
MiB = 1024 * KiB
Frames = Callable[[dict[str, Any]], AsyncIterator[bytes]]


class Hostile:
    """A server whose answer is written by `frames`; counts the bytes it managed to send
    and notes when the client left."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        self.sent = 0
        self.left = threading.Event()

    def app(self) -> Starlette:
        async def endpoint(request: Request) -> StreamingResponse:
            body = await request.json()
            return StreamingResponse(self._counted(body), media_type="text/event-stream")

        return Starlette(routes=[Route("/", endpoint, methods=["POST"])])

    async def _counted(self, body: dict[str, Any]) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.frames(body):
                self.sent += len(chunk)
                yield chunk
                await asyncio.sleep(0)  # let the server hear the client leave
        except asyncio.CancelledError:
            self.left.set()
            raise
        finally:
            self.left.set()


def started(body: dict[str, Any]) -> bytes:
    return b'data: {"type": "RUN_STARTED", "threadId": "%s", "runId": "%s"}\n\n' % (
        body["threadId"].encode(),
        body["runId"].encode(),
    )


def delta(text: str) -> bytes:
    return b'data: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "%s"}\n\n' % (
        text.encode()
    )


def run_with(
    frames: Frames, limits: RemoteLimits
) -> tuple[RemoteRun, Any, list[FailedEvent], Hostile]:
    server = Hostile(frames)
    with serving(server.app()) as url:
        remote = RemoteRun(url, limits=limits)
        failed: list[FailedEvent] = []
        remote.on("failed", failed.append)
        result = remote.run_sync("Hi")
        assert server.left.wait(10)  # the client closed the stream: the server saw it go
    return remote, result, failed, server


def refused_by(result: Any, failed: list[FailedEvent], limit: str) -> RemoteLimitError:
    assert result.status == "failed"
    assert result.error.name == "RemoteLimitError"
    assert f"RemoteLimits({limit}=...)" in result.error.message
    (event,) = failed
    assert isinstance(event.exception, RemoteLimitError)
    assert event.exception.limit == limit
    return event.exception


def test_an_event_past_max_event_bytes_is_refused_before_the_rest_is_read() -> None:
    async def one_endless_event(body: dict[str, Any]) -> AsyncIterator[bytes]:
        yield started(body)
        yield b'data: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "'
        while True:  # one event that never ends
            yield b"x" * (64 * KiB)

    remote, result, failed, server = run_with(
        one_endless_event, RemoteLimits(max_event_bytes=1 * MiB)
    )

    error = refused_by(result, failed, "max_event_bytes")
    assert error.value == 1 * MiB
    assert "more than 1 MiB (RemoteLimits.max_event_bytes = 1,048,576)" in str(error)
    assert server.sent < 16 * MiB  # read no further than the bound and what was in flight
    assert remote.prompt.items == [UserMessage(text="Hi")]
    assert remote.status == "failed"


def test_an_answer_past_max_stream_bytes_is_cut() -> None:
    async def endless_text(body: dict[str, Any]) -> AsyncIterator[bytes]:
        yield started(body)
        yield b'data: {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}\n\n'
        word = "w" * 1000
        while True:
            yield delta(word)

    remote, result, failed, server = run_with(endless_text, RemoteLimits(max_stream_bytes=2 * MiB))

    refused_by(result, failed, "max_stream_bytes")
    assert server.sent < 32 * MiB
    # What arrived before the cut is kept, as when any stream is cut.
    assert remote.events[0]["type"] == "RUN_STARTED"


def test_more_events_than_max_events_is_cut_and_only_the_latest_are_kept() -> None:
    async def endless_tiny(body: dict[str, Any]) -> AsyncIterator[bytes]:
        yield started(body)
        while True:
            yield delta("a")

    remote, result, failed, _ = run_with(
        endless_tiny, RemoteLimits(max_events=5_000, keep_events=100)
    )

    error = refused_by(result, failed, "max_events")
    assert "more than 5,000 events" in str(error)
    assert len(remote.events) == 100


def test_the_latest_keep_events_are_kept_and_the_transcript_keeps_all_they_said() -> None:
    words = [f"w{i} " for i in range(50)]
    events = [
        {"type": "RUN_STARTED"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": w} for w in words),
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED"},
    ]
    server = Canned(stream(*events))
    with serving(server.app()) as url:
        remote = RemoteRun(url, limits=RemoteLimits(keep_events=10))
        result = remote.run_sync("Hi")

    assert result.status == "completed"
    assert [e.get("delta") for e in remote.events[:8]] == [w for w in words[-8:]]
    assert [e["type"] for e in remote.events[-2:]] == ["TEXT_MESSAGE_END", "RUN_FINISHED"]
    assert len(remote.events) == 10
    assert remote.prompt.items[-1] == AssistantMessage(text="".join(words))


def test_a_server_that_sends_nothing_ends_the_run_after_idle_timeout() -> None:
    async def silent(body: dict[str, Any]) -> AsyncIterator[bytes]:
        yield started(body)
        await asyncio.Event().wait()  # nothing more, ever
        yield b""

    remote, result, failed, _ = run_with(silent, RemoteLimits(idle_timeout=0.5))

    error = refused_by(result, failed, "idle_timeout")
    assert "sent nothing for 0.5 s" in str(error)
    assert remote.events[0]["type"] == "RUN_STARTED"


def test_a_server_that_sends_comments_while_it_works_is_not_idle() -> None:
    async def slow_but_alive(body: dict[str, Any]) -> AsyncIterator[bytes]:
        yield started(body)
        for _ in range(8):  # longer in all than the idle timeout, never silent that long
            await asyncio.sleep(0.2)
            yield b": still working\n\n"
        yield b'data: {"type": "RUN_FINISHED"}\n\n'

    _, result, failed, _ = run_with(slow_but_alive, RemoteLimits(idle_timeout=1.0))

    assert (result.status, failed) == ("completed", [])


def test_remote_limits_are_positive_numbers_and_limits_must_be_remote_limits() -> None:
    with pytest.raises(UsageError, match=r"RemoteLimits\.max_events must be a positive"):
        RemoteLimits(max_events=0)
    with pytest.raises(UsageError, match=r"RemoteLimits\.idle_timeout"):
        RemoteLimits(idle_timeout=-1)
    with pytest.raises(UsageError, match="limits must be a RemoteLimits"):
        RemoteRun("http://127.0.0.1:1/", limits={"max_events": 10})  # type: ignore[arg-type]
