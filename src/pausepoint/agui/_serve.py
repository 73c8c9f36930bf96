"""`serve(agent)`: an AG-UI endpoint running in the background of this process, for a
notebook (or a test) that serves an agent and talks to it, or to another framework's app."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any

from ..errors import MissingDependencyError, ServerStartError, UsageError
from ..run import Agent

__all__ = ["Serving", "serve"]

START_TIMEOUT = 30.0
"""Seconds a server may take to start before `serve` gives up (a busy machine's budget)."""


class Serving:
    """An ASGI app served by uvicorn from a thread of this process, until `stop()` (or the
    end of a `with` block). `url` is its address."""

    def __init__(self, asgi: Any, host: str, port: int) -> None:
        try:
            import uvicorn
        except ImportError as exc:
            raise MissingDependencyError(
                "Serving needs uvicorn: pip install 'pausepoint[agui]'."
            ) from exc
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
        except OSError as exc:
            self._socket.close()
            raise ServerStartError(f"Cannot serve on {host}:{port}: {exc}.") from None
        bound = self._socket.getsockname()[1]
        self.url = f"http://{host}:{bound}/"
        config = uvicorn.Config(asgi, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name=f"pausepoint serve {self.url}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ServerStartError(f"The server at {self.url} did not start.")
            time.sleep(0.01)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """Stop serving: requests in flight are ended, the port is freed."""
        self._server.should_exit = True
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(START_TIMEOUT)
        self._socket.close()

    def __enter__(self) -> Serving:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<Serving {self.url} {'running' if self.running else 'stopped'}>"


def serve(
    target: Agent | Any, *, host: str = "127.0.0.1", port: int = 0, **options: Any
) -> Serving:
    """Serve an agent (through `app(agent, **options)`) or any ASGI app (another
    framework's AG-UI endpoint) from a background thread, on `port` (0: a free one)::

        server = serve(agent)
        remote = RemoteRun(server.url)
        ...
        server.stop()

    Meant for notebooks and tests; a deployment runs `python -m pausepoint.agui` or its
    own ASGI server instead.
    """
    if isinstance(target, Agent):
        from ._server import app, hosts_for

        options.setdefault("allowed_hosts", hosts_for(host))
        target = app(target, **options)
    elif options:
        raise UsageError(f"Options {sorted(options)} are app() options: pass an Agent with them.")
    elif not callable(target):
        raise UsageError(f"serve() takes an Agent or an ASGI app, not {type(target).__name__}.")
    return Serving(target, host, port)
