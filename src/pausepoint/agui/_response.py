"""The streaming response of one AG-UI request: its events as SSE, each write bounded in
time, so a client that stops reading cannot hold the stream (and its run) open.

Imported by `app()` only: it needs Starlette.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import StreamingResponse
from starlette.types import Message, Send

from ._encode import CONTENT_TYPE

__all__ = ["EventStreamResponse"]

logger = logging.getLogger("pausepoint")


class _Stalled(Exception):
    pass


class EventStreamResponse(StreamingResponse):
    """SSE chunks from `chunks`; a write the client leaves untaken for `send_timeout`
    seconds ends the response, and closing `chunks` stops the run behind it."""

    def __init__(self, chunks: AsyncIterator[str], *, send_timeout: float) -> None:
        super().__init__(
            chunks,
            media_type=CONTENT_TYPE,
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self._chunks = chunks
        self._send_timeout = send_timeout

    async def stream_response(self, send: Send) -> None:
        async def bounded(message: Message) -> None:
            try:
                await asyncio.wait_for(send(message), self._send_timeout)
            except TimeoutError:
                raise _Stalled from None

        try:
            await super().stream_response(bounded)
        except _Stalled:
            logger.warning(
                "An AG-UI client took no data for %.0f s; its stream was closed "
                "(Limits(send_timeout=...))",
                self._send_timeout,
            )
        finally:
            close: Any = getattr(self._chunks, "aclose", None)
            if close is not None:
                await close()
