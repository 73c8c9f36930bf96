"""What bench_batch.py's two sides share: the batch (R runs of K steps, one tool call per
model turn, one call asking for an approval), the worker processes the parent drives over
their stdin and stdout, and the figures of one round.

A worker process says `{"ready": ...}` once it is set up, then answers the words the
parent writes on its stdin, one JSON line each: `phase1` (take runs until each waits for
its approval), `phase2` (carry approved runs on; `{"started": ...}` once it watches for
approvals) and `stop` (its figures: when each approved action ran, what it counted, its
CPU time).
"""

from __future__ import annotations

import asyncio
import json
import math
import statistics
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Reply = dict[str, Any]


@dataclass(frozen=True)
class Batch:
    """R runs of K steps; step `approve_at` (the middle one) asks for an approval."""

    runs: int
    steps: int

    @property
    def approve_at(self) -> int:
        return (self.steps + 1) // 2

    def run_ids(self) -> list[str]:
        return [f"run-{n:05d}" for n in range(self.runs)]

    def argv(self) -> list[str]:
        return ["--runs", str(self.runs), "--steps", str(self.steps)]


@dataclass
class Round:
    """The figures of one side at one number of worker processes."""

    side: str
    workers: int
    batch: Batch
    phase1: float
    """Seconds from the first run created to every run waiting for its approval."""
    approving: float
    """Seconds the parent took to give every approval."""
    phase2: float
    """Seconds from the first approval given to every run completed."""
    wall: float
    """Seconds from the first run created to every run completed."""
    completed: int
    latencies: list[float] = field(default_factory=list)
    """Seconds from each approval committed to its action running."""
    commits: int | None = None
    fsyncs: int | None = None
    cpu: float | None = None
    """CPU seconds the worker processes spent from phase 1 on (the server's not counted)."""
    note: str = ""

    @property
    def steps(self) -> int:
        return self.batch.runs * self.batch.steps

    @property
    def busy(self) -> float:
        return self.phase1 + self.phase2

    @property
    def runs_per_s(self) -> float:
        return self.completed / self.busy

    @property
    def steps_per_s(self) -> float:
        return self.completed * self.batch.steps / self.busy

    def per_step(self, count: int | None) -> float | None:
        return None if count is None else count / self.steps

    def latency(self, quantile: float) -> float:
        return percentile(self.latencies, quantile)

    def as_json(self) -> Reply:
        return {
            "side": self.side,
            "workers": self.workers,
            "runs": self.batch.runs,
            "steps": self.batch.steps,
            "phase1": self.phase1,
            "approving": self.approving,
            "phase2": self.phase2,
            "wall": self.wall,
            "completed": self.completed,
            "latencies": self.latencies,
            "commits": self.commits,
            "fsyncs": self.fsyncs,
            "cpu": self.cpu,
            "note": self.note,
        }

    @classmethod
    def from_json(cls, data: Reply) -> Round:
        batch = Batch(runs=data.pop("runs"), steps=data.pop("steps"))
        return cls(batch=batch, **data)


def percentile(values: Sequence[float], quantile: float) -> float:
    """The nearest-rank percentile (NaN for no values)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(quantile * len(ordered)))
    return ordered[rank - 1]


def latencies(approved: dict[str, float], acted: dict[str, float]) -> list[float]:
    """Seconds from each run's approval to its action, for the runs whose action ran."""
    return [acted[run] - approved[run] for run in approved if run in acted]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


class WorkerProcess:
    """A worker process of this benchmark, driven over its stdin and stdout."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def send(self, word: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(word + "\n")
        self.process.stdin.flush()

    def reply(self) -> Reply:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a worker process exited ({self.process.wait()}): see above")
        reply: Reply = json.loads(line)
        return reply

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def replies(workers: Sequence[WorkerProcess], word: str | None = None) -> list[Reply]:
    """Sends `word` to every worker (if given), then reads one reply from each."""
    if word is not None:
        for worker in workers:
            worker.send(word)
    return [worker.reply() for worker in workers]


def say(reply: Reply) -> None:
    """A worker's reply to the parent (its stdout carries nothing else)."""
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


async def read_word() -> str:
    """The next word the parent wrote ("" when it closed the pipe)."""
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return line.strip()


async def serve(
    phase1: Callable[[], Awaitable[Reply]],
    phase2: Callable[[], Awaitable[Reply]],
    stop: Callable[[], Awaitable[Reply]],
) -> None:
    """A worker process's main loop: answers the parent's words until it says stop."""
    say({"ready": True})
    handlers = {"phase1": phase1, "phase2": phase2}
    while word := await read_word():
        if word == "stop":
            say(await stop())
            return
        say(await handlers[word]())
