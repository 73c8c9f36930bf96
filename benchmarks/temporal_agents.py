"""The agents bench_temporal.py's worker processes serve, named on their command lines
(``python -m pausepoint.worker temporal_agents:batch_worker --store sqlite:...`` and
``python -m pausepoint.temporal.worker temporal_agents:batch_temporal ...``, run with
benchmarks/ on PYTHONPATH).

Each makes the number of tool calls its run's prompt names ("steps=N"), one a model turn,
then answers. The `asks_*` agents call `confirm`, which pauses for an answer; once
answered, it writes when it started running again to the file BENCH_STAMPS names.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    ScriptedModel,
    ToolCallRequest,
    action,
)

STAMPS = "BENCH_STAMPS"
"""The environment variable naming the file `confirm` appends "run_id n time.time()" to."""


@action
async def bump(n: int) -> int:
    """Return n + 1."""
    return n + 1


@action
async def confirm(n: int, ctx: ActionContext) -> int:
    """Ask before returning n; once answered, note when this execution started."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"Act on {n}?", {"n": n}, state={"n": n})
    started = time.time()
    where = os.environ.get(STAMPS)
    if where:
        with open(where, "a") as stamps:  # noqa: ASYNC230 (the stamp is taken already)
            stamps.write(f"{ctx.run_id} {n} {started!r}\n")
    return n


def calls_of(name: str) -> Callable[[ModelRequest], Any]:
    """A model that makes the calls the run's prompt names ("steps=N"), one a turn, then
    answers. It reads only the request, so one agent serves any number of runs."""

    def respond(request: ModelRequest) -> Any:
        first = request.items[0]
        steps = int(getattr(first, "text", "steps=0").split("=", 1)[1])
        made = sum(1 for item in request.items if item.type == "tool")
        if made >= steps:
            return "All done."
        return ToolCallRequest(id=f"call_{made + 1}", name=name, input={"n": made + 1})

    return respond


def agent_of(name: str, action_name: str) -> Agent:
    return Agent(
        model=ScriptedModel(calls_of(action_name)),
        actions=[bump, confirm],
        name=name,
        max_turns=10_000,
    )


# Distinct names, so that a worker of one kind never claims the other kind's runs.
history_temporal = agent_of("bench-history-temporal", "bump")
batch_worker = agent_of("bench-batch-worker", "bump")
batch_temporal = agent_of("bench-batch-temporal", "bump")
asks_worker = agent_of("bench-asks-worker", "confirm")
asks_temporal = agent_of("bench-asks-temporal", "confirm")
