"""An inbox entry as the view gets it, bounded: every text a stored run's header holds (its
id, agent name, a pause's message and tool) is cut past `PREVIEW_LIMIT` bytes, saying how
much is left out, as a run view cuts an interrupt's message (`cut_text`). A row written
outside pausepoint may hold anything; what reaches the browser stays small."""

from __future__ import annotations

from typing import Any

from ..store import PendingSummary, RunSummary
from ._cards import Card
from ._preview import bounded_card, cut_text

__all__ = ["entry_of", "read_only_entry"]

READ_ONLY = "This kernel cannot continue the run."
# A read-only card is never answered: its ids are only shown, and can be cut too.
_READ_ONLY_TEXTS = ("id", "key", "toolCallId", "toolName")


def entry_of(summary: RunSummary) -> dict[str, Any]:
    """The entry of a waiting run from its header row alone, without cards or title."""
    return {
        "runId": cut_text(summary.run_id),
        "agent": None if summary.agent is None else cut_text(summary.agent),
        "updatedAt": summary.updated_at.isoformat(),
        "createdAt": summary.created_at.isoformat(),
        "reason": None,
        "title": "",
        "cards": [],
    }


def read_only_entry(entry: dict[str, Any], summary: RunSummary) -> dict[str, Any]:
    """`entry` of a run whose agent this kernel lacks: its pauses from the header row,
    shown and not answerable, with the reason."""
    name = repr(entry["agent"])
    reason = (
        f"Read-only: this kernel has no agent {name}. Pass it as "
        f"pausepoint.inbox(store, agents={{{name}: agent}}) to answer here."
    )
    return {
        **entry,
        "reason": cut_text(reason),
        "cards": [_read_only_card(p) for p in summary.pending],
    }


def _read_only_card(pending: PendingSummary) -> dict[str, Any]:
    card = bounded_card(Card.read_only(pending, READ_ONLY).wire(), "")
    for key in _READ_ONLY_TEXTS:
        if isinstance(card.get(key), str):
            card[key] = cut_text(card[key])
    return card
