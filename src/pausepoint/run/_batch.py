"""Checking a batch of AG-UI resume entries against a run, before any of it is applied.

A web client continues an interrupted run with one resume entry per open interrupt
(`{interruptId, status: "resolved" | "cancelled", payload?, metadata?}`). The whole
batch is checked first; one bad entry means nothing is applied.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from .._json import json_size
from ..actions import Action
from ..errors import InvalidResolutionError, NotJSONError, ResumeItemError, UsageError
from ..interrupts import BINDING_METADATA_KEY, read_binding, to_agui
from ..transcript import (
    ErrorInfo,
    InterruptEntry,
    Prompt,
    RejectResolution,
    ResumeResolution,
    ToolCall,
)
from ._accept import DEFAULT_MAX_ANSWER_BYTES, accept_answer

__all__ = ["CANCELLED", "cancellation", "check_batch", "is_replay", "offered", "wire_entries"]

CANCELLED = ErrorInfo(name="Cancelled", message="The user cancelled this interrupt.")
_ITEM_CODES = {"invalid-payload", "invalid-edited-args"}


def wire_entries(entries: Iterable[Mapping[str, Any] | BaseModel]) -> list[dict[str, Any]]:
    """Resume entries as camelCase dicts; ag_ui models keep an explicit `payload: null`."""
    out: list[dict[str, Any]] = []
    for entry in entries:
        if isinstance(entry, BaseModel):
            out.append(entry.model_dump(mode="json", by_alias=True, exclude_unset=True))
        elif isinstance(entry, Mapping):
            out.append(dict(entry))
        else:
            raise UsageError(
                "Resume entries are dicts like {'interruptId': ..., 'status': 'resolved', "
                f"'payload': ...}}, or ag_ui.core.ResumeEntry objects, not {type(entry).__name__}."
            )
    return out


def is_replay(prompt: Prompt, items: list[dict[str, Any]]) -> bool:
    """True when every entry matches an answer already recorded: applying it again is a no-op."""
    if not items:
        return False
    for item in items:
        interrupt_id = item.get("interruptId")
        found = prompt.find_interrupt(interrupt_id) if isinstance(interrupt_id, str) else None
        if found is None:
            return False
        resolution = found[1].resolution
        if item.get("status") == "resolved":
            if not isinstance(resolution, ResumeResolution) or resolution.data != item.get(
                "payload"
            ):
                return False
        elif item.get("status") == "cancelled":
            if not isinstance(resolution, RejectResolution) or resolution.error != cancellation(
                item
            ):
                return False
        else:
            return False
    return True


def check_batch(
    prompt: Prompt,
    items: list[dict[str, Any]],
    *,
    actions: Mapping[str, Action],
    response_model: Callable[[str], type[BaseModel] | None],
    now: datetime,
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    parent_run_id: str | None = None,
) -> list[ResumeItemError]:
    """Every reason to refuse the batch, per entry, plus a batch-level incomplete-batch.
    With `parent_run_id` (the continuation's), a pause carried by another AG-UI request
    is stale."""
    errors: list[ResumeItemError] = []
    counts = Counter(item.get("interruptId") for item in items)
    covered: set[str] = set()
    for item in items:
        interrupt_id = item.get("interruptId")
        if not isinstance(interrupt_id, str) or not interrupt_id:
            errors.append(ResumeItemError("unknown-interrupt", "The entry has no interruptId."))
            continue
        if interrupt_id in covered:
            continue
        covered.add(interrupt_id)
        if counts[interrupt_id] > 1:
            errors.append(
                ResumeItemError(
                    "conflict",
                    f"{counts[interrupt_id]} entries answer this interrupt; send exactly one.",
                    interrupt_id,
                )
            )
            continue
        errors.extend(
            _check_item(
                prompt,
                item,
                interrupt_id,
                actions,
                response_model,
                now,
                max_answer_bytes,
                parent_run_id,
            )
        )
    errors.extend(
        ResumeItemError(
            "incomplete-batch",
            "This interrupt is pending but the batch has no entry for it; a batch answers "
            "every open interrupt (cancel the ones you decline).",
            entry.id,
        )
        for _, entry in prompt.pending()
        if entry.id not in covered and offered(entry)
    )
    return errors


def offered(entry: InterruptEntry) -> bool:
    """Whether AG-UI clients are offered this pause as resumable: a breakpoint is a
    debugging control, answered through `run.debug`, so it neither blocks a batch nor is
    driven through one."""
    return entry.kind != "breakpoint"


def cancellation(item: Mapping[str, Any]) -> ErrorInfo:
    """What the model sees for a cancelled entry: `metadata.reason` when the client gave one."""
    metadata = item.get("metadata")
    reason = metadata.get("reason") if isinstance(metadata, Mapping) else None
    if isinstance(reason, str) and reason.strip():
        return ErrorInfo(name=CANCELLED.name, message=reason.strip())
    return CANCELLED


def _check_item(
    prompt: Prompt,
    item: dict[str, Any],
    interrupt_id: str,
    actions: Mapping[str, Action],
    response_model: Callable[[str], type[BaseModel] | None],
    now: datetime,
    max_answer_bytes: int,
    parent_run_id: str | None,
) -> list[ResumeItemError]:
    def refuse(code: Any, message: str, path: str | None = None) -> list[ResumeItemError]:
        return [ResumeItemError(code, message, interrupt_id, path)]

    status = item.get("status")
    if status not in ("resolved", "cancelled"):
        return refuse(
            "invalid-payload", f"status must be 'resolved' or 'cancelled', not {status!r}."
        )
    if status == "cancelled" and "payload" in item:
        return refuse("invalid-payload", "A cancelled entry carries no payload, not even null.")
    found = prompt.find_interrupt(interrupt_id)
    if found is None:
        return refuse("unknown-interrupt", "This run has no interrupt with that id.")
    record, entry = found
    if not offered(entry):
        return refuse(
            "unknown-interrupt",
            "That is a debugging breakpoint, which is not offered to AG-UI clients; answer it "
            "in the notebook (run.debug.continue_(), step(), skip() or edit(...)).",
        )
    if not entry.is_pending:
        return refuse("stale", f"That pause was already answered. {_REFETCH}")
    asked = entry.agui_run_id
    if parent_run_id is not None and asked is not None and asked != parent_run_id:
        return refuse(
            "stale",
            f"That pause was carried by AG-UI run {asked!r}, and this continuation answers "
            f"run {parent_run_id!r} (its parentRunId). {_REFETCH}",
        )
    action = actions.get(record.name)
    drift = _binding_problem(prompt, item, record, entry, action)
    if drift is not None:
        return refuse(*drift)
    if entry.expires_at is not None and entry.expires_at <= now:
        return refuse("expired", f"The interrupt expired at {entry.expires_at.isoformat()}.")
    if status == "cancelled":
        size = json_size(cancellation(item).model_dump())
        if size > max_answer_bytes:
            return refuse(
                "invalid-payload",
                f"The cancellation's reason is {size:,} bytes of JSON; at most "
                f"{max_answer_bytes:,} are accepted (Agent(max_answer_bytes=...)).",
                "$.metadata.reason",
            )
        return []
    try:
        accept_answer(
            entry,
            item.get("payload"),
            action=action,
            response_model=response_model(entry.id),
            max_bytes=max_answer_bytes,
            what="The payload",
        )
    except NotJSONError as exc:
        return refuse("invalid-payload", str(exc), exc.path)
    except InvalidResolutionError as exc:
        return [
            ResumeItemError(
                p.code if p.code in _ITEM_CODES else "invalid-payload",  # type: ignore[arg-type]
                p.message,
                interrupt_id,
                p.path,
            )
            for p in exc.problems
        ]
    return []


def _binding_problem(
    prompt: Prompt,
    item: dict[str, Any],
    record: ToolCall,
    entry: InterruptEntry,
    action: Action | None,
) -> tuple[str, str] | None:
    """Compare the binding the client echoes (if any) with the one the pause has now."""
    metadata = item.get("metadata")
    if not isinstance(metadata, Mapping) or BINDING_METADATA_KEY not in metadata:
        return None
    echoed = read_binding({"id": entry.id, "metadata": metadata})
    if echoed is None:
        return ("stale", f"{_REFETCH} Its binding does not read as one of this run's pauses.")
    input_schema = action.input_schema() if action is not None else None
    current = read_binding(to_agui(record, entry, run_id=prompt.run_id, input_schema=input_schema))
    assert current is not None  # what to_agui writes always reads back
    if (echoed["interruptedRunId"], echoed["generation"]) != (
        current["interruptedRunId"],
        current["generation"],
    ):
        return ("stale", f"{_REFETCH} It belongs to another run or an older pause of this call.")
    for key in ("responseSchemaHash", "inputSchemaHash"):
        if echoed.get(key) != current.get(key):
            return (
                "invalid-response-schema",
                f"{_REFETCH} The schema changed since this pause was shown ({key} differs).",
            )
    return None


_REFETCH = "Fetch the pending interrupts again (run.agui_interrupts()) and answer those."
