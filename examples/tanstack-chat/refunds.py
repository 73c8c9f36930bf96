"""The example's agent: offline, with a scripted model. It asks before it refunds order 42
and asks how fast to ship it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelResponse,
    ScriptedModel,
    action,
    call,
)


class Shipping(BaseModel):
    speed: Literal["slow", "fast"]


@action(needs_approval=True)
def refund(order_id: int, amount: float) -> dict[str, float]:
    """Refund an order."""
    return {"refunded": amount}


@action
def ship(ctx: ActionContext) -> str:
    """Ship the order, asking how fast."""
    if ctx.resumption is None:
        raise ActionInterrupt("How fast should order 42 ship?", response_schema=Shipping)
    return f"shipping {ctx.resumption.parse(Shipping).speed}"


def agent() -> Agent:
    """A new agent (its scripted model answers one conversation)."""
    model = ScriptedModel(
        [
            ModelResponse(
                text="Refunding order 42.", tool_calls=[call("refund", order_id=42, amount=30.0)]
            ),
            call("ship"),
            "Done: order 42 is refunded and on its way.",
        ]
    )
    return Agent(model=model, actions=[refund, ship], name="refunds")
