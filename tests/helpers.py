"""Helpers shared by tests in several folders (fixtures live in the conftest files).

Import them as ``from tests.helpers import ...``; nothing here is a fixture.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from pydantic import BaseModel

from pausepoint import (
    SCHEMA_VERSION,
    Action,
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    ScriptedModel,
    action,
    call,
)
from pausepoint.store import RunStore

T = TypeVar("T")

StoreFactory = Callable[..., RunStore]
"""Opens a store on the test's database; call it again for a second connection."""


class DeleteRecord(BaseModel):
    id: int


@dataclass
class Recorder:
    """What the test actions saw, call by call."""

    contexts: list[ActionContext] = field(default_factory=list)
    inputs: list[Any] = field(default_factory=list)

    def count(self, name: str) -> int:
        return sum(1 for c in self.contexts if c.action_name == name)


async def paused_delete(delete_record: Action, reply: str = "Gone.") -> AgentRun:
    """A run waiting on delete_record's question; the model then answers `reply`."""
    model = ScriptedModel([call("delete_record", id=7), reply])
    run = Agent(model=model, actions=[delete_record]).new_run("x")
    await run.run()
    return run


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


async def until(condition: Callable[[], T], within: float = 30.0) -> T:
    """Wait until `condition()` is truthy and return its value.

    The condition may change on the run's loop or in another thread (a widget handler runs
    on a subshell's thread), so it is checked after every turn of the event loop, then less
    often (at most every 50 ms). `within` (seconds) is a budget for a busy machine, not a
    speed requirement: a test that needs speed measures it.
    """
    delay = 0.0
    async with asyncio.timeout(within):
        while not (value := condition()):
            await asyncio.sleep(delay)
            delay = min(0.05, delay * 2 or 0.001)
    return value


def saved_waiting(entry: dict[str, Any]) -> dict[str, Any]:
    """A saved transcript (as a dict) whose one call paused on the interrupt `entry`."""
    return {
        "schema_version": SCHEMA_VERSION,
        "thread_id": "thread_1",
        "run_id": "run_1",
        "items": [
            {"type": "user", "text": "go"},
            {"type": "assistant", "tool_calls": [{"id": "c1", "name": "ask", "input": {}}]},
            {"type": "tool", "id": "c1", "name": "ask", "status": "interrupted",
             "interrupts": [entry]},
        ],
    }  # fmt: skip


def saved_with_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A saved transcript whose one call waits on a question with this response schema."""
    return saved_waiting(
        {
            "id": "int_1",
            "message": "Which?",
            "created_at": "2026-01-01T00:00:00Z",
            "response_schema": schema,
        }
    )


def agent_asking(schema: dict[str, Any]) -> Agent:
    """An agent whose one action asks a question with this response schema and returns
    the answer."""

    @action
    async def ask(ctx: ActionContext) -> Any:
        if ctx.resumption is None:
            raise ActionInterrupt("Fill this in", response_schema=schema)
        return ctx.resumption.data

    return Agent(model=ScriptedModel([call("ask"), "done"]), actions=[ask])


def require_peer(module: str, what: str) -> None:
    """Import another framework's package for an interop test module: the module is
    skipped without it, except under CI=true, where its absence is a failure."""
    import importlib
    import os

    import pytest

    try:
        importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"{what} is not installed", allow_module_level=True)
