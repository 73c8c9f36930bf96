"""What goes wrong inside the loop stays inside it: failures are recorded, never escape."""

from __future__ import annotations

import asyncio
import math

import pytest
from pydantic import BaseModel

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    ToolCallRequest,
    action,
    call,
)
from pausepoint.errors import InvalidRejectionError, NotJSONError, RunBusyError


async def test_a_broken_approval_message_fails_that_call_and_the_siblings_finish() -> None:
    @action(needs_approval=True, approval_message="Refund {customer}?")
    def refund(order_id: int) -> str:
        return "refunded"

    @action
    async def slow() -> str:
        await asyncio.sleep(0.02)
        return "slow done"

    run = Agent(
        model=ScriptedModel([[call("refund", order_id=1), call("slow")], "Handled."]),
        actions=[refund, slow],
    ).new_run("x")
    finished: list[str] = []
    run.on("run_finished", lambda e: finished.append(e.result.status))

    result = await run.run()

    assert result.status == "completed"
    assert finished == ["completed"]
    broken, sibling = run.prompt.tool_calls()
    assert broken.status == "failed"
    assert broken.error is not None
    assert broken.error.name == "KeyError"
    assert sibling.status == "succeeded"
    assert not run.busy


async def test_an_internal_error_in_the_loop_returns_failed() -> None:
    class Broken:
        async def request(self, request: ModelRequest) -> ModelResponse:
            return ModelResponse(tool_calls=[{"not": "a tool call"}])  # type: ignore[list-item]

    run = Agent(model=Broken()).new_run("x")
    failures: list[str] = []
    run.on("failed", lambda e: failures.append(e.error.name))
    result = await run.run()
    assert result.status == "failed"
    assert failures == [result.error.name]  # type: ignore[union-attr]
    assert run.result is result


async def test_repeated_or_empty_tool_call_ids_get_fresh_ones() -> None:
    @action
    def ping() -> str:
        return "pong"

    same = [ToolCallRequest(id="c1", name="ping"), ToolCallRequest(id="c1", name="ping")]
    empty = ToolCallRequest(id="", name="ping")
    run = Agent(model=ScriptedModel([[*same, empty], "ok"]), actions=[ping]).new_run("x")
    await run.run()
    ids = [r.id for r in run.prompt.tool_calls()]
    assert ids[0] == "c1"
    assert len(set(ids)) == 3
    assert all(ids)


async def test_nan_inside_a_pydantic_model_is_not_json() -> None:
    class Reading(BaseModel):
        value: float

    with pytest.raises(NotJSONError, match=r"\$\.value"):
        ActionInterrupt("Check this", Reading(value=math.nan))


async def test_answering_while_the_run_works_and_waits_on_nobody_is_busy() -> None:
    gate = asyncio.Event()
    entered = asyncio.Event()

    @action
    async def slow() -> str:
        entered.set()
        await gate.wait()
        return "done"

    run = Agent(model=ScriptedModel([call("slow"), "ok"]), actions=[slow]).new_run("x")
    task = asyncio.create_task(run.run())
    await entered.wait()
    with pytest.raises(RunBusyError, match="wait"):
        await run.resume(True)
    gate.set()
    assert (await task).status == "completed"


@pytest.mark.parametrize("bad", [42, {"message": 3}, ["no"]])
async def test_reject_with_something_that_is_not_a_rejection_is_refused(bad: object) -> None:
    @action
    async def ask(ctx: ActionContext) -> str:
        raise ActionInterrupt("ok?")

    run = Agent(model=ScriptedModel([call("ask"), "ok"]), actions=[ask]).new_run("x")
    await run.run()
    before = run.prompt.model_dump_json()
    with pytest.raises(InvalidRejectionError):
        await run.reject(bad)  # type: ignore[arg-type]
    assert run.prompt.model_dump_json() == before
