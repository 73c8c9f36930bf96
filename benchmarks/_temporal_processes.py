"""What bench_temporal.py runs beside itself (its Temporal dev server is pausepoint's
`DevServer`): worker processes of either kind, `python -m pausepoint.worker` and
`python -m pausepoint.temporal.worker`, serving the agents of temporal_agents.py."""

from __future__ import annotations

import asyncio
import os
import signal
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
