"""Rows and their JSON: what both SQL stores write and read, database-independent."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from ..transcript import ModelPause, Prompt, ToolCall
from ._contract import PendingSummary, RunSummary, Seconds
from ._errors import StoreUsageError

__all__ = [
    "HEADER_COLUMNS",
    "aware",
    "model_pause_to_json",
    "pending_from_json",
    "pending_of",
    "pending_to_json",
    "prompt_from_rows",
    "seconds",
    "summary_from_row",
]

# The order `summary_from_row` reads a header row in.
HEADER_COLUMNS = (
    "run_id, thread_id, agent, status, pending, version, item_count, created_at, "
    "updated_at, lease_owner, lease_expires_at, parent_run_id, parent_interrupt_id"
)


def aware(moment: datetime) -> datetime:
    """`moment` in UTC; a naive datetime is taken to be UTC already."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def seconds(ttl: Seconds) -> timedelta:
    delta = ttl if isinstance(ttl, timedelta) else timedelta(seconds=ttl)
    if delta <= timedelta(0):
        raise StoreUsageError(
            f"A lease needs a positive time to live, not {ttl!r}: pass seconds > 0."
        )
    return delta


def pending_of(prompt: Prompt) -> tuple[PendingSummary, ...]:
    """The unanswered interrupts of `prompt`, oldest first. Reads only the latest turn."""
    return tuple(_summary(record, entry) for record, entry in prompt.pending())


def _summary(record: ToolCall, entry: Any) -> PendingSummary:
    return PendingSummary(
        interrupt_id=entry.id,
        kind=entry.kind,
        message=entry.message,
        tool_call_id=record.id,
        tool_name=record.name,
        created_at=entry.created_at,
        expires_at=entry.expires_at,
    )


def model_pause_to_json(pause: ModelPause | None) -> str | None:
    """A stepping run's pause before the model, as its header column holds it."""
    return pause.model_dump_json() if pause is not None else None


def pending_to_json(pending: Iterable[PendingSummary]) -> str:
    return json.dumps(
        [
            {
                "interrupt_id": p.interrupt_id,
                "kind": p.kind,
                "message": p.message,
                "tool_call_id": p.tool_call_id,
                "tool_name": p.tool_name,
                "created_at": aware(p.created_at).isoformat(),
                "expires_at": aware(p.expires_at).isoformat() if p.expires_at else None,
            }
            for p in pending
        ],
        ensure_ascii=False,
    )


def pending_from_json(text: str) -> tuple[PendingSummary, ...]:
    return tuple(
        PendingSummary(
            interrupt_id=p["interrupt_id"],
            kind=p["kind"],
            message=p["message"],
            tool_call_id=p["tool_call_id"],
            tool_name=p["tool_name"],
            created_at=datetime.fromisoformat(p["created_at"]),
            expires_at=datetime.fromisoformat(p["expires_at"]) if p["expires_at"] else None,
        )
        for p in json.loads(text)
    )


def summary_from_row(row: Any, to_datetime: Any) -> RunSummary:
    """A `RunSummary` from a row selected as HEADER_COLUMNS; `to_datetime` reads the
    database's timestamps."""
    lease_expires = row[10]
    return RunSummary(
        run_id=row[0],
        thread_id=row[1],
        agent=row[2],
        status=row[3],
        pending=pending_from_json(row[4]),
        version=row[5],
        item_count=row[6],
        created_at=to_datetime(row[7]),
        updated_at=to_datetime(row[8]),
        lease_owner=row[9],
        lease_expires_at=to_datetime(lease_expires) if lease_expires is not None else None,
        parent_run_id=row[11],
        parent_interrupt_id=row[12],
    )


def prompt_from_rows(
    *,
    schema_version: int,
    thread_id: str,
    run_id: str,
    instructions: str | None,
    items: Iterable[str],
    parent: tuple[str, str] | None = None,
    model_pause: str | None = None,
) -> Prompt:
    """The Prompt that was saved, from its header fields and its items' JSON, in one
    validating parse."""
    head = json.dumps(
        {
            "schema_version": schema_version,
            "thread_id": thread_id,
            "run_id": run_id,
            "instructions": instructions,
        }
        | (
            {"parent": {"run_id": parent[0], "interrupt_id": parent[1]}}
            if parent is not None
            else {}
        )
        | ({"model_pause": json.loads(model_pause)} if model_pause is not None else {}),
        ensure_ascii=False,
    )
    return Prompt.model_validate_json(head[:-1] + ', "items": [' + ",".join(items) + "]}")
