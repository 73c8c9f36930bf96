"""What a view shows for each pending interrupt: plain JSON cards (see js/README.md)."""

from __future__ import annotations

from typing import Any

from ..actions import Action
from ..run import PendingInterrupt

__all__ = ["card_for"]


def card_for(pending: PendingInterrupt, action: Action | None) -> dict[str, Any]:
    """The card of one pending interrupt of this run."""
    entry, record = pending.interrupt, pending.tool_call
    approval = entry.kind == "tool-approval"
    return {
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
