"""Rows and their JSON: what both SQL stores write and read, database-independent."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from pydantic import ValidationError

from ..errors import InvalidTranscriptError, StoreUsageError
from ..transcript import ForkOrigin, ModelPause, Prompt, ToolCall
from ._contract import PendingSummary, RunSummary, Seconds
from ._triage import key_arguments

__all__ = [
    "HEADER_COLUMNS",
    "aware",
    "damage_of",
    "fork_origin_to_json",
    "model_pause_to_json",
    "pending_from_json",
    "pending_of",
    "pending_to_json",
    "prompt_from_rows",
    "seconds",
    "summary_from_row",
]

_T = TypeVar("_T")

# The order `summary_from_row` reads a header row in.
HEADER_COLUMNS = (
    "run_id, thread_id, agent, status, pending, version, item_count, created_at, "
    "updated_at, lease_owner, lease_expires_at, parent_run_id, parent_interrupt_id, "
    "title, pause_args, ignored_by, ignored_at"
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
        arguments=key_arguments(record.input),
    )


def model_pause_to_json(pause: ModelPause | None) -> str | None:
    """A stepping run's pause before the model, as its header column holds it."""
    return pause.model_dump_json() if pause is not None else None


def fork_origin_to_json(origin: ForkOrigin | None) -> str | None:
    """Where a fork came from (its parent run and fork point), as its header column holds
    it."""
    return origin.model_dump_json() if origin is not None else None


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


class Unreadable(ValueError):
    """A column of a row holds what pausepoint never writes there (the text says what)."""


def pending_from_json(text: str) -> tuple[PendingSummary, ...]:
    """The pending column as written by `pending_to_json`; raises `Unreadable` (with what
    is wrong) for anything else."""
    try:
        entries = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise Unreadable(f"its pending column is not JSON ({exc})") from None
    if not isinstance(entries, list):
        raise Unreadable("its pending column is not a list")
    try:
        return tuple(
            PendingSummary(
                interrupt_id=_text(p["interrupt_id"]),
                kind=_text(p["kind"]),
                message=_text(p["message"]),
                tool_call_id=_text(p["tool_call_id"]),
                tool_name=_text(p["tool_name"]),
                created_at=datetime.fromisoformat(p["created_at"]),
                expires_at=datetime.fromisoformat(p["expires_at"]) if p["expires_at"] else None,
            )
            for p in entries
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise Unreadable(f"its pending column does not list interrupts ({exc!r})") from None


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise Unreadable(f"{value!r} is not text")
    return value


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def summary_from_row(row: Any, to_datetime: Callable[[Any], datetime]) -> RunSummary:
    """A `RunSummary` from a row selected as HEADER_COLUMNS; `to_datetime` reads the
    database's timestamps. A field someone made unreadable does not stop the listing: it
    reads as empty and `damage` says what is wrong."""
    damage: list[str] = []

    def read(what: str, parse: Callable[[], _T], empty: _T) -> _T:
        try:
            return parse()
        except (TypeError, ValueError, OverflowError) as exc:
            damage.append(str(exc) if what == "pending" else f"its {what} is unreadable ({exc})")
            return empty

    def number(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unreadable(f"{value!r} is not a number")
        return value

    lease_expires = row[10]
    summary = RunSummary(
        run_id=row[0],
        thread_id=row[1],
        agent=row[2],
        # "ready" is how pausepoint spelled "idle" before a run had one status.
        status="idle" if row[3] == "ready" else row[3],
        pending=read("pending", lambda: pending_from_json(row[4]), ()),
        version=read("version", lambda: number(row[5]), 0),
        item_count=read("item count", lambda: number(row[6]), 0),
        created_at=read("creation time", lambda: to_datetime(row[7]), _EPOCH),
        updated_at=read("update time", lambda: to_datetime(row[8]), _EPOCH),
        lease_owner=row[9],
        lease_expires_at=read(
            "lease expiry",
            lambda: to_datetime(lease_expires) if lease_expires is not None else None,
            None,
        ),
        parent_run_id=row[11],
        parent_interrupt_id=row[12],
        title=read("title", lambda: _optional_text(row[13]), None),
        arguments=read("key arguments", lambda: _arguments(row[14]), {}),
        ignored_by=read("ignoring person", lambda: _optional_text(row[15]), None),
        ignored_at=read(
            "ignore time",
            lambda: aware(datetime.fromisoformat(_text(row[16]))) if row[16] is not None else None,
            None,
        ),
    )
    if damage:
        return replace(summary, damage="; ".join(damage))
    return summary


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _arguments(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    arguments = json.loads(_text(value))
    if not isinstance(arguments, dict):
        raise Unreadable("it is not a JSON object")
    return arguments


def prompt_from_rows(
    *,
    schema_version: int,
    thread_id: str,
    run_id: str,
    instructions: str | None,
    items: Iterable[str],
    parent: tuple[str, str] | None = None,
    model_pause: str | None = None,
    fork_origin: str | None = None,
    owner: str | None = None,
) -> Prompt:
    """The Prompt that was saved, from its header fields and its items' JSON, in one
    validating parse. A fork's origin is `fork_origin` (its JSON, fork point included);
    stores of version 3 and older kept only `parent` (run and interrupt ids)."""
    origin: Any = None
    if fork_origin is not None:
        origin = json.loads(fork_origin)
    elif parent is not None:
        origin = {"run_id": parent[0], "interrupt_id": parent[1]}
    head = json.dumps(
        {
            "schema_version": schema_version,
            "thread_id": thread_id,
            "run_id": run_id,
            "instructions": instructions,
        }
        | ({"parent": origin} if origin is not None else {})
        | ({"model_pause": json.loads(model_pause)} if model_pause is not None else {})
        | ({"owner": owner} if owner is not None else {}),
        ensure_ascii=False,
    )
    return Prompt.model_validate_json(head[:-1] + ', "items": [' + ",".join(items) + "]}")


def damage_of(exc: BaseException) -> str:
    """What is wrong with a stored transcript that does not load, in one line."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        where = ".".join(str(step) for step in errors[0]["loc"]) if errors else ""
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        message = errors[0]["msg"] if errors else str(exc)
        return f"its transcript does not load: {f'at {where}, ' if where else ''}{message}{more}"
    if isinstance(exc, InvalidTranscriptError) and exc.problems:
        first = exc.problems[0]
        more = f" (and {len(exc.problems) - 1} more problems)" if len(exc.problems) > 1 else ""
        return f"its transcript does not load: at {first.path}, {first.message}{more}"
    if isinstance(exc, json.JSONDecodeError):
        return f"a column of its header is not JSON ({exc})"
    return f"its transcript does not load ({exc})"
