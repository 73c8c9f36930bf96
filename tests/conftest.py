"""Shared test helpers: a counting delete action that asks before it deletes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel

from pausepoint import (
    Action,
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    ScriptedModel,
    action,
    call,
)


class DeleteRecord(BaseModel):
    id: int


@dataclass
class Recorder:
    """What the test actions saw, call by call."""

    contexts: list[ActionContext] = field(default_factory=list)
    inputs: list[Any] = field(default_factory=list)

    def count(self, name: str) -> int:
        return sum(1 for c in self.contexts if c.action_name == name)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def delete_record(recorder: Recorder) -> Action:
    @action
    async def delete_record(input: DeleteRecord, ctx: ActionContext) -> str:
        """Delete a record by id."""
        recorder.contexts.append(ctx)
        recorder.inputs.append(input)
        if ctx.resumption is None:
            raise ActionInterrupt(
                "Approve deleting the record?", {"recordId": input.id}, state={"checked": True}
            )
        if not ctx.resumption.data.get("approved"):
            return "kept"
        return f"deleted {input.id}"

    return delete_record


async def paused_delete(delete_record: Action, reply: str = "Gone.") -> AgentRun:
    """A run waiting on delete_record's question; the model then answers `reply`."""
    model = ScriptedModel([call("delete_record", id=7), reply])
    run = Agent(model=model, actions=[delete_record]).new_run("x")
    await run.run()
    return run
