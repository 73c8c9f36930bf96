"""needs_approval: nothing runs until a person approves; edits are validated first."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from pausepoint import Agent, AgentRun, ScriptedModel, ToolCall, action, call
from pausepoint.errors import InvalidResolutionError


class Refund(BaseModel):
    order_id: int
    amount: float = Field(gt=0)


def _refund_run() -> tuple[AgentRun, list[Refund], ScriptedModel]:
    executed: list[Refund] = []

    @action(needs_approval=True)
    async def refund(input: Refund) -> dict[str, Any]:
        """Refund an order."""
        executed.append(input)
        return {"refunded": input.amount}

    model = ScriptedModel([call("refund", order_id=42, amount=30.0), "Done."])
    return Agent(model=model, actions=[refund]).new_run("Refund order 42"), executed, model


async def test_action_does_not_run_before_approval() -> None:
    run, executed, _ = _refund_run()
    result = await run.run()
    assert result.status == "interrupted"
    assert executed == []
    (pending,) = result.pending
    assert pending.interrupt.kind == "tool-approval"
    assert pending.data == {"toolName": "refund", "args": {"order_id": 42, "amount": 30.0}}


async def test_resume_true_runs_it() -> None:
    run, executed, _ = _refund_run()
    await run.run()
    result = await run.resume(True)
    assert result.status == "completed"
    assert executed == [Refund(order_id=42, amount=30.0)]
    assert next(run.prompt.tool_calls()).result == {"refunded": 30.0}


async def test_edited_args_replace_the_input() -> None:
    run, executed, _ = _refund_run()
    await run.run()
    await run.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 12.5}})
    assert executed == [Refund(order_id=42, amount=12.5)]
    record = next(run.prompt.tool_calls())
    assert record.input == {"order_id": 42, "amount": 30.0}  # what the model asked for
    assert record.result == {"refunded": 12.5}


@pytest.mark.parametrize(
    ("answer", "path"),
    [
        ({"approved": True, "editedArgs": {"order_id": 42, "amount": -1}}, "$.editedArgs.amount"),
        ({"approved": True, "editedArgs": {"amount": 3}}, "$.editedArgs.order_id"),
        ({"approved": False, "editedArgs": {"order_id": 1, "amount": 1}}, "$.editedArgs"),
        ({"approved": "yes"}, "$.approved"),
        ({"ok": True}, "$.ok"),
        ("yes", "$"),
    ],
)
async def test_invalid_approval_answers_raise_and_record_nothing(answer: Any, path: str) -> None:
    run, executed, _ = _refund_run()
    await run.run()
    before = run.prompt.model_dump_json()

    with pytest.raises(InvalidResolutionError) as info:
        await run.resume(answer)

    assert path in [p.path for p in info.value.problems]
    assert run.prompt.model_dump_json() == before
    assert executed == []


@pytest.mark.parametrize("decline", ["reject", "resume_false", "resume_dict_false"])
async def test_declining_never_runs_it_and_tells_the_model(decline: str) -> None:
    run, executed, model = _refund_run()
    await run.run()
    if decline == "reject":
        result = await run.reject("Too much money.")
    elif decline == "resume_false":
        result = await run.resume(False)
    else:
        result = await run.resume({"approved": False})
    assert result.status == "completed"
    assert executed == []
    seen = model.requests[1].items[-1]
    assert isinstance(seen, ToolCall)
    assert seen.status == "rejected"
    assert seen.error is not None
    expected = "Too much money." if decline == "reject" else "declined to run refund"
    assert expected in seen.error.message


async def test_invalid_model_input_fails_before_asking_for_approval() -> None:
    run, _executed, _ = _refund_run()
    run.agent.model = ScriptedModel([call("refund", order_id="x", amount=1), "Sorry."])
    result = await run.run()
    assert result.status == "completed"
    record = next(run.prompt.tool_calls())
    assert record.interrupts == []
    assert record.error is not None
    assert record.error.name == "InvalidInput"


async def test_approval_message_from_a_template_or_a_function() -> None:
    @action(needs_approval=True, approval_message="Refund {amount} on order {order_id}?")
    def refund(order_id: int, amount: float) -> str:
        return "ok"

    @action(needs_approval=True, approval_message=lambda i: f"Wipe {i.disk.upper()}?")
    def wipe(disk: str) -> str:
        return "ok"

    model = ScriptedModel([[call("refund", order_id=7, amount=9.5), call("wipe", disk="d1")], "."])
    result = await Agent(model=model, actions=[refund, wipe]).new_run("x").run()
    assert [p.message for p in result.pending] == ["Refund 9.5 on order 7?", "Wipe D1?"]


async def test_effective_input_shows_the_edited_arguments() -> None:
    run, _, _ = _refund_run()
    await run.run()
    record = next(run.prompt.tool_calls())
    assert record.effective_input == {"order_id": 42, "amount": 30.0}
    await run.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 5.0}})
    assert record.effective_input == {"order_id": 42, "amount": 5.0}
    assert record.input == {"order_id": 42, "amount": 30.0}
