"""The kinds of interrupt on the wire: ours (tool-approval, generic) and everyone else's.

`to_agui` renders a pending entry of a run as an AG-UI ``Interrupt`` with a binding a
TanStack AI client reads as resumable; `classify` reads any interrupt and says whether
it is resumable or unbound (visible, never answerable).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from ag_ui.core import Interrupt as AguiInterrupt
from pydantic import BaseModel

from pausepoint.interrupts._binding import BINDING_METADATA_KEY, read_binding, with_binding
from pausepoint.interrupts._schemas import (
    approval_response_schema,
    approval_schema_hash,
    schema_hash,
)
from pausepoint.transcript import InterruptEntry, ToolCall

__all__ = [
    "AGUI_REASONS",
    "PAYLOAD_METADATA_KEY",
    "AguiReason",
    "ClassifiedInterrupt",
    "InterruptKindName",
    "classify",
    "to_agui",
]

PAYLOAD_METADATA_KEY = "tanstack:interruptPayload"
"""Where an interrupt's display payload (our entry's `data`) travels in `metadata`."""

AguiReason = Literal["tool_call", "input_required"]
AGUI_REASONS: dict[str, AguiReason] = {"tool-approval": "tool_call", "generic": "input_required"}
"""The AG-UI `reason` a pause of each kind is offered to clients under (a breakpoint is
not offered: it has a reason of pausepoint's own and no binding)."""

InterruptKindName = Literal["tool-approval", "generic", "client-tool-execution", "unbound"]


def to_agui(
    record: ToolCall,
    entry: InterruptEntry,
    *,
    run_id: str,
    input_schema: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The AG-UI ``Interrupt`` (a camelCase wire dict) for one entry of a tool call.

    The binding's `interruptedRunId` is the AG-UI request that carried the pause
    (`entry.agui_run_id`), with `generation` 0 as TanStack's own server writes: a pause
    belongs to one request, so an answer to an older request's pause names another run.
    A pause raised outside any AG-UI request names `run_id` (the run's own id), and its
    `generation` is the entry's position in the call's history, so an answer to an older
    pause of the same call is detectably stale. `input_schema` is the action's
    (tool-approval hashes it; None hashes as the literal ``undefined``).
    """
    if entry.agui_run_id is not None:
        common: dict[str, Any] = {"interruptedRunId": entry.agui_run_id, "generation": 0}
    else:
        common = {"interruptedRunId": run_id, "generation": record.interrupts.index(entry)}
    descriptor: dict[str, Any] = {
        "id": entry.id,
        "message": entry.message,
        "toolCallId": record.id,
    }
    if entry.kind == "breakpoint":
        # A debugging pause, not a question for a client: no binding, so it is not
        # resumable there, under a reason of our own.
        descriptor |= {
            "reason": "pausepoint:breakpoint",
            "metadata": {"kind": "breakpoint", "toolName": record.name},
        }
        AguiInterrupt.model_validate(descriptor)
        return descriptor
    if entry.kind == "tool-approval":
        response_schema = approval_response_schema(input_schema)
        # What the action will run with: arguments edited at an earlier pause (a
        # breakpoint's "edit arguments") replace the model's.
        args = record.effective_input
        descriptor |= {
            "reason": AGUI_REASONS["tool-approval"],
            "responseSchema": response_schema,
            "metadata": {"kind": "approval", "toolName": record.name, "input": args},
        }
        binding = common | {
            "kind": "tool-approval",
            "toolName": record.name,
            "toolCallId": record.id,
            "originalArgs": args,
            "inputSchemaHash": schema_hash(input_schema),
            "approvalSchemaHash": approval_schema_hash(),
            "responseSchemaHash": schema_hash(response_schema),
        }
    else:
        descriptor |= {"reason": AGUI_REASONS["generic"], "metadata": {}}
        binding = common | {"kind": "generic"}
        if entry.response_schema is not None:
            descriptor["responseSchema"] = entry.response_schema
            binding["responseSchemaHash"] = schema_hash(entry.response_schema)
        if entry.data is not None:
            descriptor["metadata"][PAYLOAD_METADATA_KEY] = entry.data
    if entry.expires_at is not None:
        descriptor["expiresAt"] = binding["expiresAt"] = _js_time(entry.expires_at)
    wire = with_binding(descriptor, binding)
    AguiInterrupt.model_validate(wire)  # the envelope is AG-UI's own
    return wire


@dataclass(frozen=True, slots=True)
class ClassifiedInterrupt:
    """An interrupt as a client sees it: its kind, and whether it can be answered."""

    interrupt: dict[str, Any]
    kind: InterruptKindName
    binding: dict[str, Any] | None
    can_resolve: bool
    unbound_reason: str | None = None

    @property
    def id(self) -> str:
        return str(self.interrupt.get("id", ""))

    @property
    def message(self) -> str | None:
        message = self.interrupt.get("message")
        return message if isinstance(message, str) else None


def classify(interrupt: Mapping[str, Any] | BaseModel) -> ClassifiedInterrupt:
    """Read any AG-UI interrupt (a wire dict or an ``ag_ui.core.Interrupt``).

    Resumable when it carries a binding that reads as valid and whose response-schema
    hash matches the schema it shows; otherwise ``unbound`` with ``can_resolve=False``
    and the reason. Never raises for a dict.
    """
    wire = _as_wire(interrupt)
    binding = read_binding(wire)
    if binding is None:
        has_key = isinstance(wire.get("metadata"), Mapping) and BINDING_METADATA_KEY in wire.get(
            "metadata", {}
        )
        why = "its binding is not one this client can read" if has_key else "it has no binding"
        return ClassifiedInterrupt(wire, "unbound", None, False, f"Paused elsewhere: {why}.")
    claimed = binding.get("responseSchemaHash")
    shown = wire.get("responseSchema")
    if claimed is not None and (not isinstance(shown, Mapping) or schema_hash(shown) != claimed):
        return ClassifiedInterrupt(
            wire,
            "unbound",
            dict(binding),
            False,
            "Paused elsewhere: its response schema does not match the hash in its binding.",
        )
    return ClassifiedInterrupt(wire, binding["kind"], dict(binding), True)


def _as_wire(interrupt: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
    if isinstance(interrupt, BaseModel):
        dumped: dict[str, Any] = interrupt.model_dump(
            mode="json", by_alias=True, exclude_unset=True
        )
        return dumped
    return dict(interrupt)


def _js_time(moment: datetime) -> str:
    """ISO-8601 as JavaScript's toISOString writes it (UTC, milliseconds, Z)."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
