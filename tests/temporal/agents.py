"""The agents of the Temporal tests, importable by the worker processes they start.

`shipping()` asks how fast to ship (`ActionInterrupt` with a schema), then reports;
`lookup()` looks an order up. `slow(directory)`: its action records each attempt in a file
in `directory` and, on its first attempt, waits until the process is killed. The worker
processes of the kill tests build agents from the folder `ATTEMPTS_FOLDER` names:
`slow_here()`, and `steps()`/`asking()`, whose actions log every attempt and take a while.
"""

from __future__ import annotations

import asyncio
import json
import os
from datetime import timedelta
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

STATUS_ATTRIBUTE = "PausepointStatus"
"""The Keyword search attribute the tests' dev server is started with, for runs' statuses."""

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


@action
async def refund(order: int, ctx: ActionContext) -> str:
    """Refund an order once a person approves."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"Refund order {order}?")
    return f"refunded order {order}"


def refunds() -> Agent:
    """Asks for approval before refunding the order its message names."""

    def respond(request: ModelRequest) -> Any:
        last = request.items[-1]
        if last.type == "user":
            order = int(last.text.split()[-1])
            return ToolCallRequest(id="call_1", name="refund", input={"order": order})
        return REPORT + outcome_of(last).text

    return Agent(model=ScriptedModel(respond), actions=[refund], name="refunds")


@action
async def hold(order: int, ctx: ActionContext) -> str:
    """Hold an order until a person says, for two seconds at most."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"Hold order {order}?", expires_at=timedelta(seconds=2))
    return f"held order {order}"


def holding() -> Agent:
    """Asks about holding order 5 with a pause that expires in two seconds."""
    return Agent(model=ScriptedModel(_script("hold", order=5)), actions=[hold], name="holding")


def refunds_each() -> Agent:
    """Refunds each order its message names, one call (and one approval) a turn."""

    def respond(request: ModelRequest) -> Any:
        asked = [int(n) for n in request.items[0].text.split()[2:]]  # type: ignore[union-attr]
        done = [item for item in request.items if item.type == "tool"]
        if len(done) < len(asked):
            order = asked[len(done)]
            return ToolCallRequest(id=f"call_{order}", name="refund", input={"order": order})
        return f"Refunded {len(done)} orders."

    return Agent(model=ScriptedModel(respond), actions=[refund], name="refunds")


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


ATTEMPTS_FOLDER = "PAUSEPOINT_TEST_ATTEMPTS"
"""The environment variable naming the folder of the attempts files."""
STEPS = 3
STEP_TAKES = 0.4
"""Seconds a step's action works (the time a kill can land in it)."""


def _folder() -> Path:
    return Path(os.environ[ATTEMPTS_FOLDER])


def slow_here() -> Agent:
    """`slow(directory)` on the folder `ATTEMPTS_FOLDER` names, for a worker command."""
    return slow(_folder())


def _stepping(then: str | None) -> Any:
    def respond(request: ModelRequest) -> Any:
        done = sum(1 for item in request.items if item.type == "tool")
        if done < STEPS:
            return ToolCallRequest(id=f"call_{done + 1}", name="step", input={"n": done + 1})
        if then is not None and done == STEPS:
            return ToolCallRequest(id="call_ask", name=then, input={})
        return REPORT + outcome_of(request.items[-1]).text

    return respond


def _steps_actions(directory: Path | None) -> list[Any]:
    directory = directory or _folder()

    @action
    async def step(n: int, ctx: ActionContext) -> str:
        """Do one step of the work."""
        seen = {"run": ctx.run_id, "call": ctx.tool_call_id, "attempt": ctx.attempt}
        with (directory / ATTEMPTS).open("a") as out:
            out.write(json.dumps({**seen, "pid": os.getpid()}) + "\n")
        await asyncio.sleep(STEP_TAKES)
        return f"step {n} done on attempt {ctx.attempt}"

    @action
    async def confirm(ctx: ActionContext) -> str:
        """Ask a person to confirm the work."""
        if ctx.resumption is None:
            raise ActionInterrupt("Is the work right?")
        return "confirmed"

    return [step, confirm]


def steps(directory: Path | None = None) -> Agent:
    """Three steps, each logged to `directory / ATTEMPTS` (by default in the folder
    `ATTEMPTS_FOLDER` names) as it starts, then a report."""
    actions = _steps_actions(directory)
    return Agent(model=ScriptedModel(_stepping(None)), actions=actions, name="steps")


def asking(directory: Path | None = None) -> Agent:
    """The three steps of `steps()`, then a question to a person."""
    actions = _steps_actions(directory)
    return Agent(model=ScriptedModel(_stepping("confirm")), actions=actions, name="asking")
