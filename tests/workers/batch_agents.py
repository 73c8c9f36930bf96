"""Agents for the worker tests, importable by name (``tests.workers.batch_agents:batch``)
from worker processes.

`batch` runs STEPS steps; step APPROVAL asks a person first (the answer's token comes
back in the step's result). With PAUSEPOINT_EXECUTIONS_DSN set, every execution of an
action is logged, before it does its work, in that database's `executions` table: the
run, the tool call, `ctx.attempt`, and the process.
"""

from __future__ import annotations

import asyncio
import os
import random
from typing import Any

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    ScriptedModel,
    action,
    call,
)
from pausepoint.transcript import AssistantMessage

STEPS = 3
APPROVAL = 2
DSN_VARIABLE = "PAUSEPOINT_EXECUTIONS_DSN"
EXECUTIONS = """CREATE TABLE IF NOT EXISTS executions (
    run_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, attempt INTEGER NOT NULL,
    pid INTEGER NOT NULL, answered BOOLEAN NOT NULL
)"""

_log: Any = None


def _logged(ctx: ActionContext) -> None:
    global _log
    dsn = os.environ.get(DSN_VARIABLE)
    if not dsn:
        return
    if _log is None:
        import psycopg

        _log = psycopg.connect(dsn, autocommit=True)
    _log.execute(
        "INSERT INTO executions (run_id, tool_call_id, attempt, pid, answered) "
        "VALUES (%s, %s, %s, %s, %s)",
        (ctx.run_id, ctx.tool_call_id, ctx.attempt, os.getpid(), ctx.resumption is not None),
    )


def batch() -> Agent:
    """The kill test's agent: every execution logged, each taking a few milliseconds."""

    @action
    async def step(n: int, ctx: ActionContext) -> dict[str, Any]:
        _logged(ctx)
        if n == APPROVAL and ctx.resumption is None:
            raise ActionInterrupt(f"Go on with step {n}?")
        await asyncio.sleep(random.uniform(0.0, 0.03))  # a kill may land mid-action
        token = ctx.resumption.data.get("token") if ctx.resumption is not None else None
        return {"step": n, "attempt": ctx.attempt, "pid": os.getpid(), "token": token}

    def script(request: ModelRequest) -> Any:
        turns = sum(1 for item in request.items if isinstance(item, AssistantMessage))
        return call("step", n=turns + 1) if turns < STEPS else "all steps done"

    return Agent(model=ScriptedModel(script), actions=[step], name="batch")
