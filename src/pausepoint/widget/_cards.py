"""What a view shows for each pending interrupt: plain JSON cards (see js/README.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from .._json import json_path
from ..actions import Action
from ..interrupts import AGUI_REASONS, PAYLOAD_METADATA_KEY, AguiReason, ClassifiedInterrupt
from ..run import PendingInterrupt
from ..store import PendingSummary

__all__ = ["Card", "card_for", "foreign_card", "validated_arguments", "with_unique_keys"]


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


@dataclass(frozen=True, slots=True)
class Card:
    """What a view shows for one pause, and whether it can be answered there.

    `agui_reason` is the pause's AG-UI `reason` (None for a pause AG-UI clients are not
    offered: a breakpoint, another producer's interrupt); `read_only_reason` is the
    sentence a person reads when the card cannot be answered here.
    """

    id: str
    key: str
    kind: str
    message: str
    can_resolve: bool
    agui_reason: AguiReason | None = None
    read_only_reason: str | None = None
    data: Any = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    args: dict[str, Any] | None = None
    input_schema: dict[str, Any] | None = None
    response_schema: dict[str, Any] | None = None
    created_at: str = ""
    expires_at: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """What only some cards carry: `validatedArgs` / `argsProblems` of an approval."""
    read_from: str | None = None
    """The producer whose pause this card was read from by its shape (no binding)."""
    decisions: tuple[str, ...] | None = None
    """What that producer takes, of approve, edit, respond and reject (None: all)."""

    @classmethod
    def own(
        cls,
        pending: PendingInterrupt,
        action: Action | None,
        read_from: str | None = None,
        decisions: tuple[str, ...] | None = None,
    ) -> Card:
        """A pause of this run, answerable here (`read_from`: the producer whose pause it
        was read from, for one without pausepoint's binding; `decisions`: what that
        producer takes)."""
        entry, record = pending.interrupt, pending.tool_call
        approval = entry.kind == "tool-approval"
        edits = approval or entry.kind == "breakpoint"
        return cls(
            id=entry.id,
            key=entry.id,
            kind=entry.kind,
            message=entry.message,
            can_resolve=True,
            agui_reason=AGUI_REASONS.get(entry.kind),
            data=entry.data,
            tool_call_id=record.id,
            tool_name=record.name,
            args=record.effective_input,
            input_schema=_input_schema(pending, action) if edits else None,
            response_schema=entry.response_schema,
            created_at=entry.created_at.isoformat(),
            expires_at=entry.expires_at.isoformat() if entry.expires_at else None,
            extra=validated_arguments(action, record.effective_input) if approval else {},
            read_from=read_from,
            decisions=decisions,
        )

    @classmethod
    def foreign(cls, classified: ClassifiedInterrupt, run_id: str, how: str | None = None) -> Card:
        """Another producer's interrupt, shown and never answerable; its key is
        namespaced, as its id may be one of this run's own. `how` says how it can be
        answered elsewhere."""
        wire = classified.interrupt
        binding = classified.binding or {}
        if classified.kind == "unbound":
            why = classified.unbound_reason
        else:
            owner = binding.get("interruptedRunId", "another run")
            why = f"It belongs to {owner}, not to this run ({run_id})."
        if how:
            why = f"{why} {how}"
        metadata = wire.get("metadata")
        payload = metadata.get(PAYLOAD_METADATA_KEY) if isinstance(metadata, dict) else None
        return cls(
            id=classified.id,
            key=f"foreign:{classified.id}",
            kind="unbound",
            message=classified.message or str(wire.get("reason", "")),
            can_resolve=False,
            read_only_reason=why,
            data=payload,
            tool_call_id=wire.get("toolCallId"),
            tool_name=binding.get("toolName"),
            expires_at=wire.get("expiresAt"),
        )

    @classmethod
    def read_only(cls, pending: PendingSummary, why: str) -> Card:
        """A stored run's pause that this kernel cannot answer (`why` says so)."""
        return cls(
            id=pending.interrupt_id,
            key=pending.interrupt_id,
            kind=pending.kind,
            message=pending.message,
            can_resolve=False,
            read_only_reason=why,
            tool_call_id=pending.tool_call_id,
            tool_name=pending.tool_name,
            created_at=pending.created_at.isoformat(),
            expires_at=pending.expires_at.isoformat() if pending.expires_at else None,
        )

    def wire(self) -> dict[str, Any]:
        """The card as the front end reads it (see js/src/types.ts, `PendingCard`)."""
        return {
            "id": self.id,
            "key": self.key,
            "kind": self.kind,
            "canResolve": self.can_resolve,
            "message": self.message,
            "aguiReason": self.agui_reason,
            "readOnlyReason": self.read_only_reason,
            "data": self.data,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": self.args,
            "inputSchema": self.input_schema,
            "responseSchema": self.response_schema,
            "createdAt": self.created_at,
            "expiresAt": self.expires_at,
            "readFrom": self.read_from,
            "decisions": list(self.decisions) if self.decisions is not None else None,
            **self.extra,
        }


def _input_schema(pending: PendingInterrupt, action: Action | None) -> dict[str, Any] | None:
    """The schema a person's edited arguments must fit: the action's, or (for a run whose
    actions live elsewhere) the one its pause was sent with."""
    if action is not None:
        return action.input_schema()
    return dict(pending.input_schema) if pending.input_schema is not None else None


def card_for(
    pending: PendingInterrupt,
    action: Action | None,
    read_from: str | None = None,
    decisions: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The wire card of one pending interrupt of this run."""
    return Card.own(pending, action, read_from, decisions).wire()


def foreign_card(
    classified: ClassifiedInterrupt, run_id: str, how: str | None = None
) -> dict[str, Any]:
    """The wire card of another producer's interrupt (`how`: how to answer it elsewhere)."""
    return Card.foreign(classified, run_id, how).wire()


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
