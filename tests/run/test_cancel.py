"""Stopping a run: `cancel()` from anywhere, a cancelled task, and what a continued run sees."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from tests.helpers import paused_delete

from pausepoint import (
    Agent,
    AgentRun,
    ModelRequest,
    ModelResponse,
    Prompt,
    ScriptedModel,
    ToolCall,
    action,
    call,
)
from pausepoint._threads import wait_idle
from pausepoint.errors import RunBusyError


class Gate:
    """An async action `slow` that says when it has started and waits to be let go."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.runs = 0

        @action
        async def slow() -> str:
            """Take a while."""
            self.runs += 1
            self.entered.set()
            await self.release.wait()
            return "slow done"

        self.action = slow


def finished_statuses(run: AgentRun) -> list[str]:
    seen: list[str] = []
    run.on("run_finished", lambda e: seen.append(e.result.status))
    return seen


def last_call(run: AgentRun) -> ToolCall:
    *_, record = run.prompt.tool_calls()
    return record


async def test_cancel_ends_the_run_as_cancelled_and_records_the_call_in_flight() -> None:
    gate = Gate()
    run = Agent(model=ScriptedModel([call("slow"), "done"]), actions=[gate.action]).new_run("x")
    finished = finished_statuses(run)
    cancelled: list[Any] = []
    run.on("cancelled", cancelled.append)
    task = asyncio.create_task(run.run())
    await gate.entered.wait()

    result = await run.cancel("enough")

    assert result is not None
    assert result.status == "cancelled"
    assert await task is result  # the caller of run() gets the result, nothing raised
    assert run.result is result
    assert (await run.wait()) is result
    assert finished == ["cancelled"]
    assert [e.cancellation.reason for e in cancelled] == ["enough"]
    record = last_call(run)
    assert record.status == "cancelled"
    assert record.cancellation is not None
    assert (record.cancellation.by, record.cancellation.reason) == ("user", "enough")
    assert record.error is not None
    assert record.error.name == "Cancelled"
    assert "outcome is unknown" in record.error.message
    assert not run.busy
    assert Prompt.model_validate_json(run.prompt.model_dump_json()) == run.prompt


async def test_a_continued_cancelled_run_shows_the_model_the_cancelled_call_never_reruns_it() -> (
    None
):
    gate = Gate()
    seen: list[ToolCall] = []

    def respond(request: ModelRequest) -> Any:
        tools = [i for i in request.items if isinstance(i, ToolCall)]
        if not tools:
            return call("slow")
        seen.extend(tools)
        return "I see it was cancelled."

    run = Agent(model=ScriptedModel(respond), actions=[gate.action]).new_run("x")
    task = asyncio.create_task(run.run())
    await gate.entered.wait()
    await run.cancel()
    await task

    result = await run.run()

    assert result.status == "completed"
    assert gate.runs == 1
    assert [(t.status, t.error.name if t.error else None) for t in seen] == [
        ("cancelled", "Cancelled")
    ]


async def test_cancel_from_another_thread_stops_the_run_on_its_loop() -> None:
    gate = Gate()
    run = Agent(model=ScriptedModel([call("slow"), "done"]), actions=[gate.action]).new_run("x")
    finished = finished_statuses(run)
    task = asyncio.create_task(run.run())
    await gate.entered.wait()

    def from_thread() -> Any:
        return run.cancel_threadsafe("from a thread").result(timeout=10)

    result = await asyncio.to_thread(from_thread)

    assert result.status == "cancelled"
    assert (await task).status == "cancelled"
    assert finished == ["cancelled"]
    assert last_call(run).cancellation.by == "user"  # type: ignore[union-attr]


async def test_cancel_awaited_on_another_loop_in_another_thread() -> None:
    gate = Gate()
    run = Agent(model=ScriptedModel([call("slow"), "done"]), actions=[gate.action]).new_run("x")
    task = asyncio.create_task(run.run())
    await gate.entered.wait()

    result = await asyncio.to_thread(asyncio.run, run.cancel("elsewhere"))

    assert result.status == "cancelled"
    assert (await task) is result


