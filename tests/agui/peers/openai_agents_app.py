"""An OpenAI Agents SDK agent for the interop tests, on the SDK's own test model.

The model is `agents.testing.ScriptedModel` (no network), each step derived from what it
is sent. Asked to refund an order, it says "Refunding order N." and calls ``refund``
(``call_refund_N``), a tool made with ``needs_approval=True``, so the run stops with the
call in ``result.interruptions``. Asked to refund two orders ("orders 1 and 2") it calls
``refund`` once for each in one turn. Asked to ship, it calls ``ship``, which needs no
approval. Once the latest item it is sent is a tool's output, it says "Done: " and that
output. Asked to fail, the model raises.

`RAN` lists each tool's calls as they ran (name, arguments), so a test reads what the
SDK really ran.
"""

from __future__ import annotations

import re
from typing import Any

from agents import Agent, ModelSettings, function_tool
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

AMOUNT = 30.0
RAN: list[tuple[str, dict[str, Any]]] = []
MODEL_CALLS = 40


@function_tool(needs_approval=True)
def refund(order_id: int, amount: float) -> dict[str, Any]:
    """Refund part of an order."""
    RAN.append(("refund", {"order_id": order_id, "amount": amount}))
    return {"refunded": amount, "order_id": order_id}


@function_tool
def ship(order_id: int) -> str:
    """Ship an order."""
    RAN.append(("ship", {"order_id": order_id}))
    return f"order {order_id} left the dock"


def _text(item: Any) -> str:
    content = item.get("content") if isinstance(item, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def script(call: ModelCall) -> Any:
    """One model step from what the model is sent."""
    items = call.input
    if not isinstance(items, list):
        items = [{"role": "user", "content": items}]
    last = items[-1]
    if isinstance(last, dict) and last.get("type") == "function_call_output":
        return [assistant_message(f"Done: {last.get('output')}", item_id="msg_done")]
    asked = _text(last).lower()
    if "fail" in asked:
        raise RuntimeError("the model is out of order")
    orders = [int(n) for n in re.findall(r"\d+", asked)] or [42]
    if "ship" in asked:
        return [
            assistant_message(f"Shipping order {orders[0]}.", item_id="msg_ship"),
            function_call("ship", {"order_id": orders[0]}, call_id=f"call_ship_{orders[0]}"),
        ]
    said = ", ".join(str(n) for n in orders)
    return [
        assistant_message(f"Refunding order {said}.", item_id="msg_refund"),
        *(
            function_call("refund", {"order_id": n, "amount": AMOUNT}, call_id=f"call_refund_{n}")
            for n in orders
        ),
    ]


def build_agent() -> Agent[Any]:
    """A new agent on a new scripted model (up to MODEL_CALLS calls)."""
    model = ScriptedModel([ModelStep.respond(script) for _ in range(MODEL_CALLS)])
    return Agent(
        name="Refunds",
        instructions="Refund or ship orders.",
        tools=[refund, ship],
        model=model,
        model_settings=ModelSettings(parallel_tool_calls=True),
    )
