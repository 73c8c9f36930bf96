"""One AG-UI request of a `RemoteRun`: POST the input, read the SSE stream, hand on each
event until the run's last one; and how a failed request reads as a run's error."""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from ..errors import MissingDependencyError, RemoteLimitError
from ..transcript import ErrorInfo
from ._remote_limits import MiB, RemoteLimits, count_event
from ._sse import EventTooLarge, sse_data

__all__ = ["RemoteRefused", "failure", "follow"]

ENDINGS = ("RUN_FINISHED", "RUN_ERROR")


class RemoteRefused(Exception):
    """The server answered with an HTTP error status instead of a stream."""

    def __init__(self, status: int, body: str) -> None:
        self.status = status
        self.body = body
        super().__init__(f"The server answered HTTP {status}: {body or '(no body)'}")


class Connection:
    """One HTTP client per event loop, kept between requests, with TLS settings built once
    for the process rather than for every request. No connection is kept idle: a loop
    may end between two requests (blocking calls run one each), and a pooled connection
    would outlive it."""

    def __init__(self, connect_timeout: float | None, idle_timeout: float) -> None:
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop or self._loop.is_closed():
            httpx = _httpx()
            timeout = httpx.Timeout(self.connect_timeout, read=self.idle_timeout)
            limits = httpx.Limits(max_keepalive_connections=0)
            self._client = httpx.AsyncClient(timeout=timeout, verify=_tls(), limits=limits)
            self._loop = loop
        return self._client


@functools.cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


async def follow(
    connection: Connection,
    url: str,
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    hear: Callable[[dict[str, Any]], Awaitable[None]],
    limits: RemoteLimits,
) -> None:
    """POST `body` to `url` and pass each event of the answer to `hear`, up to RUN_FINISHED
    or RUN_ERROR. The connection's timeout bounds connecting and sending; the stream lasts
    as long as the run, within `limits` (each broken one raises `RemoteLimitError`).
    Frames that are not JSON objects are skipped."""
    sent = {"Accept": "text/event-stream", **headers}
    client = connection.client()
    try:
        async with client.stream("POST", url, json=body, headers=sent) as response:
            if response.status_code >= 400:
                text = await _head(response, 500)
                raise RemoteRefused(response.status_code, text)
            count = 0
            frames = sse_data(_counted(response, limits), max_event_bytes=limits.max_event_bytes)
            async for data in frames:
                try:
                    event = json.loads(data)
                except ValueError:
                    continue
                if not isinstance(event, dict):
                    continue
                count = count_event(count, limits, "The server")
                await hear(event)
                if event.get("type") in ENDINGS:
                    return
    except EventTooLarge:
        raise RemoteLimitError(
            "max_event_bytes",
            limits.max_event_bytes,
            f"The server sent an event of more than {_size(limits.max_event_bytes)}",
        ) from None
    except _httpx().ReadTimeout:
        raise RemoteLimitError(
            "idle_timeout",
            limits.idle_timeout,
            f"The server sent nothing for {limits.idle_timeout:g} s",
        ) from None


async def _counted(response: Any, limits: RemoteLimits) -> AsyncIterator[bytes]:
    """The answer's bytes as they arrive, up to `max_stream_bytes`."""
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > limits.max_stream_bytes:
            raise RemoteLimitError(
                "max_stream_bytes",
                limits.max_stream_bytes,
                f"The server's answer held more than {_size(limits.max_stream_bytes)}",
            )
        yield chunk


async def _head(response: Any, chars: int) -> str:
    """The start of an error answer's body, reading no more of it than that."""
    read = bytearray()
    async for chunk in response.aiter_bytes():
        read += chunk
        if len(read) >= chars * 4:
            break
    return read.decode("utf-8", "replace")[:chars]


def _size(limit: int) -> str:
    return f"{limit / MiB:g} MiB" if limit >= MiB else f"{limit:,} bytes"


def failure(exc: BaseException) -> ErrorInfo:
    """A failed request as the error of the run's result."""
    if isinstance(exc, RemoteRefused):
        return ErrorInfo(name=f"HTTP {exc.status}", message=str(exc))
    return ErrorInfo(
        name=type(exc).__name__, message=str(exc) or "The request to the server failed."
    )


def _httpx() -> Any:
    try:
        import httpx
    except ImportError:  # pragma: no cover - the agui extra installs it
        raise MissingDependencyError(
            "RemoteRun needs httpx: pip install 'pausepoint[agui]'."
        ) from None
    return httpx