async def test_cancelling_the_background_task_gives_the_same_outcome() -> None:
    gate = Gate()
    agent = Agent(model=ScriptedModel([call("slow"), "done"]), actions=[gate.action])
    run = agent.new_run("x")
    finished = finished_statuses(run)
    run.start()
    await gate.entered.wait()
    assert run.task is not None

    run.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run.task

    assert finished == ["cancelled"]
    assert run.result is not None
    assert run.result.status == "cancelled"
    assert (await run.wait()).status == "cancelled"
    record = last_call(run)
    assert record.status == "cancelled"
    assert record.cancellation is not None
    assert record.cancellation.by == "interrupt"
    assert (await run.run()).status == "completed"
    assert gate.runs == 1


async def test_cancel_during_the_model_request_leaves_the_transcript_as_it_was() -> None:
    asked = asyncio.Event()
    answer = asyncio.Event()

    class Slow:
        async def request(self, request: ModelRequest) -> ModelResponse:
            asked.set()
            await answer.wait()
            return ModelResponse(text="late")

    run = Agent(model=Slow()).new_run("x")
    before = run.prompt.model_dump_json()
    task = asyncio.create_task(run.run())
    await asyncio.wait_for(asked.wait(), 10)

    assert (await run.cancel()) is not None
    assert (await task).status == "cancelled"
    assert run.prompt.model_dump_json() == before
    answer.set()
    assert (await run.run()).output == "late"


async def test_calls_of_a_cancelled_turn_that_had_not_started_are_cancelled_too() -> None:
    gate = Gate()

    @action(needs_approval=True)
    def refund(order_id: int) -> str:
        return "refunded"

    model = ScriptedModel([[call("slow"), call("refund", order_id=1)], "done"])
    run = Agent(model=model, actions=[gate.action, refund]).new_run("x")
    task = asyncio.create_task(run.run())
    await gate.entered.wait()
    # The approval card of `refund` stays: it waits on a person, it is not in flight.
    await run.cancel()
    await task

    slow_call, refund_call = run.prompt.tool_calls()
    assert slow_call.status == "cancelled"
    assert refund_call.status == "interrupted"
    assert run.state.status == "interrupted"


async def test_cancel_on_a_run_that_is_not_executing_changes_nothing() -> None:
    run = Agent(model=ScriptedModel(["hi"])).new_run("x")
    assert await run.cancel() is None
    result = await run.run()
    before = run.prompt.model_dump_json()
    assert await run.cancel() is result
    assert run.prompt.model_dump_json() == before


async def test_a_sync_action_cancelled_mid_way_is_never_started_a_second_time() -> None:
    entered = threading.Event()
    release = threading.Event()
    runs: list[int] = []

    @action
    def refund(order_id: int) -> str:
        """Refund an order (slowly)."""
        runs.append(order_id)
        entered.set()
        release.wait(10)
        return "refunded"

    agent = Agent(model=ScriptedModel([call("refund", order_id=42), "done"]), actions=[refund])
    run = agent.new_run("x")
    saved: list[str] = []  # the transcript as a crash would leave it: the call running
    run.on("tool_call_started", lambda e: saved.append(run.prompt.model_dump_json()))
    task = asyncio.create_task(run.run())
    await asyncio.to_thread(entered.wait, 10)

    await run.cancel()
    await task
    assert last_call(run).status == "cancelled"

    # A copy of the run whose transcript still says "running" would re-execute the call:
    # refused while the first execution's thread lives.
    copy_agent = Agent(model=ScriptedModel(["done"]), actions=[refund])
    copy = AgentRun(copy_agent, Prompt.model_validate_json(saved[0]))
    with pytest.raises(RunBusyError, match="worker thread"):
        await copy.run()
    assert runs == [42]

    release.set()
    key = (run.id, last_call(run).id)
    assert await asyncio.to_thread(wait_idle, key, 10)
    assert (await run.run()).status == "completed"
    assert runs == [42]


async def test_stop_between_an_answer_and_the_rerun_cancels_before_the_action_runs_again(
    delete_record: Any, recorder: Any
) -> None:
    run = await paused_delete(delete_record)
    stopped: list[Any] = []

    async def stop_now(event: Any) -> None:
        stopped.append(run.cancel_threadsafe("changed my mind"))
        await asyncio.sleep(0)  # the loop takes the Stop request here

    run.on("resolved", stop_now)

    result = await run.resume({"approved": True})

    assert result.status == "cancelled"
    assert stopped[0].result(timeout=5) is result
    assert recorder.count("delete_record") == 1  # asked once, never re-run
    record = last_call(run)
    assert record.status == "cancelled"
    assert "before it started; it did not run" in record.error.message  # type: ignore[union-attr]
