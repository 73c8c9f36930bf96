"""The workload the benchmarks share: one tool call per model turn, every 10th pausing for
an answer the benchmark gives at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pausepoint import ActionContext, ActionInterrupt, ModelRequest, ToolCallRequest, action

PAUSE_EVERY = 10


@action
async def confirm(n: int, ctx: ActionContext) -> int:
    """Ask before returning n."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"Act on {n}?", {"n": n}, state={"n": n})
    return n


def one_call_per_turn(calls: int, plain: str) -> Callable[[ModelRequest], Any]:
    """A model function: `calls` tool calls, one a turn (`confirm` every PAUSE_EVERY-th,
    else the action named `plain`), then a final text."""
    made = 0

    def respond(request: ModelRequest) -> Any:
        nonlocal made
        if made == calls:
            return "All done."
        made += 1
        name = "confirm" if made % PAUSE_EVERY == 0 else plain
        return ToolCallRequest(id=f"call_{made}", name=name, input={"n": made})

    return respond
