"""Respond: a person's words instead of running the action, and who gave each answer."""

from __future__ import annotations

import pytest

from pausepoint import (
    Agent,
    AgentRun,
    ModelRequest,
    Prompt,
    ScriptedModel,
    ToolCall,
    UsageError,
    action,
    call,
)
from pausepoint.humans import Policy


def refund_agent(ran: list[int], seen: list[ModelRequest]) -> Agent:
    @action(needs_approval=True)
    def refund(order_id: int) -> str:
        """Refund an order."""
        ran.append(order_id)
        return f"refunded {order_id}"

    def reply(request: ModelRequest) -> object:
        seen.append(request)
        if not any(item.type == "tool" for item in request.items):
            return call("refund", order_id=7)
        return "Understood."

    return Agent(model=ScriptedModel(reply), actions=[refund])


async def test_respond_does_not_run_the_action_and_the_model_reads_the_words() -> None:
    ran: list[int] = []
    seen: list[ModelRequest] = []
    run = refund_agent(ran, seen).new_run("Refund order 7")
    await run.run()

    result = await run.respond("Refund half of it, and tell them why.")

    assert result.status == "completed"
    assert ran == []
    record = next(run.prompt.tool_calls())
    assert (record.status, record.result, record.error) == (
        "responded",
        "Refund half of it, and tell them why.",
        None,
    )
    decision = record.decisions()[0]
    assert decision is not None
    assert (decision.kind, decision.by) == ("responded", "code")
    assert decision.words == "Responded: Refund half of it, and tell them why."
    # The model's next request carries the words as the call's outcome.
    last = seen[-1].items[-1]
    assert isinstance(last, ToolCall)
    assert last.result == "Refund half of it, and tell them why."


async def test_a_response_survives_a_save_and_a_load() -> None:
    ran: list[int] = []
    run = refund_agent(ran, []).new_run("Refund order 7")
    await run.run()
    await run.respond("Not today; ask again tomorrow.")

    again = AgentRun(
        refund_agent(ran, []), Prompt.model_validate_json(run.prompt.model_dump_json())
    )

    assert again.prompt == run.prompt
    assert next(again.prompt.tool_calls()).status == "responded"


@pytest.mark.parametrize("words", ["", "   "])
async def test_a_response_without_words_is_refused_and_nothing_is_recorded(words: str) -> None:
    run = refund_agent([], []).new_run("Refund order 7")
    await run.run()
    before = run.prompt.model_dump_json()

    with pytest.raises(UsageError, match="reject"):
        await run.respond(words)

    assert run.prompt.model_dump_json() == before


async def test_respond_answers_only_a_tool_approval() -> None:
    from pausepoint import ActionContext, ActionInterrupt

    @action
    def ask(ctx: ActionContext) -> str:
        """Ask for a city."""
        if ctx.resumption is None:
            raise ActionInterrupt("Which city?")
        return str(ctx.resumption.data)

    run = Agent(model=ScriptedModel([call("ask"), "ok"]), actions=[ask]).new_run("go")
    await run.run()
    before = run.prompt.model_dump_json()

    with pytest.raises(UsageError, match="resume"):
        await run.respond("Oslo")

    assert run.prompt.model_dump_json() == before


async def test_an_agui_client_responds_through_the_approvals_payload() -> None:
    ran: list[int] = []
    run = refund_agent(ran, []).new_run("Refund order 7")
    await run.run()
    [pending] = run.agui_interrupts()

    await run.continue_with(
        [
            {
                "interruptId": pending["id"],
                "status": "resolved",
                "payload": {"approved": False, "payload": {"response": "Use store credit."}},
            }
        ]
    )

    record = next(run.prompt.tool_calls())
    decision = record.decisions()[0]
    assert decision is not None
    assert (record.status, decision.kind, decision.by) == ("responded", "responded", "agui")
    assert ran == []


@pytest.mark.parametrize(
    ("answer", "by"),
    [("resume", "code"), ("reject", "code"), ("policy", "policy")],
)
async def test_each_answer_records_who_gave_it(answer: str, by: str) -> None:
    run = refund_agent([], []).new_run("Refund order 7")
    await run.run()

    if answer == "resume":
        await run.resume(True)
    elif answer == "reject":
        await run.reject("no")
    else:
        await Policy(approve=["refund"]).answer(run)

    resolution = next(run.prompt.tool_calls()).interrupts[0].resolution
    assert resolution is not None
    assert resolution.by == by
