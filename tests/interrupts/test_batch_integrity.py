"""AG-UI batches and rejections: a breakpoint is never part of a batch, and every answer,
a refusal's reason included, is bounded by the agent's answer size."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from pausepoint import ActionContext, ActionInterrupt, Agent, AgentRun, ScriptedModel, action, call
from pausepoint.errors import AnswerTooLargeError, ResumeBatchError


class Speed(BaseModel):
    speed: str


async def paused_at_a_breakpoint_and_a_question(
    ran: list[str], **options: int
) -> tuple[AgentRun, str, str]:
    """One turn: `refund` stopped at a breakpoint, `ship` asking a question."""

    @action
    async def refund(cents: int) -> str:
        ran.append(f"refund {cents}")
        return "refunded"

    @action
    async def ship(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("Which speed?", response_schema=Speed)
        ran.append(f"ship {ctx.resumption.data['speed']}")
        return "shipped"

    model = ScriptedModel([[call("refund", cents=500), call("ship")], "Done."])
    agent = Agent(model=model, actions=[refund, ship], **options)
    run = agent.new_run("go", breakpoints=["refund"])
    await run.run()
    kinds = {p.kind: p.id for p in run.pending}
    assert set(kinds) == {"breakpoint", "generic"}
    return run, kinds["breakpoint"], kinds["generic"]


async def test_a_batch_that_answers_the_question_is_complete_while_a_breakpoint_waits() -> None:
    ran: list[str] = []
    run, breakpoint_id, question_id = await paused_at_a_breakpoint_and_a_question(ran)

    result = await run.continue_with(
        [{"interruptId": question_id, "status": "resolved", "payload": {"speed": "fast"}}]
    )

    assert ran == ["ship fast"]
    assert result.status == "interrupted"
    assert [p.id for p in run.pending] == [breakpoint_id]  # still for the notebook to answer


async def test_a_batch_entry_for_a_breakpoint_is_refused_and_runs_nothing() -> None:
    ran: list[str] = []
    run, breakpoint_id, question_id = await paused_at_a_breakpoint_and_a_question(ran)
    before = run.prompt.model_dump_json()

    with pytest.raises(ResumeBatchError) as caught:
        await run.continue_with(
            [
                {
                    "interruptId": breakpoint_id,
                    "status": "resolved",
                    "payload": {"action": "continue"},
                },
                {"interruptId": question_id, "status": "resolved", "payload": {"speed": "fast"}},
            ]
        )
    error = caught.value

    assert [(e.code, e.interrupt_id) for e in error.errors] == [
        ("unknown-interrupt", breakpoint_id)
    ]
    assert "run.debug" in error.errors[0].message
    assert ran == []
    assert run.prompt.model_dump_json() == before


async def test_a_cancellation_reason_beyond_the_answer_limit_is_refused() -> None:
    ran: list[str] = []
    run, _, question_id = await paused_at_a_breakpoint_and_a_question(ran, max_answer_bytes=1000)
    before = run.prompt.model_dump_json()

    with pytest.raises(ResumeBatchError) as caught:
        await run.continue_with(
            [
                {
                    "interruptId": question_id,
                    "status": "cancelled",
                    "metadata": {"reason": "no " * 70_000},
                }
            ]
        )
    error = caught.value

    assert [(e.code, e.path) for e in error.errors] == [("invalid-payload", "$.metadata.reason")]
    assert "1,000" in error.errors[0].message
    assert run.prompt.model_dump_json() == before


async def test_a_rejection_reason_beyond_the_answer_limit_is_refused_and_not_recorded() -> None:
    ran: list[str] = []
    run, _, question_id = await paused_at_a_breakpoint_and_a_question(ran, max_answer_bytes=1000)
    before = run.prompt.model_dump_json()

    with pytest.raises(AnswerTooLargeError) as caught:
        await run.reject("no " * 70_000, interrupt=question_id)
    error = caught.value

    assert error.limit == 1000
    assert error.size > 200_000
    assert run.prompt.model_dump_json() == before
    again = await run.reject("not now", interrupt=question_id)  # a short one is fine
    assert again.status == "interrupted"
