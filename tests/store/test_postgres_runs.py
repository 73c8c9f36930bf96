"""Two worker processes answer and continue 100 real runs on one PostgreSQL database."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psycopg
from tests.store.pg_run_worker import approval_agent
from tests.store.workers import run_two_workers

from pausepoint import ToolCall
from pausepoint.store import PostgresStore

RUNS = 100
WORKER = Path(__file__).with_name("pg_run_worker.py")


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

    tallies = run_two_workers(WORKER, postgres_dsn)

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
