"""A worker process for the two-worker test with real runs on PostgreSQL.

    python pg_run_worker.py <dsn> <name>

Prints "ready", waits for a line on stdin, then loads every waiting run, answers it and
continues it to completion (the action notes each execution in executed_actions). Runs
the other worker holds or answered first are left to it. Prints a JSON tally at the end.
"""

from __future__ import annotations

import asyncio
import json
import sys

import psycopg

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    ScriptedModel,
    action,
    call,
)
from pausepoint.errors import InterruptAlreadyResolvedError, RunBusyError
from pausepoint.store import PostgresStore, StoreConflictError
from pausepoint.transcript import UserMessage


def approval_agent(executed: psycopg.Connection | None, name: str) -> Agent:
    """One approval per run; the action's result and the answer name the run they are for."""

    @action
    def approve(run: str, ctx: ActionContext) -> dict[str, str]:
        if ctx.resumption is None:
            raise ActionInterrupt(f"Approve {run}?")
        if executed is not None:
            executed.execute(
                "INSERT INTO executed_actions (run_id, tool_call_id, worker, attempt, input) "
                "VALUES (%s, %s, %s, %s, %s)",
                (ctx.run_id, ctx.tool_call_id, name, ctx.attempt, run),
            )
        return {"run": run, "done_by": name}

    def script(request: ModelRequest) -> object:
        task = next(i.text for i in request.items if isinstance(i, UserMessage))
        if len(request.items) == 1:
            return call("approve", run=task)
        return f"Finished {task}"

    return Agent(model=ScriptedModel(script), actions=[approve], name="approver")


async def work(store: PostgresStore, agent: Agent) -> dict[str, int]:
    tally = {"completed": 0, "busy": 0, "answered_elsewhere": 0}
    while waiting := store.runs(status="interrupted", agent="approver"):
        for summary in waiting:
            run = agent.load(summary.run_id, store)
            if not run.pending:
                continue
            try:
                result = await run.resume({"approved": True})
            except RunBusyError:
                tally["busy"] += 1
                continue
            except (InterruptAlreadyResolvedError, StoreConflictError):
                tally["answered_elsewhere"] += 1
                continue
            assert result.status == "completed", result
            tally["completed"] += 1
    return tally


def main() -> None:
    dsn, name = sys.argv[1], sys.argv[2]
    store = PostgresStore(dsn)
    executed = psycopg.connect(dsn, autocommit=True)
    print("ready", flush=True)
    sys.stdin.readline()
    tally = asyncio.run(work(store, approval_agent(executed, name)))
    print(json.dumps(tally), flush=True)
    store.close()
    executed.close()


if __name__ == "__main__":
    main()
