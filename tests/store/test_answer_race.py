"""Two kernels answer the same interrupt of one stored run at the same moment.

Each has its own `AgentRun` over its own connection to one SQLite file. Exactly one
answer is recorded and runs the action; the other is told the interrupt was answered
(`InterruptAlreadyResolvedError`), never that the run is busy. A lease whose holder has
stopped says when it expires and what to do.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pausepoint import Agent, AgentRun, ScriptedModel, action, call
from pausepoint.errors import InterruptAlreadyResolvedError, RunBusyError
from pausepoint.run import DEFAULT_LEASE_TTL
from pausepoint.store import SQLiteStore

ROUNDS = 12


def racing_agent(log: str) -> Agent:
    @action(needs_approval=True)
    def delete_record(id: int) -> str:
        """Delete a record."""
        with open(log, "a") as out:
            out.write(f"{os.getpid()} {threading.get_ident()}\n")
        time.sleep(random.uniform(0, 0.02))  # both orders of the race happen
        return f"deleted {id}"

    return Agent(
        model=ScriptedModel([call("delete_record", id=7), "Gone."]), actions=[delete_record]
    )


def paused_run(path: Path, log: str) -> str:
    with SQLiteStore(path) as store:
        run = racing_agent(log).new_run("Delete record 7", store=store)
        assert asyncio.run(run.run()).status == "interrupted"
        return run.id


def answer(path: str, run_id: str, log: str, start: Any) -> str:
    """Load the run on a connection of its own, wait for the other side, then answer."""
    with SQLiteStore(path) as store:
        run = AgentRun.load(store, run_id, racing_agent(log))
        start.wait()
        try:
            return asyncio.run(run.resume(True)).status
        except InterruptAlreadyResolvedError:
            return "already resolved"
        except Exception as exc:
            return repr(exc)


def _answer_rounds_in_process(rounds: list[tuple[str, str, str]], start: Any, results: Any) -> None:
    """One racer: answer each round's run as soon as the other racer is ready too."""
    for number, (path, run_id, log) in enumerate(rounds):
        results.put((number, answer(path, run_id, log, start)))


def _answer_in_thread(path: str, run_id: str, log: str, start: Any, results: list[str]) -> None:
    results.append(answer(path, run_id, log, start))


def executions(log: str) -> int:
    return len(Path(log).read_text().splitlines()) if Path(log).exists() else 0


def test_two_processes_answering_one_interrupt_one_wins_and_the_other_is_told_so(
    tmp_path: Path,
) -> None:
    context = multiprocessing.get_context("forkserver")  # no threads of the test process copied
    rounds = []
    for round in range(ROUNDS):
        path, log = tmp_path / f"runs-{round}.db", str(tmp_path / f"actions-{round}.log")
        rounds.append((str(path), paused_run(path, log), log))
    # Two processes race every round: a round starts when both have loaded its run.
    start, results = context.Barrier(2), context.Queue()
    racers = [
        context.Process(target=_answer_rounds_in_process, args=(rounds, start, results))
        for _ in range(2)
    ]
    for racer in racers:
        racer.start()
    outcomes: dict[int, list[str]] = {round: [] for round in range(ROUNDS)}
    for _ in range(2 * ROUNDS):
        round, outcome = results.get(timeout=60)
        outcomes[round].append(outcome)
    for racer in racers:
        racer.join(timeout=60)

    for round, (path, run_id, log) in enumerate(rounds):
        assert sorted(outcomes[round]) == ["already resolved", "completed"], f"round {round}"
        assert executions(log) == 1
        with SQLiteStore(path) as store:
            assert store.summary(run_id).status == "completed"


def test_two_threads_answering_one_interrupt_one_wins_and_the_other_is_told_so(
    tmp_path: Path,
) -> None:
    for round in range(ROUNDS):
        path, log = tmp_path / f"runs-{round}.db", str(tmp_path / f"actions-{round}.log")
        run_id = paused_run(path, log)
        start = threading.Barrier(2)
        outcomes: list[str] = []
        threads = [
            threading.Thread(
                target=_answer_in_thread, args=(str(path), run_id, log, start, outcomes)
            )
            for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        assert sorted(outcomes) == ["already resolved", "completed"], f"round {round}"
        assert executions(log) == 1


def dead_pid() -> int:
    finished = subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert finished.returncode == 0
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.mark.skipif(sys.platform == "win32", reason="tells a stopped process by its pid")
async def test_a_lease_left_by_a_stopped_process_says_when_it_expires(tmp_path: Path) -> None:
    log = str(tmp_path / "actions.log")
    with SQLiteStore(tmp_path / "runs.db") as store:
        run = racing_agent(log).new_run("Delete record 7", store=store)
        await run.run()
        store.acquire(run.id, f"{socket.gethostname()}:{dead_pid()}:1", DEFAULT_LEASE_TTL)

        with pytest.raises(RunBusyError) as refused:
            await run.resume(True)

    message = str(refused.value)
    assert "has stopped" in message
    assert "expires at" in message
    assert f"{DEFAULT_LEASE_TTL:g} s" in message
    assert "answer again after that" in message
    assert "Wait until it pauses" not in message
    assert run.pending  # nothing was recorded
    assert executions(log) == 0


async def test_a_lease_held_by_a_live_process_says_wait_and_when_it_would_expire(
    tmp_path: Path,
) -> None:
    with SQLiteStore(tmp_path / "runs.db") as store:
        run = racing_agent(str(tmp_path / "actions.log")).new_run("x", store=store)
        await run.run()
        store.acquire(run.id, f"{socket.gethostname()}:{os.getppid()}:1", 600)
        started = time.monotonic()

        with pytest.raises(RunBusyError) as refused:
            await run.resume(True)

    # Refused at once, not after waiting ten minutes for the lease to expire.
    assert time.monotonic() - started < 60
    assert "Wait until it pauses" in str(refused.value)
    assert "expires at" in str(refused.value)
