"""What a `RemoteRun` checks before it sends an answer: which pause it is for, that edited
arguments fit the schema the server sent, and the shape of AG-UI resume entries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from .._json import json_path
from .._response_schema import answer_validator
from ..errors import (
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    InvalidResolutionError,
    NoPendingInterruptError,
    ResolutionProblem,
    UnknownInterruptError,
    UsageError,
)
from ..interrupts import ClassifiedInterrupt
from ..transcript import InterruptEntry, Prompt, ToolCall, utc_now

__all__ = ["check_edits", "input_schemas", "resume_entries", "target"]


def input_schemas(heard: Sequence[ClassifiedInterrupt]) -> dict[str, dict[str, Any]]:
    """Each paused tool's input schema, by tool name, as its approval's response schema
    shows it (the `editedArgs` of the approve branch)."""
    schemas: dict[str, dict[str, Any]] = {}
    for classified in heard:
        name = (classified.binding or {}).get("toolName")
        schema = classified.interrupt.get("responseSchema")
        if classified.kind != "tool-approval" or not isinstance(name, str):
            continue
        for branch in schema.get("oneOf", []) if isinstance(schema, Mapping) else []:
            properties = branch.get("properties") if isinstance(branch, Mapping) else None
            edited = properties.get("editedArgs") if isinstance(properties, Mapping) else None
            if isinstance(edited, Mapping):
                schemas[name] = dict(edited)
    return schemas


def check_edits(
    heard: Sequence[ClassifiedInterrupt], record: ToolCall, edited: Mapping[str, Any]
) -> None:
    """Raise `InvalidResolutionError` when edited arguments do not fit the input schema the
    server sent with the approval (with none, the server alone checks them)."""
    schema = input_schemas(heard).get(record.name)
    if schema is None:
        return
    problems = [
        ResolutionProblem(
            json_path(error.absolute_path, "$.editedArgs"), error.message, "invalid-edited-args"
        )
        for error in answer_validator(schema).iter_errors(dict(edited))
    ]
    if problems:
        raise InvalidResolutionError(
            problems, summary=f"The edited arguments do not fit {record.name}'s input"
        )


def target(
    prompt: Prompt, foreign: Sequence[ClassifiedInterrupt], interrupt_id: str | None
) -> tuple[ToolCall, InterruptEntry]:
    """The pause an answer is for: by id, or the only one pending; refused with the error
    a local run gives (and a hint when the id is another producer's)."""
    if interrupt_id is not None:
        found = prompt.find_interrupt(interrupt_id)
        if found is None:
            shown = {c.interrupt.get("id") for c in foreign}
            hint = (
                " It was shown from another producer and cannot be answered here; "
                "use remote.continue_with([...]) with the entry its server expects."
                if interrupt_id in shown
                else ""
            )
            raise UnknownInterruptError(
                f"This run has no answerable interrupt {interrupt_id!r}.{hint}"
            )
        if not found[1].is_pending:
            raise InterruptAlreadyResolvedError(
                f"Interrupt {interrupt_id!r} was already answered; nothing was changed."
            )
        record, entry = found
    else:
        pending = prompt.pending()
        if not pending:
            elsewhere = " Open interrupts from another producer: use remote.continue_with."
            raise NoPendingInterruptError(
                "Nothing answerable is pending here." + (elsewhere if foreign else "")
            )
        if len(pending) > 1:
            raise UnknownInterruptError(
                f"{len(pending)} interrupts are pending; say which one with "
                f"interrupt=<id>, one of {[e.id for _, e in pending]}."
            )
        record, entry = pending[0]
    if entry.expires_at is not None and entry.expires_at <= utc_now():
        raise InterruptExpiredError(
            f"Interrupt {entry.id!r} expired at {entry.expires_at.isoformat()}."
        )
    return record, entry


def resume_entries(entries: Iterable[Mapping[str, Any] | BaseModel]) -> list[dict[str, Any]]:
    """AG-UI resume entries as wire dicts, each with an id and a known status."""
    out: list[dict[str, Any]] = []
    for entry in entries:
        wire = (
            entry.model_dump(mode="json", by_alias=True, exclude_none=True)
            if isinstance(entry, BaseModel)
            else dict(entry)
        )
        if not isinstance(wire.get("interruptId"), str):
            raise UsageError(f"A resume entry needs an interruptId: {wire!r}.")
        if wire.get("status") not in ("resolved", "cancelled"):
            raise UsageError(
                f"A resume entry's status is 'resolved' or 'cancelled', not {wire.get('status')!r}."
            )
        out.append(wire)
    return out
