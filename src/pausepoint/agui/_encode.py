"""AG-UI events as Server-Sent Events text, for an HTTP handler to send as they come."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent, MessagesSnapshotEvent
from ag_ui.encoder import EventEncoder

__all__ = ["CONTENT_TYPE", "coalesce", "encode"]

CONTENT_TYPE = EventEncoder().get_content_type()
"""The media type of `encode`'s output (``text/event-stream``)."""


async def encode(events: AsyncIterable[BaseEvent]) -> AsyncIterator[str]:
    """Each event as one SSE frame (``data: {...camelCase JSON...}`` and a blank line),
    written by `ag_ui`'s own `EventEncoder`::

        body = encode(events(run, "Refund order 42"))   # a streaming response's body
    """
    encoder = EventEncoder()
    async for event in events:
        if isinstance(event, MessagesSnapshotEvent) and _plain(event):
            yield _snapshot_frame(event)
        else:
            yield encoder.encode(event)


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


async def coalesce(frames: AsyncIterable[str]) -> AsyncIterator[str]:
    """`frames` joined into as few chunks as keep them timely: whatever is ready when the
    response asks for more goes out as one write. A step makes several events at once (a
    message, its calls, a result); one write each would cost the server more than the
    events themselves. Closing this closes `frames` (a stream the client left)."""
    ready: asyncio.Queue[object] = asyncio.Queue()

    async def read() -> None:
        try:
            async for frame in frames:
                ready.put_nowait(frame)
        finally:
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
            yield "".join(chunk)
            if ended:
                break
        await reader  # its error, if it failed, is the stream's
    finally:
        if not reader.done():
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
