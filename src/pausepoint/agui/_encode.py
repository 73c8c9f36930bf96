"""AG-UI events as Server-Sent Events text, for an HTTP handler to send as they come."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder

__all__ = ["CONTENT_TYPE", "encode"]

CONTENT_TYPE = EventEncoder().get_content_type()
"""The media type of `encode`'s output (``text/event-stream``)."""


async def encode(events: AsyncIterable[BaseEvent]) -> AsyncIterator[str]:
    """Each event as one SSE frame (``data: {...camelCase JSON...}`` and a blank line),
    written by `ag_ui`'s own `EventEncoder`::

        body = encode(events(run, "Refund order 42"))   # a streaming response's body
    """
    encoder = EventEncoder()
    async for event in events:
        yield encoder.encode(event)
