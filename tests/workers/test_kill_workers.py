"""Four worker processes on one PostgreSQL database, SIGKILLed at random moments 100 times
while a batch runs; each killed worker is replaced at once.

The test keeps the batch going: it adds runs while fewer than OPEN are unfinished, and
answers each run's question with `continue_run=False` (a worker continues it). Every
action execution is logged (run, tool call, `ctx.attempt`, process) before it does its
work. At the end: every run completed; every answer the test committed and every result
it saw committed is in the final transcript, unchanged; no (run, call, attempt) was
executed twice, and each call's result came from its last logged execution.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import signal
import time
from collections import Counter
from typing import Any

import psycopg
from tests.workers.batch_agents import APPROVAL, EXECUTIONS, STEPS, batch

from pausepoint import ToolCall
from pausepoint.store import PostgresStore, RunStore

KILLS = 100
WORKERS = 4
OPEN = 24  # unfinished runs the batch keeps until the last kill
LEASE_TTL = 2.0  # seconds a killed worker's runs wait for another
CONCURRENCY = 2


def _fresh(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE IF EXISTS pausepoint_runs, pausepoint_items, pausepoint_schema, executions"
        )
        conn.execute(EXECUTIONS)


class Workers:
    """The worker processes, forked from a server that imported pausepoint once."""

    def __init__(self, dsn: str) -> None:
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(["tests.workers.kill_worker"])
        self._dsn = dsn
        self._started = 0
        self.alive: list[multiprocessing.process.BaseProcess] = []
        self.exit_codes: list[int | None] = []
        self._started_events: dict[multiprocessing.process.BaseProcess, Any] = {}

    def start(self) -> None:
        from tests.workers.kill_worker import work

        self._started += 1
        started = self._context.Event()
        process = self._context.Process(
            target=work, args=(self._dsn, f"w{self._started}", LEASE_TTL, CONCURRENCY, started)
        )
        process.start()
        self.alive.append(process)
        self._started_events[process] = started

    def kill(self, chance: random.Random) -> None:
        victim = self.alive.pop(chance.randrange(len(self.alive)))
        assert victim.pid is not None
        os.kill(victim.pid, signal.SIGKILL)
        victim.join()
        self.exit_codes.append(victim.exitcode)
        self.start()

    def stop(self) -> None:
        """SIGTERM to each worker once it has begun (one just started may still be in
        multiprocessing's own start-up, which knows nothing of SIGTERM)."""
        for process in self.alive:
            assert process.pid is not None
            self._started_events[process].wait(60)
            os.kill(process.pid, signal.SIGTERM)
        for process in self.alive:
            process.join(timeout=60)
            self.exit_codes.append(process.exitcode)


class Batch:
    """What the test committed and saw committed while the workers ran."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.agent = batch()
        self.runs: list[str] = []
        self.answers: dict[str, str] = {}  # run id -> the token of its committed answer
        self.seen: dict[tuple[str, str], Any] = {}  # (run, call) -> a committed result

    def top_up(self) -> None:
        unfinished = self.store.runs(status=["idle", "running", "interrupted"])
        for _ in range(OPEN - len(unfinished)):
            self.runs.append(self.agent.new_run(f"task {len(self.runs)}", store=self.store).id)

    async def answer(self) -> None:
        for summary in self.store.runs(status="interrupted"):
            run = self.agent.load(summary.run_id, self.store)
            token = f"token-{run.id}-{len(run.prompt.items)}"
            await run.resume({"token": token}, continue_run=False)
            self.answers[run.id] = token

    def look(self, chance: random.Random) -> None:
        for run_id in chance.sample(self.runs, min(3, len(self.runs))):
            prompt, _ = self.store.load_prompt(run_id)
            for record in prompt.tool_calls():
                if record.status == "succeeded":
                    self.seen[(run_id, record.id)] = record.result

    def finished(self) -> bool:
        return {s.status for s in self.store.runs()} == {"completed"}


def test_killed_workers_lose_nothing_and_every_run_of_the_batch_completes(
    postgres_dsn: str,
) -> None:
    _fresh(postgres_dsn)
    chance = random.Random(19)
    started = time.monotonic()
    store = PostgresStore(postgres_dsn)
    work = Batch(store)
    workers = Workers(postgres_dsn)
    for _ in range(WORKERS):
        workers.start()

    async def drive() -> None:
        loop = asyncio.get_running_loop()
        kills = 0
        next_kill = loop.time() + chance.uniform(0.2, 1.0)
        while kills < KILLS:
            work.top_up()
            await work.answer()
            work.look(chance)
            if loop.time() >= next_kill:
                workers.kill(chance)
                kills += 1
                next_kill = loop.time() + chance.uniform(0.2, 1.0)
            await asyncio.sleep(0.05)

        async def answered_and_finished() -> bool:
            await work.answer()
            return work.finished()

        # The last kills' runs wait for their leases to run out, then complete.
        deadline = loop.time() + 120
        while not await answered_and_finished():
            assert loop.time() < deadline, Counter(s.status for s in store.runs())
            await asyncio.sleep(0.1)

    try:
        asyncio.run(drive())
    finally:
        workers.stop()

    assert workers.exit_codes.count(-signal.SIGKILL) == KILLS
    assert workers.exit_codes[KILLS:] == [0] * WORKERS  # the last four stopped on SIGTERM
    with psycopg.connect(postgres_dsn) as conn:
        executions = conn.execute(
            "SELECT run_id, tool_call_id, attempt, pid, answered FROM executions"
        ).fetchall()
    counted = Counter((run, call, attempt) for run, call, attempt, _, _ in executions)
    assert [key for key, n in counted.items() if n > 1] == []  # no attempt ran twice
    by_key = {
        (run, call, attempt): (pid, answered) for run, call, attempt, pid, answered in executions
    }

    again = 0
    for run_id in work.runs:
        prompt, _ = store.load_prompt(run_id)
        assert prompt.output == "all steps done"
        records = [item for item in prompt.items if isinstance(item, ToolCall)]
        assert [r.status for r in records] == ["succeeded"] * STEPS
        for step, record in enumerate(records, start=1):
            result = record.result
            assert isinstance(result, dict)
            assert (result["step"], result["attempt"]) == (step, record.attempts)
            # The recorded result is the one of the last execution, which was logged.
            assert by_key[(run_id, record.id, record.attempts)] == (
                result["pid"],
                step == APPROVAL,
            )
            expected = 2 if step == APPROVAL else 1
            again += record.attempts - expected
        approval = records[APPROVAL - 1]
        resolution = approval.interrupts[-1].resolution
        assert resolution is not None
        assert resolution.data == {"token": work.answers[run_id]}  # type: ignore[union-attr]
        assert approval.result["token"] == work.answers[run_id]  # type: ignore[index]
        assert store.summary(run_id).status == "completed"
    for (run_id, call_id), result in work.seen.items():
        prompt, _ = store.load_prompt(run_id)
        found = next(r for r in prompt.tool_calls() if r.id == call_id)
        assert found.result == result, f"a committed result of {run_id} changed"
    store.close()
    print(
        f"{KILLS} kills of {WORKERS} workers in {time.monotonic() - started:.1f} s: "
        f"{len(work.runs)} runs completed, {len(executions)} executions, "
        f"{again} of them again after a kill (with a higher ctx.attempt), "
        f"{len(work.seen)} committed results watched"
    )
    assert again > 0, "no kill landed while an action ran: the takeover path is untested"
