"""The agent the server tests serve: in the test's process, or copied beside a
``python -m pausepoint.agui refunds:agent`` command as a user's own module.

The model asks to refund order 42 (an approval), then asks how fast to ship (a question
with a response schema), then says it is done. Its actions write one line per execution
to the file named by $PAUSEPOINT_TEST_COUNT; with $PAUSEPOINT_TEST_GATE set, the refund
waits until that file exists before it returns, so a test can hold it mid-execution.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
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

COUNT_ENV = "PAUSEPOINT_TEST_COUNT"
GATE_ENV = "PAUSEPOINT_TEST_GATE"
FINAL_TEXT = "Refunded order 42 and shipped it fast."


class Shipping(BaseModel):
    speed: Literal["slow", "fast"]


def build(count: Path | None = None, gate: Path | None = None) -> Agent:
    """The agent; its executions are written to `count`, and the refund waits for `gate`."""

    def executed(name: str) -> None:
        if count is not None:
            with count.open("a", encoding="utf-8") as lines:
                lines.write(name + "\n")

    @action(needs_approval=True)
    def refund(order_id: int, amount: float) -> dict[str, float]:
        """Refund an order."""
        executed("refund")
        while gate is not None and not gate.exists():
            time.sleep(0.02)
        return {"refunded": amount}

    @action
    def ship(ctx: ActionContext) -> str:
        """Ship the order, asking how fast."""
        if ctx.resumption is None:
            raise ActionInterrupt("How fast should order 42 ship?", response_schema=Shipping)
        speed = ctx.resumption.parse(Shipping).speed
        executed(f"ship {speed}")
        return f"shipping {speed}"

    model = ScriptedModel(
        [
            ModelResponse(
                text="Refunding order 42.", tool_calls=[call("refund", order_id=42, amount=30.0)]
            ),
            call("ship"),
            FINAL_TEXT,
        ]
    )
    return Agent(model=model, actions=[refund, ship], name="refunds")


def agent() -> Agent:
    """The agent as the command line builds it, from the environment."""
    count, gate = os.environ.get(COUNT_ENV), os.environ.get(GATE_ENV)
    return build(Path(count) if count else None, Path(gate) if gate else None)


def executions(count: Path) -> list[str]:
    """The executions written to `count` so far, oldest first."""
    return count.read_text(encoding="utf-8").splitlines() if count.exists() else []
