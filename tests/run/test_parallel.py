"""Several tool calls in one turn: each pause is answered by id; the model waits for all."""

from __future__ import annotations

import pytest
from tests.helpers import Recorder

from pausepoint import Action, Agent, ScriptedModel, action, call
from pausepoint.errors import UnknownInterruptError


@action
async def lookup(key: str) -> str:
    """Look a value up."""
    return key.upper()


async def test_two_interrupts_in_one_turn_are_answered_by_id(
    delete_record: Action, recorder: Recorder
) -> None:
    model = ScriptedModel(
        [
            [call("delete_record", id=1), call("lookup", key="a"), call("delete_record", id=2)],
            "Both handled.",
        ]
    )
    run = Agent(model=model, actions=[delete_record, lookup]).new_run("clean up")

    result = await run.run()

    assert result.status == "interrupted"
    assert [p.data for p in result.pending] == [{"recordId": 1}, {"recordId": 2}]
    statuses = [r.status for r in run.prompt.tool_calls()]
    assert statuses == ["interrupted", "succeeded", "interrupted"]
    with pytest.raises(UnknownInterruptError, match="2 interrupts are pending"):
        await run.resume({"approved": True})

    first, second = result.pending
    result = await run.resume({"approved": False}, interrupt=second.id)
    assert result.status == "interrupted"
    assert [p.id for p in result.pending] == [first.id]
    assert len(model.requests) == 1  # the model is not asked while one is pending

    result = await run.resume({"approved": True}, interrupt=first.id)

    assert result.status == "completed"
    assert len(model.requests) == 2
    assert [r.result for r in run.prompt.tool_calls()] == ["deleted 1", "A", "kept"]
    assert recorder.count("delete_record") == 4


async def test_reject_one_of_two_by_id(delete_record: Action) -> None:
    model = ScriptedModel([[call("delete_record", id=1), call("delete_record", id=2)], "ok"])
    run = Agent(model=model, actions=[delete_record]).new_run("x")
    result = await run.run()
    first, second = result.pending
    await run.reject("no", interrupt=first.id)
    assert [p.id for p in run.pending] == [second.id]
    assert (await run.resume({"approved": True})).status == "completed"
    assert [r.status for r in run.prompt.tool_calls()] == ["rejected", "succeeded"]
