"""A refund agent for the debugging tests: refund(cents) and lookup(order)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from pausepoint import (
    Agent,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    action,
    call,
)
from pausepoint.models import Turn


class Refund(BaseModel):
    order: int
    cents: int


class Lookup(BaseModel):
    order: int


@dataclass
class Ledger:
    refunds: list[Refund] = field(default_factory=list)
    lookups: list[int] = field(default_factory=list)


def refund_agent(ledger: Ledger, script: list[Turn] | Any, **options: Any) -> Agent:
    @action
    async def refund(input: Refund) -> str:
        """Refund part of an order."""
        ledger.refunds.append(input)
        return f"refunded {input.cents} on {input.order}"

    @action
    async def lookup(input: Lookup) -> dict[str, int]:
        """Look an order up."""
        ledger.lookups.append(input.order)
        return {"order": input.order, "total": 12_000}

    model = script if not isinstance(script, list) else ScriptedModel(script)
    return Agent(model=model, actions=[lookup, refund], instructions="Refund politely.", **options)


def refund_script() -> list[Turn]:
    return [
        call("lookup", order=42),
        call("refund", order=42, cents=12_000),
        "Refunded.",
    ]


class RecordingModel:
    """A scripted model that keeps a deep copy of every request it receives, and counts."""

    def __init__(self, script: list[Turn], *, usage: dict[str, int] | None = None) -> None:
        self._inner = ScriptedModel(script)
        self.received: list[ModelRequest] = []
        self.usage = usage

    @property
    def calls(self) -> int:
        return len(self.received)

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.received.append(
            ModelRequest(
                instructions=request.instructions,
                items=tuple(copy.deepcopy(list(request.items))),
                actions=tuple(request.actions),
            )
        )
        response = await self._inner.request(request)
        response.usage = self.usage
        response.finish_reason = "tool_calls" if response.tool_calls else "stop"
        return response


def approval_agent(model: Any, refunds: list[int], **options: Any) -> Agent:
    """`lookup(order)`, then `refund(cents)`, which needs approval and records what ran."""

    @action(needs_approval=True)
    async def refund(cents: int) -> str:
        """Refund."""
        refunds.append(cents)
        return f"refunded {cents}"

    @action
    async def lookup(order: int) -> int:
        """Look up."""
        return order

    return Agent(model=model, actions=[lookup, refund], **options)
