"""Two worker processes answer and continue 100 real runs on one PostgreSQL database."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import psycopg
from tests.store.pg_run_worker import approval_agent

from pausepoint import ToolCall
from pausepoint.store import PostgresStore

RUNS = 100
WORKER = Path(__file__).with_name("pg_run_worker.py")
ROOT = Path(__file__).resolve().parents[2]


async def _start_runs(store: PostgresStore) -> list[str]:
    agent = approval_agent(None, "setup")
    ids = []
    for n in range(RUNS):
        run = agent.new_run(f"task {n:03d}", store=store)
        assert (await run.run()).status == "interrupted"
        ids.append(run.id)
    return ids


def test_two_workers_complete_every_real_run_once_without_cross_talk(postgres_dsn: str) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE IF EXISTS pausepoint_runs, pausepoint_items, pausepoint_schema, "
            "executed_actions"
        )
        conn.execute(
            "CREATE TABLE executed_actions (run_id TEXT, tool_call_id TEXT, worker TEXT, "
            "attempt INT, input TEXT)"
        )
    store = PostgresStore(postgres_dsn)
    run_ids = asyncio.run(_start_runs(store))
    task_of = {run_id: f"task {n:03d}" for n, run_id in enumerate(run_ids)}

    workers = {
        name: subprocess.Popen(
            [sys.executable, str(WORKER), postgres_dsn, name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for name in ("worker-a", "worker-b")
    }
    for worker in workers.values():
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "ready"
    for worker in workers.values():  # both start together
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    tallies = {}
    for name, worker in workers.items():
        out, _ = worker.communicate(timeout=180)
        assert worker.returncode == 0, out
        tallies[name] = json.loads(out.strip().splitlines()[-1])
    print(tallies)

    with psycopg.connect(postgres_dsn) as conn:
        executed = conn.execute(
            "SELECT run_id, tool_call_id, worker, attempt, input FROM executed_actions"
        ).fetchall()
    # Every run's action executed exactly once, for that run, by the worker that answered.
    assert sorted(row[0] for row in executed) == sorted(run_ids)
    assert all(task_of[run_id] == task for run_id, _, _, _, task in executed)
    assert {attempt for *_, attempt, _ in executed} == {2}  # asked once, run once
    assert sum(t["completed"] for t in tallies.values()) == RUNS
    assert all(t["completed"] > 0 for t in tallies.values()), tallies
    done_by = {run_id: (call_id, worker) for run_id, call_id, worker, _, _ in executed}

    assert {s.status for s in store.runs()} == {"completed"}
    for run_id in run_ids:
        prompt, _ = store.load_prompt(run_id)
        record = next(prompt.tool_calls())
        assert isinstance(record, ToolCall)
        call_id, worker = done_by[run_id]
        assert (record.id, record.status) == (call_id, "succeeded")
        assert record.result == {"run": task_of[run_id], "done_by": worker}
        assert prompt.output == f"Finished {task_of[run_id]}"
        assert store.summary(run_id).lease_owner is None
    store.close()
