"""Two worker processes answer and continue 100 runs on one PostgreSQL database at once."""

from __future__ import annotations

from pathlib import Path

import psycopg
from tests.store.workers import run_two_workers

from pausepoint import Prompt, ToolCall, ToolCallRequest
from pausepoint.store import PostgresStore
from pausepoint.transcript import AssistantMessage, InterruptEntry, UserMessage

RUNS = 100
WORKER = Path(__file__).with_name("pg_worker.py")


def waiting_run(n: int) -> Prompt:
    run_id = f"run_{n:03d}"
    call = ToolCallRequest(id=f"call_{run_id}", name="approve", input={"run": run_id})
    return Prompt(
        run_id=run_id,
        items=[
            UserMessage(text=f"Task of {run_id}"),
            AssistantMessage(tool_calls=[call]),
            ToolCall(
                id=call.id,
                name=call.name,
                input=call.input,
                status="interrupted",
                interrupts=[InterruptEntry(id=f"int_{run_id}", message=f"Approve {run_id}?")],
            ),
        ],
    )


def test_two_workers_complete_every_run_once_without_cross_talk(postgres_dsn: str) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE IF EXISTS pausepoint_runs, pausepoint_items, pausepoint_schema, "
            "executed_actions"
        )
        conn.execute("CREATE TABLE executed_actions (run_id TEXT, tool_call_id TEXT, worker TEXT)")
    store = PostgresStore(postgres_dsn)
    for n in range(RUNS):
        store.create(waiting_run(n), status="interrupted", agent="approver")

    tallies = run_two_workers(WORKER, postgres_dsn)

    with psycopg.connect(postgres_dsn) as conn:
        executed = conn.execute(
            "SELECT run_id, tool_call_id, worker FROM executed_actions"
        ).fetchall()
    assert sorted(r for r, _, _ in executed) == [f"run_{n:03d}" for n in range(RUNS)]
    assert all(call == f"call_{run}" for run, call, _ in executed)
    assert sum(t["completed"] for t in tallies.values()) == RUNS
    assert all(t["completed"] > 0 for t in tallies.values()), tallies
    executed_by = {run: worker for run, _, worker in executed}

    assert {s.status for s in store.runs()} == {"completed"}
    for n in range(RUNS):
        run_id = f"run_{n:03d}"
        prompt, version = store.load_prompt(run_id)
        assert version == 3  # created, answered, finished: no write twice
        assert prompt.run_id == run_id
        record = prompt.items[2]
        assert isinstance(record, ToolCall)
        assert record.id == f"call_{run_id}"
        assert record.result == {"done_by": executed_by[run_id], "run": run_id}
        resolution = record.interrupts[0].resolution
        assert resolution is not None
        assert resolution.data == {"approved": True, "by": executed_by[run_id]}  # type: ignore[union-attr]
        assert prompt.output == f"Finished {run_id}"
        assert len(prompt.items) == 4
        assert store.summary(run_id).lease_owner is None
    store.close()
