"""What a view shows for each pending interrupt: plain JSON cards (see js/README.md)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .._json import json_path
from ..actions import Action
from ..interrupts import PAYLOAD_METADATA_KEY, ClassifiedInterrupt
from ..run import PendingInterrupt

__all__ = ["card_for", "foreign_card", "validated_arguments", "with_unique_keys"]


def validated_arguments(action: Action | None, args: Any) -> dict[str, Any]:
    """What the action will receive for `args`, as the card shows it.

    ``{"validatedArgs": {...}}`` with every field after validation (coerced values and
    defaults included), or ``{"argsProblems": [{path, message}, ...]}`` when `args` do not
    fit the action's input; empty without an action to ask.
    """
    if action is None:
        return {}
    try:
        validated = action.validate_input(args)
    except ValidationError as exc:
        return {
            "argsProblems": [
                {"path": json_path(err["loc"]), "message": err["msg"]} for err in exc.errors()
            ]
        }
    try:
        return {"validatedArgs": validated.model_dump(mode="json", by_alias=True)}
    except (ValueError, TypeError):
        # A value without a JSON form (e.g. an arbitrary object): the raw input is all
        # there is to show.
        return {}


def card_for(pending: PendingInterrupt, action: Action | None) -> dict[str, Any]:
    """The card of one pending interrupt of this run."""
    entry, record = pending.interrupt, pending.tool_call
    approval = entry.kind == "tool-approval"
    card: dict[str, Any] = {
        "id": entry.id,
        "key": entry.id,
        "kind": entry.kind,
        "canResolve": True,
        "message": entry.message,
        "reason": "confirmation" if approval else "input_required",
        "data": entry.data,
        "toolCallId": record.id,
        "toolName": record.name,
        "args": record.effective_input,
        "inputSchema": action.input_schema()
        if (approval or entry.kind == "breakpoint") and action is not None
        else None,
        "responseSchema": entry.response_schema,
        "createdAt": entry.created_at.isoformat(),
        "expiresAt": entry.expires_at.isoformat() if entry.expires_at else None,
    }
    if approval:
        card.update(validated_arguments(action, record.effective_input))
    return card


def foreign_card(classified: ClassifiedInterrupt, run_id: str) -> dict[str, Any]:
    """The read-only card of another producer's interrupt; its key is namespaced, as its
    id may be one of this run's own."""
    wire = classified.interrupt
    binding = classified.binding or {}
    if classified.kind == "unbound":
        reason = classified.unbound_reason
    else:
        owner = binding.get("interruptedRunId", "another run")
        reason = f"It belongs to {owner}, not to this run ({run_id})."
    metadata = wire.get("metadata")
    payload = metadata.get(PAYLOAD_METADATA_KEY) if isinstance(metadata, dict) else None
    return {
        "id": classified.id,
        "key": f"foreign:{classified.id}",
        "kind": "unbound",
        "canResolve": False,
        "message": classified.message or str(wire.get("reason", "")),
        "reason": reason,
        "data": payload,
        "toolCallId": wire.get("toolCallId"),
        "toolName": binding.get("toolName"),
        "args": None,
        "inputSchema": None,
        "responseSchema": None,
        "createdAt": "",
        "expiresAt": wire.get("expiresAt"),
    }


def with_unique_keys(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`cards` with each `key` made unique among them (a repeat gets `#2`, `#3`, ...)."""
    taken: set[str] = set()
    unique = []
    for card in cards:
        key = card["key"]
        n = 1
        while key in taken:
            n += 1
            key = f"{card['key']}#{n}"
        taken.add(key)
        unique.append({**card, "key": key})
    return unique
