"""A run's pending interrupts on the wire: AG-UI envelopes with bindings, and how any
interrupt is classified as resumable or unbound."""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

import pytest
from ag_ui.core import Interrupt as AguiInterrupt
from pydantic import BaseModel, Field
from tests.interrupts.tanstack_node import TanStackNode

from pausepoint import ActionContext, ActionInterrupt, Agent, AgentRun, ScriptedModel, action, call
from pausepoint.interrupts import (
    BINDING_METADATA_KEY,
    PAYLOAD_METADATA_KEY,
    approval_response_schema,
    approval_schema_hash,
    classify,
    read_binding,
    schema_hash,
)


class Refund(BaseModel):
    order_id: int
    amount: float = Field(gt=0)


class Speed(BaseModel):
    speed: str


@action(needs_approval=True)
async def refund(input: Refund) -> str:
    """Refund an order."""
    return "refunded"


@action
async def ship(ctx: ActionContext) -> str:
    """Ask twice: the speed (with a schema), then a free-form note that expires."""
    if ctx.resumption is None:
        raise ActionInterrupt("Which speed?", {"options": ["slow", "fast"]}, response_schema=Speed)
    if len(ctx.history) == 1:
        raise ActionInterrupt("Any note?", expires_at=timedelta(hours=1))
    return "shipped"


async def _paused() -> AgentRun:
    model = ScriptedModel([[call("refund", order_id=42, amount=30.0), call("ship")], "Done."])
    run = Agent(model=model, actions=[refund, ship]).new_run("go")
    await run.run()
    return run


def _by_kind(run: AgentRun) -> dict[str, dict[str, Any]]:
    return {p.kind: p.to_agui() for p in run.pending}


async def test_tool_approval_renders_with_the_full_binding() -> None:
    run = await _paused()
    wire = _by_kind(run)["tool-approval"]
    record = next(run.prompt.tool_calls())
    input_schema = Refund.model_json_schema()

    assert AguiInterrupt.model_validate(wire).id == run.pending[0].id
    assert wire["reason"] == "tool_call"
    assert wire["toolCallId"] == record.id
    assert wire["responseSchema"] == approval_response_schema(input_schema)
    assert wire["metadata"][BINDING_METADATA_KEY] == {
        "v": 1,
        "kind": "tool-approval",
        "interruptId": run.pending[0].id,
        "interruptedRunId": run.id,
        "generation": 0,
        "toolName": "refund",
        "toolCallId": record.id,
        "originalArgs": {"order_id": 42, "amount": 30.0},
        "inputSchemaHash": schema_hash(input_schema),
        "approvalSchemaHash": approval_schema_hash(),
        "responseSchemaHash": schema_hash(approval_response_schema(input_schema)),
    }
    assert read_binding(wire) is not None


async def test_generic_renders_with_schema_hash_payload_and_generation() -> None:
    run = await _paused()
    wire = _by_kind(run)["generic"]
    binding = wire["metadata"][BINDING_METADATA_KEY]
    assert wire["reason"] == "input_required"
    assert wire["responseSchema"] == Speed.model_json_schema()
    assert binding["responseSchemaHash"] == schema_hash(Speed.model_json_schema())
    assert binding["generation"] == 0
    assert wire["metadata"][PAYLOAD_METADATA_KEY] == {"options": ["slow", "fast"]}

    approval = next(p for p in run.pending if p.kind == "tool-approval")
    await run.resume(True, interrupt=approval.id)
    await run.resume({"speed": "fast"})
    (second,) = run.pending
    wire = second.to_agui()
    binding = wire["metadata"][BINDING_METADATA_KEY]
    assert binding["generation"] == 1
    assert "responseSchemaHash" not in binding
    assert "responseSchema" not in wire
    assert wire["expiresAt"] == binding["expiresAt"]
    assert wire["expiresAt"].endswith("Z")
    assert read_binding(wire) is not None
    # the state's pending entries render the same as the run's
    assert run.state.pending[0].to_agui() == wire  # type: ignore[union-attr]


async def test_our_interrupts_classify_as_resumable() -> None:
    run = await _paused()
    for pending in run.pending:
        classified = classify(pending.to_agui())
        assert (classified.kind, classified.can_resolve) == (pending.kind, True)
        assert classified.id == pending.id
        assert classify(AguiInterrupt.model_validate(pending.to_agui())).can_resolve


async def test_foreign_or_tampered_interrupts_are_unbound() -> None:
    run = await _paused()
    ours = _by_kind(run)["generic"]
    tampered = copy.deepcopy(ours)
    tampered["responseSchema"] = {"type": "object", "properties": {"speed": {"type": "number"}}}
    future_version = copy.deepcopy(ours)
    future_version["metadata"][BINDING_METADATA_KEY]["v"] = 2
    cases: list[tuple[dict[str, Any], str]] = [
        ({"id": "wf-1", "reason": "confirmation", "message": "Approve the deploy?"}, "no binding"),
        (future_version, "not one this client can read"),
        (tampered, "does not match"),
    ]
    for interrupt, reason in cases:
        classified = classify(interrupt)
        assert classified.kind == "unbound"
        assert classified.can_resolve is False
        assert classified.unbound_reason is not None
        assert reason in classified.unbound_reason


@pytest.mark.node
async def test_tanstack_reads_a_run_interrupt_as_a_valid_binding(tanstack: TanStackNode) -> None:
    run = await _paused()
    wires = _by_kind(run)
    approval, generic = tanstack.read_bindings([wires["tool-approval"], wires["generic"]])
    assert approval is not None
    assert approval["kind"] == "tool-approval"
    assert approval["interruptId"] == wires["tool-approval"]["id"]
    assert approval["interruptedRunId"] == run.id
    assert approval["toolName"] == "refund"
    assert approval["originalArgs"] == {"order_id": 42, "amount": 30.0}
    assert approval["responseSchemaHash"] == schema_hash(wires["tool-approval"]["responseSchema"])
    assert generic is not None
    assert generic["kind"] == "generic"
    assert generic["responseSchemaHash"] == schema_hash(Speed.model_json_schema())
    assert generic["generation"] == 0
