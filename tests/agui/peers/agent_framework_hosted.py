"""A Microsoft Agent Framework agent for the hosted interop tests, on agent-framework-core
alone (it installs beside pausepoint; its AG-UI server does not, see
agent_framework_app.py).

The framework has no test chat client, so `ScriptedChatClient` is a minimal one of its
own `BaseChatClient` with the framework's `FunctionInvocationLayer` (no network): each
reply is derived from the messages it is sent, which it keeps in `calls`. Asked to refund
an order, it says "Refunding order N." and calls ``refund`` (``call_refund_N``), a tool
whose ``approval_mode`` is ``always_require``, so the framework asks for an approval
instead of running it; asked to refund two ("orders 1 and 2"), it calls it once for each
in one turn. Asked to ship, it calls ``ship``, which needs no approval; asked
to wait, ``wait``, a tool the test gives. Once the latest message it is sent is a tool's
result, it says "Done: " and that result. Asked to fail, it raises.

`RAN` lists each tool's calls as they ran (name, arguments), so a test reads what the
framework really ran.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

AMOUNT = 30.0
RAN: list[tuple[str, dict[str, Any]]] = []


@tool(approval_mode="always_require")
def refund(order_id: int, amount: float) -> dict[str, Any]:
    """Refund part of an order."""
    RAN.append(("refund", {"order_id": order_id, "amount": amount}))
    return {"refunded": amount, "order_id": order_id}


@tool
def ship(order_id: int) -> str:
    """Ship an order."""
    RAN.append(("ship", {"order_id": order_id}))
    return f"order {order_id} left the dock"


def _said(text: str) -> ChatResponseUpdate:
    return ChatResponseUpdate(role="assistant", contents=[Content.from_text(text)])


def _calls(name: str, call_id: str, arguments: Mapping[str, Any]) -> ChatResponseUpdate:
    call = Content.from_function_call(call_id, name, arguments=json.dumps(arguments))
    return ChatResponseUpdate(role="assistant", contents=[call])


def _refunds(orders: list[int]) -> list[ChatResponseUpdate]:
    return [
        _said(f"Refunding order {', '.join(str(n) for n in orders)}."),
        *(_calls("refund", f"call_refund_{n}", {"order_id": n, "amount": AMOUNT}) for n in orders),
    ]


def script(messages: Sequence[Message]) -> list[ChatResponseUpdate]:
    """One model turn from what the model is sent."""
    last = messages[-1]
    results = [c for c in last.contents if c.type == "function_result"]
    if results:
        result = results[-1].result
        return [_said(f"Done: {result if isinstance(result, str) else json.dumps(result)}")]
    asked = last.text.lower()
    if "fail" in asked:
        raise RuntimeError("the model is out of order")
    if "wait" in asked:
        return [_said("Waiting."), _calls("wait", "call_wait", {})]
    orders = [int(n) for n in re.findall(r"\d+", asked)] or [42]
    if "ship" in asked:
        return [
            _said(f"Shipping order {orders[0]}."),
            _calls("ship", f"call_ship_{orders[0]}", {"order_id": orders[0]}),
        ]
    return _refunds(orders)


class ScriptedChatClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers from `script`, and runs tools (and asks for approvals) as real clients do.
    `calls` holds the messages of each model call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[Message]] = []

    def _inner_get_response(
        self,
        *,
        messages: Sequence[Message],
        stream: bool,
        options: Mapping[str, Any],
        **kwargs: Any,
    ) -> Any:
        self.calls.append(list(messages))
        updates = script(messages)

        async def chunks() -> AsyncIterator[ChatResponseUpdate]:
            for update in updates:
                yield update

        if stream:
            return self._build_response_stream(chunks())

        async def whole() -> ChatResponse:
            return ChatResponse.from_updates(updates)

        return whole()


def build_agent(*tools: Any) -> Agent:
    """A new agent on a new scripted client, with ``refund``, ``ship`` and `tools`."""
    return Agent(
        client=ScriptedChatClient(),
        name="refunds",
        instructions="Refund or ship orders.",
        tools=[refund, ship, *tools],
    )
