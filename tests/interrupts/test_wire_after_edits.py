"""An approval asked after a breakpoint's "edit arguments" shows and binds the arguments
the action will run with, not the model's originals."""

from __future__ import annotations

from typing import Any

from ag_ui.core import ResumeEntry
from pydantic import BaseModel

from pausepoint import Agent, AgentRun, ScriptedModel, action, call
from pausepoint.interrupts import BINDING_METADATA_KEY, classify, read_binding


class Refund(BaseModel):
    order: int
    cents: int


ORIGINAL = {"order": 42, "cents": 12_000}
EDITED = {"order": 42, "cents": 700}


async def edited_then_asked(ran: list[Refund]) -> AgentRun:
    @action(needs_approval=True)
    async def refund(input: Refund) -> str:
        """Refund part of an order."""
        ran.append(input)
        return f"refunded {input.cents}"

    model = ScriptedModel([call("refund", **ORIGINAL), "Refunded."])
    run = Agent(model=model, actions=[refund]).new_run("Refund", breakpoints=["refund"])
    await run.run()
    await run.debug.edit(EDITED)
    return run


async def test_the_approval_envelope_carries_the_edited_arguments() -> None:
    run = await edited_then_asked([])

    (wire,) = run.agui_interrupts()

    assert run.pending[0].kind == "tool-approval"
    assert wire["metadata"]["input"] == EDITED
    binding = read_binding(wire)
    assert binding is not None
    assert binding["originalArgs"] == EDITED
    assert classify(wire).can_resolve is True


async def test_a_client_echoing_the_edited_binding_is_answered() -> None:
    ran: list[Refund] = []
    run = await edited_then_asked(ran)
    (wire,) = run.agui_interrupts()
    echoed: dict[str, Any] = wire["metadata"][BINDING_METADATA_KEY]

    result = await run.continue_with(
        [
            ResumeEntry(
                interruptId=wire["id"],
                status="resolved",
                payload={"approved": True},
                metadata={BINDING_METADATA_KEY: echoed},
            )
        ]
    )

    assert echoed["originalArgs"] != ORIGINAL
    assert result.status == "completed"
    assert ran == [Refund(**EDITED)]


async def test_approving_through_agui_runs_the_edited_arguments() -> None:
    ran: list[Refund] = []
    run = await edited_then_asked(ran)
    (wire,) = run.agui_interrupts()

    result = await run.continue_with(
        [ResumeEntry(interruptId=wire["id"], status="resolved", payload={"approved": True})]
    )

    assert result.status == "completed"
    assert ran == [Refund(**EDITED)]
