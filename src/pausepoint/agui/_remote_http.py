"""One AG-UI request of a `RemoteRun`: POST the input, read the SSE stream, hand on each
event until the run's last one; and how a failed request reads as a run's error."""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..errors import MissingDependencyError
from ..transcript import ErrorInfo
from ._sse import sse_data

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

    def __init__(self, connect_timeout: float | None) -> None:
        self.connect_timeout = connect_timeout
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop or self._loop.is_closed():
            httpx = _httpx()
            timeout = httpx.Timeout(self.connect_timeout, read=None)
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
) -> None:
    """POST `body` to `url` and pass each event of the answer to `hear`, up to RUN_FINISHED
    or RUN_ERROR. The connection's timeout bounds connecting and sending, not the stream,
    which lasts as long as the run. Frames that are not JSON objects are skipped."""
    sent = {"Accept": "text/event-stream", **headers}
    client = connection.client()
    async with client.stream("POST", url, json=body, headers=sent) as response:
        if response.status_code >= 400:
            text = (await response.aread()).decode("utf-8", "replace")
            raise RemoteRefused(response.status_code, text[:500])
        async for data in sse_data(response.aiter_lines()):
            try:
                event = json.loads(data)
            except ValueError:
                continue
            if isinstance(event, dict):
                await hear(event)
                if event.get("type") in ENDINGS:
                    return


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
