"""The agents of the Temporal tests, importable by the worker processes they start.

`refunds(path)`: asks before each refund (`ActionInterrupt`, answered with `{"ok": bool}`
or a schema's form), then reports. `slow(path)`: its action records each attempt in a
file beside the store and, on its first attempt, waits until the process is killed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    ScriptedModel,
    ToolCallRequest,
    action,
    outcome_of,
)

SPEED = {
    "type": "object",
    "properties": {"speed": {"enum": ["standard", "express"]}},
    "required": ["speed"],
}
REPORT = "Done: "


def _script(name: str, **input: Any) -> Any:
    def respond(request: ModelRequest) -> Any:
        last = request.items[-1]
        if last.type == "user":
            return ToolCallRequest(id="call_1", name=name, input=input)
        outcome = outcome_of(last)
        return REPORT + outcome.text

    return respond


@action
async def ship(order: int, ctx: ActionContext) -> str:
    """Ship an order at the speed a person picks."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"How fast should order {order} travel?", response_schema=SPEED)
    return f"order {order} sent {ctx.resumption.data['speed']}"


@action
async def plain(order: int) -> str:
    """Look an order up."""
    return f"order {order} is fine"


def shipping() -> Agent:
    return Agent(model=ScriptedModel(_script("ship", order=7)), actions=[ship], name="shipping")


def lookup() -> Agent:
    return Agent(model=ScriptedModel(_script("plain", order=3)), actions=[plain], name="lookup")


ATTEMPTS = "attempts.jsonl"


def slow(directory: Path) -> Agent:
    """An agent whose action, on its first attempt, waits forever (until its worker is
    killed); each attempt is written to `directory / ATTEMPTS` as it starts."""

    @action
    async def crunch(n: int, ctx: ActionContext) -> str:
        """Crunch a number."""
        with (directory / ATTEMPTS).open("a") as out:
            out.write(json.dumps({"attempt": ctx.attempt}) + "\n")
        if ctx.attempt == 1:
            await asyncio.Event().wait()
        return f"crunched {n} on attempt {ctx.attempt}"

    return Agent(model=ScriptedModel(_script("crunch", n=9)), actions=[crunch], name="slow")
