"""At-least-once, made explicit: `ctx.attempt` counts executions of a call, and survives a save."""

from __future__ import annotations

from tests.helpers import Recorder, paused_delete

from pausepoint import (
    Action,
    ActionContext,
    Agent,
    AgentRun,
    Prompt,
    ScriptedModel,
    ToolCall,
    ToolCallRequest,
    action,
    call,
)
from pausepoint.transcript import AssistantMessage, UserMessage


async def test_the_first_execution_is_attempt_one_and_a_resume_is_attempt_two(
    delete_record: Action, recorder: Recorder
) -> None:
    run = await paused_delete(delete_record)
    assert next(run.prompt.tool_calls()).attempts == 1

    await run.resume({"approved": True})

    assert [c.attempt for c in recorder.contexts] == [1, 2]
    assert next(run.prompt.tool_calls()).attempts == 2


async def test_the_attempt_count_survives_a_save_and_load(
    delete_record: Action, recorder: Recorder
) -> None:
    run = await paused_delete(delete_record)
    saved = run.prompt.model_dump_json()

    again = AgentRun(run.agent, Prompt.model_validate_json(saved))
    await again.resume({"approved": True})

    assert [c.attempt for c in recorder.contexts] == [1, 2]


async def test_an_approved_call_runs_once_as_attempt_one() -> None:
    attempts: list[int] = []

    @action(needs_approval=True)
    def refund(order_id: int, ctx: ActionContext) -> str:
        """Refund an order."""
        attempts.append(ctx.attempt)
        return "refunded"

    run = Agent(model=ScriptedModel([call("refund", order_id=1), "ok"]), actions=[refund]).new_run(
        "x"
    )
    await run.run()
    await run.resume(True)
    assert attempts == [1]


async def test_a_call_cut_short_by_a_crash_runs_again_as_the_next_attempt() -> None:
    seen: list[tuple[str, int]] = []

    @action
    def refund(order_id: int, ctx: ActionContext) -> str:
        """Refund an order, once per call id."""
        seen.append((ctx.tool_call_id, ctx.attempt))
        return "refunded"

    # What a process that died mid-action leaves behind: the call "running", one attempt.
    prompt = Prompt(
        items=[
            UserMessage(text="refund 1"),
            AssistantMessage(tool_calls=[ToolCallRequest(id="c1", name="refund", input={})]),
            ToolCall(id="c1", name="refund", input={"order_id": 1}, status="running", attempts=1),
        ]
    )
    model = ScriptedModel([call("refund", order_id=1), "ok"])  # turns go by position
    run = AgentRun(Agent(model=model, actions=[refund]), prompt)

    assert (await run.run()).status == "completed"
    assert seen == [("c1", 2)]
    assert next(run.prompt.tool_calls()).attempts == 2
