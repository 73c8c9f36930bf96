"""A worker process for the two-worker PostgreSQL test.

    python pg_worker.py <dsn> <name>

Prints "ready", waits for a line on stdin, then answers and continues every waiting run
it can lease: it records the answer, runs the action once (a row in executed_actions),
records the result and completes the run. Prints a JSON tally when nothing is left.
"""

from __future__ import annotations

import json
import sys
import time

import psycopg

from pausepoint import Prompt, ToolCall
from pausepoint.store import (
    LeaseHeldError,
    LeaseLostError,
    PostgresStore,
    RunWriter,
    StoreConflictError,
)
from pausepoint.transcript import AssistantMessage, ResumeResolution


def continue_run(writer: RunWriter, prompt: Prompt, actions: psycopg.Connection, name: str) -> bool:
    """Take one leased run from waiting to completed. False when there was nothing to do."""
    record = prompt.items[-1]
    if not isinstance(record, ToolCall):
        return False  # completed by the other worker
    entry = record.interrupts[-1]
    if entry.is_pending:
        entry.resolution = ResumeResolution(data={"approved": True, "by": name})
        writer.save(prompt, status="running")  # the answer is durable before the action runs
    actions.execute(
        "INSERT INTO executed_actions (run_id, tool_call_id, worker) VALUES (%s, %s, %s)",
        (prompt.run_id, record.id, name),
    )
    time.sleep(0.001)  # the action's own work
    record.status = "succeeded"
    record.result = {"done_by": name, "run": prompt.run_id}
    prompt.items.append(AssistantMessage(text=f"Finished {prompt.run_id}"))
    writer.save(prompt, status="completed")
    return True


def main() -> None:
    dsn, name = sys.argv[1], sys.argv[2]
    store = PostgresStore(dsn)
    actions = psycopg.connect(dsn, autocommit=True)
    print("ready", flush=True)
    sys.stdin.readline()
    tally = {"completed": 0, "lease_refused": 0, "lost": 0}
    while True:
        waiting = store.runs(status=["interrupted", "running"])
        if not waiting:
            break
        for summary in waiting:
            try:
                writer, prompt = RunWriter.load(store, summary.run_id, owner=name, ttl=30)
            except LeaseHeldError:
                tally["lease_refused"] += 1
                continue
            try:
                if continue_run(writer, prompt, actions, name):
                    tally["completed"] += 1
            except (StoreConflictError, LeaseLostError):
                tally["lost"] += 1
            finally:
                store.release(summary.run_id, name)
    print(json.dumps(tally), flush=True)
    store.close()
    actions.close()


if __name__ == "__main__":
    main()
