"""AG-UI events as Server-Sent Events text, for an HTTP handler to send as they come."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent, MessagesSnapshotEvent, RunErrorEvent
from ag_ui.encoder import EventEncoder

__all__ = ["CONTENT_TYPE", "coalesce", "encode"]

logger = logging.getLogger("pausepoint")

CONTENT_TYPE = EventEncoder().get_content_type()
"""The media type of `encode`'s output (``text/event-stream``)."""


async def encode(events: AsyncIterable[BaseEvent]) -> AsyncIterator[str]:
    """Each event as one SSE frame (``data: {...camelCase JSON...}`` and a blank line),
    written by `ag_ui`'s own `EventEncoder`::

        body = encode(events(run, "Refund order 42"))   # a streaming response's body

    An event that cannot be written ends the stream with a RUN_ERROR `internal-error`
    frame (and closes `events`), so a stream is never cut without an ending.
    """
    encoder = EventEncoder()
    try:
        async for event in events:
            try:
                if isinstance(event, MessagesSnapshotEvent) and _plain(event):
                    frame = _snapshot_frame(event)
                else:
                    frame = encoder.encode(event)
            except Exception:
                logger.exception("An AG-UI %s event could not be written", event.type)
                yield encoder.encode(
                    RunErrorEvent(
                        code="internal-error",
                        message="The server could not write an event of this stream; "
                        "its log says why.",
                    )
                )
                return
            yield frame
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()


def _plain(event: MessagesSnapshotEvent) -> bool:
    return event.timestamp is None and event.raw_event is None


def _snapshot_frame(event: MessagesSnapshotEvent) -> str:
    """The frame of a snapshot of the whole conversation (one at each pause of a long
    run), from each message's JSON written once: the same text the encoder writes."""
    parts = ",".join(_message_json(message) for message in event.messages)
    return f'data: {{"type":"MESSAGES_SNAPSHOT","messages":[{parts}]}}\n\n'


_WRITTEN: dict[int, tuple[Any, str]] = {}
_WRITTEN_MAX = 100_000


def _message_json(message: Any) -> str:
    kept = _WRITTEN.get(id(message))
    if kept is not None and kept[0] is message:
        return kept[1]
    text = message.model_dump_json(by_alias=True, exclude_none=True)
    _WRITTEN[id(message)] = (message, text)
    if len(_WRITTEN) > _WRITTEN_MAX:
        del _WRITTEN[next(iter(_WRITTEN))]
    return str(text)


_END = object()


async def coalesce(
    frames: AsyncIterable[str], *, max_buffered: int | None = None
) -> AsyncIterator[str]:
    """`frames` joined into as few chunks as keep them timely: whatever is ready when the
    response asks for more goes out as one write. A step makes several events at once (a
    message, its calls, a result); one write each would cost the server more than the
    events themselves. Closing this closes `frames` (a stream the client left).

    With `max_buffered`, no more than about that many characters of frames are read ahead
    of what the response took: past it, `frames` is not asked for more until the client
    takes the next write, so a stream the client reads slowly slows its own run (see
    `events(..., max_queued=...)`) instead of growing in memory."""
    ready: asyncio.Queue[object] = asyncio.Queue()
    held = 0  # characters in `ready`
    room = asyncio.Event()

    async def read() -> None:
        nonlocal held
        each = aiter(frames)
        try:
            async for frame in each:
                ready.put_nowait(frame)
                held += len(frame)
                while max_buffered is not None and held > max_buffered:
                    room.clear()
                    await room.wait()
        finally:
            close = getattr(each, "aclose", None)
            if close is not None:
                await close()  # the run stops now, not when the stream is collected
            ready.put_nowait(_END)

    reader = asyncio.ensure_future(read())
    try:
        while True:
            first = await ready.get()
            if first is _END:
                break
            chunk = [str(first)]
            ended = False
            while not ready.empty():
                more = ready.get_nowait()
                if more is _END:
                    ended = True
                    break
                chunk.append(str(more))
            text = "".join(chunk)
            held -= len(text)
            room.set()
            yield text
            if ended:
                break
        await reader  # its error, if it failed, is the stream's
    finally:
        if not reader.done():
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
