"""Temporal worker processes (``python -m pausepoint.temporal.worker``) on one SQLite
store, SIGKILLed against the session's dev server: another worker takes a killed worker's
stretch over once its heartbeats stop and the run's lease runs out, the action cut short
runs again as the next attempt, an answer sent while a worker is dead is committed by
another, and nothing committed before a kill is lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import until
from tests.temporal import agents

pytest.importorskip("temporalio")

from temporalio.client import Client

from pausepoint import SQLiteStore
from pausepoint.temporal import TemporalRunner

ROOT = Path(__file__).resolve().parents[2]
WITHIN = 240.0
"""Seconds a takeover may take on a busy machine (a budget, not a goal): heartbeat
timeout (10 s), the run's lease (15 s), the retry's backoff."""


class Workers:
    """Worker processes of one task queue, each logging to a file in `folder`."""

    def __init__(self, address: str, task_queue: str, folder: Path, *factories: str) -> None:
        self.folder = folder
        self.args = [
            *(f"tests.temporal.agents:{factory}" for factory in factories),
            *("--address", address, "--task-queue", task_queue),
            *("--store", f"sqlite:{folder / 'runs.db'}", "--concurrency", "4"),
        ]
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self) -> subprocess.Popen[bytes]:
        log = (self.folder / f"worker-{len(self.started) + 1}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "pausepoint.temporal.worker", *self.args],
            cwd=ROOT,
            env={**os.environ, agents.ATTEMPTS_FOLDER: str(self.folder)},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        self.started.append(process)
        return process

    @staticmethod
    def kill(process: subprocess.Popen[bytes]) -> None:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)

    def stop_all(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=60)


def attempts(folder: Path) -> list[dict[str, Any]]:
    """The attempts the actions logged, in order (a line cut by a kill is left out)."""
    path = folder / agents.ATTEMPTS
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    return [json.loads(line) for line in lines if line.endswith("}")]


def fields(item: Any) -> dict[str, Any]:
    return {name: getattr(item, name) for name in type(item).model_fields}


async def test_a_killed_workers_action_runs_again_on_another_worker_and_nothing_is_lost(
    temporal_address: str, tmp_path: Path
) -> None:
    task_queue = f"kills-{uuid.uuid4().hex[:8]}"
    workers = Workers(temporal_address, task_queue, tmp_path, "slow_here")
    store = SQLiteStore(tmp_path / "runs.db")
    agent = agents.slow(tmp_path)
    runner = TemporalRunner(await Client.connect(temporal_address), task_queue)
    try:
        first = workers.start()
        run = agent.new_run("Crunch 9", store=store)
        await runner.start(run)
        await until(lambda: attempts(tmp_path), within=WITHIN)
        prompt, _ = store.load_prompt(run.id)
        (cut,) = [i for i, item in enumerate(prompt.items) if item.type == "tool"]
        before = [fields(item) for item in prompt.items[:cut]]
        assert [item["type"] for item in before] == ["user", "assistant"]
        assert prompt.items[cut].status == "running"  # type: ignore[union-attr]
        workers.start()  # waits for work: Temporal gives it the stretch once the first dies

        workers.kill(first)
        killed = time.monotonic()
        await until(lambda: len(attempts(tmp_path)) == 2, within=WITHIN)
        took = time.monotonic() - killed
        ended = await runner.result(run.id)
    finally:
        workers.stop_all()

    print(f"the second worker ran the action again {took:.1f} s after the kill")
    assert ended.status == "completed"
    assert [a["attempt"] for a in attempts(tmp_path)] == [1, 2]
    done, _ = store.load_prompt(run.id)
    assert [fields(item) for item in done.items[:cut]] == before  # field by field, unchanged
    record = done.items[cut]
    assert (record.type, record.status, record.attempts) == ("tool", "succeeded", 2)  # type: ignore[union-attr]
    assert record.result == "crunched 9 on attempt 2"  # type: ignore[union-attr]
    assert done.output == "Done: crunched 9 on attempt 2"
    assert store.summary(run.id).lease_owner is None
    store.close()


async def test_an_answer_sent_while_the_runs_worker_is_dead_is_committed_by_another(
    temporal_address: str, tmp_path: Path
) -> None:
    task_queue = f"kills-{uuid.uuid4().hex[:8]}"
    workers = Workers(temporal_address, task_queue, tmp_path, "shipping")
    store = SQLiteStore(tmp_path / "runs.db")
    agent = agents.shipping()
    client = await Client.connect(temporal_address)
    runner = TemporalRunner(client, task_queue)
    try:
        first = workers.start()  # alone: it executes the stretch and caches the workflow
        run = agent.new_run("Ship order 7", store=store)
        await runner.start(run)
        await until(lambda: store.summary(run.id).status == "interrupted", within=WITHIN)
        (pending,) = [p.id for p in agent.load(run.id, store).pending]
        second = workers.start()
        workers.kill(first)

        # Another kernel answers: only the second worker is left to commit it.
        answered = await runner.resume(run.id, {"speed": "express"}, interrupt=pending)
        ended = await runner.result(run.id)
    finally:
        workers.stop_all()

    assert (answered.status, ended.status) == ("idle", "completed")
    done = agent.load(run.id, store)
    assert done.prompt.output == "Done: order 7 sent express"
    (entry,) = [e for item in done.prompt.items for e in getattr(item, "interrupts", [])]
    assert entry.id == pending
    assert entry.resolution is not None
    assert entry.resolution.data == {"speed": "express"}  # type: ignore[union-attr]
    history = await runner.handle(run.id).fetch_history()
    scheduled = {
        event.event_id: event.activity_task_scheduled_event_attributes.activity_type.name
        for event in history.events
        if event.HasField("activity_task_scheduled_event_attributes")
    }
    ran_by = [
        (
            scheduled[event.activity_task_started_event_attributes.scheduled_event_id],
            event.activity_task_started_event_attributes.identity.split("@")[0],
        )
        for event in history.events
        if event.HasField("activity_task_started_event_attributes")
    ]
    assert ran_by == [
        ("pausepoint_stretch", str(first.pid)),
        ("pausepoint_answer", str(second.pid)),
        ("pausepoint_stretch", str(second.pid)),
    ]
    store.close()


RUNS = 20
KILLS = 30


async def test_workers_killed_again_and_again_leave_every_run_whole(
    temporal_address: str, tmp_path: Path
) -> None:
    """Two worker processes, one SIGKILLed each time it has started an action, then
    started again, KILLS times while RUNS runs go on."""
    task_queue = f"kills-{uuid.uuid4().hex[:8]}"
    workers = Workers(temporal_address, task_queue, tmp_path, "steps", "asking")
    store = SQLiteStore(tmp_path / "runs.db")
    served = {"steps": agents.steps(tmp_path), "asking": agents.asking(tmp_path)}
    runner = TemporalRunner(await Client.connect(temporal_address), task_queue)
    ends = {"steps": "completed", "asking": "interrupted"}
    kills = 0
    try:
        alive = [workers.start(), workers.start()]
        runs = []
        for n in range(RUNS):
            agent = served["steps" if n % 2 else "asking"]
            runs.append((agent, agent.new_run(f"Work {n}", store=store)))
            await runner.start(runs[-1][1])
        while kills < KILLS:
            victim = alive.pop(0)
            logged = len(attempts(tmp_path))

            def victim_acts(victim: Any = victim, logged: int = logged) -> bool:
                return any(a["pid"] == victim.pid for a in attempts(tmp_path)[logged:])

            try:
                await until(victim_acts, within=60)
            except TimeoutError:
                alive.insert(0, victim)
                break  # nothing left for it: the runs are done or wait on people
            workers.kill(victim)
            kills += 1
            alive.append(workers.start())

        def all_ended() -> bool:
            return all(store.summary(r.id).status == ends[a.name or ""] for a, r in runs)

        await until(all_ended, within=WITHIN * 2)
    finally:
        workers.stop_all()

    print(f"{kills} kills, {len(attempts(tmp_path))} attempts logged")
    assert kills >= 3
    by_call: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    for seen in attempts(tmp_path):
        by_call[(seen["run"], seen["call"])].append(seen["attempt"])
    assert len(by_call) == RUNS * agents.STEPS
    # Each attempt of a call is a new one, numbered up. A number may be missing: a worker
    # killed after it committed the call running as attempt n, before the action's first
    # line, leaves n unlogged (the action never ran as n).
    climbing = {k: v for k, v in by_call.items() if v != sorted(set(v)) or v[0] < 1}
    assert not climbing, climbing
    assert any(len(seen) > 1 for seen in by_call.values())  # a kill cut an action short
    assert len(store.runs()) == RUNS
    for agent, run in runs:
        loaded = agent.load(run.id, store)
        assert loaded.status == ends[agent.name or ""]
        records = [item for item in loaded.prompt.items if item.type == "tool"]
        steps = [r for r in records if r.name == "step"]  # type: ignore[union-attr]
        assert [r.status for r in steps] == ["succeeded"] * agents.STEPS  # type: ignore[union-attr]
        for record in steps:
            tried = by_call[(run.id, record.id)]  # type: ignore[union-attr]
            assert record.attempts == tried[-1]  # type: ignore[union-attr]
            assert record.result == f"step {record.input['n']} done on attempt {tried[-1]}"  # type: ignore[union-attr]
    store.close()
