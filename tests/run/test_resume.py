"""resume(): the action re-runs with the answer and its checkpoint, and the loop goes on."""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers import Recorder

from pausepoint import (
    Action,
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    Prompt,
    ScriptedModel,
    ToolCall,
    action,
    call,
)
from pausepoint.transcript import AssistantMessage, ResumeResolution


async def test_resume_reruns_with_original_input_and_checkpoint(
    delete_record: Action, recorder: Recorder
) -> None:
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "done"]), actions=[delete_record]
    ).new_run("Delete record 7")
    await run.run()

    await run.resume({"approved": True, "note": "ok"})

    first, second = recorder.contexts
    assert first.resumption is None
    assert second.resumption is not None
    assert second.resumption.data == {"approved": True, "note": "ok"}
    assert second.resumption.state == {"checked": True}
    assert [i.id for i in recorder.inputs] == [7, 7]


async def test_resume_records_result_and_completes(delete_record: Action) -> None:
    model = ScriptedModel([call("delete_record", id=7), "Record 7 is gone."])
    run = Agent(model=model, actions=[delete_record]).new_run("Delete record 7")
    await run.run()

    result = await run.resume({"approved": True})

    assert result.status == "completed"
    assert result.output == "Record 7 is gone."
    record = next(run.prompt.tool_calls())
    assert (record.status, record.result) == ("succeeded", "deleted 7")
    resolution = record.interrupts[0].resolution
    assert isinstance(resolution, ResumeResolution)
    assert resolution.data == {"approved": True}
    # The second model request saw the result.
    assert len(model.requests) == 2
    seen = model.requests[1].items[-1]
    assert isinstance(seen, ToolCall)
    assert seen.result == "deleted 7"


def _twice_asking() -> tuple[Action, list[Any]]:
    seen: list[Any] = []

    @action
    async def transfer(amount: int, ctx: ActionContext) -> str:
        seen.append(ctx.resumption)
        if ctx.resumption is None:
            raise ActionInterrupt("Confirm the amount?", {"amount": amount}, state={"step": 1})
        if ctx.resumption.state == {"step": 1}:
            raise ActionInterrupt("Which account?", {"choices": ["a", "b"]}, state={"step": 2})
        return f"sent {amount} from {ctx.resumption.data}"

    return transfer, seen


async def test_action_interrupting_twice_keeps_each_entry_and_checkpoint() -> None:
    transfer, seen = _twice_asking()
    run = Agent(
        model=ScriptedModel([call("transfer", amount=5), "ok"]), actions=[transfer]
    ).new_run("Send 5")
    await run.run()
    first_id = run.pending[0].id
    result = await run.resume("yes")
    assert result.status == "interrupted"
    assert run.pending[0].message == "Which account?"

    result = await run.resume("b")

    assert result.status == "completed"
    record = next(run.prompt.tool_calls())
    assert [e.message for e in record.interrupts] == ["Confirm the amount?", "Which account?"]
    assert [e.state for e in record.interrupts] == [{"step": 1}, {"step": 2}]
    assert [
        e.resolution.data for e in record.interrupts if isinstance(e.resolution, ResumeResolution)
    ] == ["yes", "b"]
    assert record.interrupts[0].id == first_id != record.interrupts[1].id
    assert [r.state if r else None for r in seen] == [None, {"step": 1}, {"step": 2}]
    assert seen[2].interrupt_id == record.interrupts[1].id
    assert record.result == "sent 5 from b"


async def test_resolution_is_written_before_the_rerun_and_a_rerun_failure_is_recorded() -> None:
    observed: list[Any] = []
    holder: dict[str, AgentRun] = {}

    @action
    async def fragile(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("Go?")
        # The transcript already holds the answer while the action runs again.
        observed.append(next(holder["run"].prompt.tool_calls()).interrupts[0].resolution)
        raise RuntimeError("disk full")

    model = ScriptedModel([call("fragile"), "It failed, sorry."])
    run = Agent(model=model, actions=[fragile]).new_run("go")
    holder["run"] = run
    await run.run()

    result = await run.resume({"go": True})

    assert isinstance(observed[0], ResumeResolution)
    assert observed[0].data == {"go": True}
    record = next(run.prompt.tool_calls())
    assert isinstance(record.interrupts[0].resolution, ResumeResolution)
    assert record.status == "failed"
    assert record.error is not None
    assert (record.error.name, record.error.message) == (
        "RuntimeError",
        "disk full",
    )
    assert result.status == "completed"


async def test_crash_window_resume_without_result_is_reexecuted_on_run(
    delete_record: Action, recorder: Recorder
) -> None:
    # A process recorded the resume and died before the action finished.
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7)]), actions=[delete_record]
    ).new_run("Delete record 7")
    await run.run()
    record = next(run.prompt.tool_calls())
    record.interrupts[0].resolution = ResumeResolution(data={"approved": True})
    record.status = "running"
    saved = run.prompt.model_dump_json()

    recorder.contexts.clear()
    model = ScriptedModel([call("delete_record", id=7), "Done after the restart."])
    again = AgentRun(Agent(model=model, actions=[delete_record]), Prompt.model_validate_json(saved))
    result = await again.run()

    assert result.status == "completed"
    (ctx,) = recorder.contexts
    assert ctx.resumption is not None
    assert ctx.resumption.data == {"approved": True}
    assert ctx.resumption.state == {"checked": True}
    assert next(again.prompt.tool_calls()).result == "deleted 7"


async def test_followup_message_continues_a_completed_run() -> None:
    model = ScriptedModel(["Hello.", "Still here."])
    run = Agent(model=model).new_run("hi")
    assert (await run.run()).output == "Hello."
    assert (await run.run()).output == "Hello."  # completed: nothing more to do
    assert (await run.run("are you there?")).output == "Still here."
    assert [type(i).__name__ for i in run.prompt.items] == [
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
    ]
    assert isinstance(run.prompt.items[-1], AssistantMessage)


@pytest.mark.parametrize("data", [None, 0, "text", [1, 2], {"nested": {"x": [True]}}])
async def test_resume_passes_any_json_value_through(data: Any) -> None:
    received: list[Any] = []

    @action
    async def ask(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("Value?")
        received.append(ctx.resumption.data)
        return "ok"

    run = Agent(model=ScriptedModel([call("ask"), "done"]), actions=[ask]).new_run("go")
    await run.run()
    await run.resume(data)
    assert received == [data]
