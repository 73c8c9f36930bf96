"""A whole Agent run driven by OpenAIChatModel through a live chat-completions server."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from chat_server import ChatServer, answer, error

from pausepoint import ActionContext, ActionInterrupt, Agent, action
from pausepoint.models import OpenAIChatModel

MakeModel = Callable[..., OpenAIChatModel]
WHICH_ORDER = {
    "type": "object",
    "properties": {"order_id": {"type": "integer"}},
    "required": ["order_id"],
}


def _agent(model: OpenAIChatModel, refunded: list[int]) -> Agent:
    @action
    async def lookup_order(order_id: int, ctx: ActionContext) -> dict[str, Any]:
        """Look up an order; asks which one when the id is not a real one."""
        if order_id <= 0:
            if ctx.resumption is None:
                raise ActionInterrupt("Which order?", response_schema=WHICH_ORDER)
            order_id = ctx.resumption.data["order_id"]
        return {"order_id": order_id, "total": 30.0}

    @action(needs_approval=True)
    async def refund(order_id: int, amount: float) -> dict[str, Any]:
        """Refund an order."""
        refunded.append(order_id)
        return {"refunded": amount}

    return Agent(model=model, actions=[lookup_order, refund], instructions="Help with orders.")


async def test_a_run_pauses_for_approval_and_completes_after_resume(
    server: ChatServer, make_model: MakeModel
) -> None:
    refunded: list[int] = []
    server.add(
        answer("Looking it up.", ("call_a", "lookup_order", '{"order_id": 42}')),
        answer(None, ("call_b", "refund", '{"order_id": 42, "amount": 30.0}')),
        answer("Refunded 30.0 for order 42."),
    )
    run = _agent(make_model(), refunded).new_run("Refund order 42")
    deltas: list[str] = []
    run.on("text_delta", lambda event: deltas.append(event.text))

    first = await run.run()
    assert first.status == "interrupted"
    assert first.pending[0].interrupt.kind == "tool-approval"
    assert refunded == []
    assert len(server.requests) == 2

    done = await run.resume(True)
    assert done.status == "completed"
    assert refunded == [42]
    assert done.output == "Refunded 30.0 for order 42. "
    assert "".join(deltas).startswith("Looking it up.")

    first_request, _, last_request = server.requests
    assert all(body["stream"] is True for body in server.requests)
    assert first_request["messages"] == [
        {"role": "system", "content": "Help with orders."},
        {"role": "user", "content": "Refund order 42"},
    ]
    assert [tool["function"]["name"] for tool in first_request["tools"]] == [
        "lookup_order",
        "refund",
    ]
    assert first_request["tools"][1]["function"]["parameters"]["required"] == [
        "order_id",
        "amount",
    ]
    tool_messages = [m for m in last_request["messages"] if m["role"] == "tool"]
    assert tool_messages == [
        {
            "role": "tool",
            "tool_call_id": "call_a",
            "content": json.dumps({"order_id": 42, "total": 30.0}),
        },
        {"role": "tool", "tool_call_id": "call_b", "content": json.dumps({"refunded": 30.0})},
    ]


async def test_an_action_that_asks_a_question_continues_with_the_answer(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(
        answer(None, ("call_a", "lookup_order", '{"order_id": 0}')),
        answer("Order 7 totals 30.0."),
    )
    run = _agent(make_model(), []).new_run("Look up my order")
    paused = await run.run()
    assert paused.status == "interrupted"
    assert paused.pending[0].interrupt.message == "Which order?"
    assert len(server.requests) == 1

    done = await run.resume({"order_id": 7})
    assert done.status == "completed"
    assert server.requests[-1]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_a",
        "content": json.dumps({"order_id": 7, "total": 30.0}),
    }


async def test_a_declined_approval_reaches_the_model_as_a_refusal(
    server: ChatServer, make_model: MakeModel
) -> None:
    refunded: list[int] = []
    server.add(
        answer(None, ("call_b", "refund", '{"order_id": 42, "amount": 30.0}')),
        answer("Understood, no refund."),
    )
    run = _agent(make_model(), refunded).new_run("Refund order 42")
    await run.run()
    result = await run.reject("Not this one.")
    assert result.status == "completed"
    assert refunded == []
    assert server.requests[-1]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_b",
        "content": "Not done: a person declined this call. Rejected: Not this one.",
    }


async def test_broken_arguments_are_fed_back_to_the_model_as_invalid_input(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(
        answer(None, ("call_a", "lookup_order", '{"order_id": 4')),
        answer("Sorry, let me fix that."),
    )
    result = await _agent(make_model(), []).new_run("Look up order 4").run()
    assert result.status == "completed"
    (tool_message,) = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert tool_message["content"].startswith("Error. InvalidInput:")
    assert "order_id" in tool_message["content"]


async def test_a_refused_key_fails_the_run_with_a_clear_error_and_keeps_the_transcript(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(error(401, "Incorrect API key provided"))
    run = _agent(make_model(api_key="sk-wrong"), []).new_run("Refund order 42")
    result = await run.run()
    assert result.status == "failed"
    assert result.error is not None
    assert result.error.name == "ModelAuthenticationError"
    assert "OPENAI_API_KEY" in result.error.message
    assert len(run.prompt.items) == 1

    server.add(answer("Hello again."))
    retried = await run.run()
    assert retried.status == "completed"
    assert retried.output == "Hello again. "
