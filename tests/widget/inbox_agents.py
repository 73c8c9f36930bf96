"""The agent the inbox tests answer: `delete_record(id)` asks before it deletes, and a
gate can hold it once resumed, so a run stays executing while a test looks."""

from __future__ import annotations

import asyncio
from typing import Any

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    ScriptedModel,
    action,
    call,
)
from pausepoint.store import RunStore

__all__ = ["Gate", "ops_agent", "waiting"]


class Gate:
    """Holds a resumed action until the test lets it go, so a run stays executing."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()


def ops_agent(executed: list[str], gate: Gate | None = None, *, name: str = "ops") -> Agent:
    """Records `run_id:id` in `executed` for each record it deletes."""

    @action
    async def delete_record(id: int, ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt(f"Delete record {id}?", data={"id": id})
        if gate is not None:
            gate.entered.set()
            await gate.release.wait()
        executed.append(f"{ctx.run_id}:{id}")
        return f"deleted {id}"

    def script(request: Any) -> Any:
        if len(request.items) == 1:
            return call("delete_record", id=int(request.items[0].text.split()[-1]))
        return "Done."

    return Agent(model=ScriptedModel(script), actions=[delete_record], name=name)


async def waiting(agent: Agent, store: RunStore, text: str) -> AgentRun:
    """A run of `agent` in `store`, paused on its question."""
    run = agent.new_run(text, store=store)
    assert (await run.run()).status == "interrupted"
    return run
