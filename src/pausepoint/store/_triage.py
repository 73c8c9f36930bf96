"""Triage: what a person clearing a batch of waiting runs lists them by, from header rows.

Each run's header row keeps a title (the one given when the run was created, else its
first user message, cut to `TITLE_CHARS`), the kind of its first pause, the key arguments
of the call that pauses (its top-level values, each bounded, as JSON) and who set it aside
with Ignore, and when. `triage_query` lists runs by them: filtered, sorted by age or by a
key argument (numbers as numbers), a page at a time with the total count, without reading
a transcript.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import StoreUsageError
from ._contract import PendingSummary

__all__ = [
    "ARGUMENT_CHARS",
    "MAX_ARGUMENTS",
    "TITLE_CHARS",
    "TRIAGE_STATUSES",
    "TriageQuery",
    "backfill",
    "key_arguments",
    "title_of",
    "triage_query",
]

TITLE_CHARS = 200
"""How many characters of a run's title (or first user message) its header row keeps."""
ARGUMENT_CHARS = 200
"""How many characters of a text argument the header row keeps."""
MAX_ARGUMENTS = 16
"""How many of a pausing call's top-level arguments the header row keeps."""
MAX_PAGE = 1000
"""The most runs one page lists."""

TRIAGE_STATUSES: Mapping[str, str] = {
    "waiting": "interrupted",
    "failed": "failed",
    "stopped": "cancelled",
}
"""The statuses a triage list shows, by the name a person filters with, and the run
status each stands for."""

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_ORDERS = ("newest", "oldest")


def title_of(texts: Iterable[str], title: str | None = None) -> str | None:
    """A run's title as its header keeps it: `title` when given, else the first of
    `texts` (its user messages), on one line and cut to `TITLE_CHARS`."""
    chosen = title if title is not None else next(iter(texts), None)
    if chosen is None:
        return None
    line = " ".join(chosen.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def key_arguments(arguments: Mapping[str, Any]) -> str | None:
    """The key arguments of a call as its header keeps them: the first `MAX_ARGUMENTS`
    top-level values that are numbers, booleans, texts (cut to `ARGUMENT_CHARS`) or
    null, as a JSON object; None when there are none."""
    kept: dict[str, Any] = {}
    for name, value in arguments.items():
        if len(kept) >= MAX_ARGUMENTS:
            break
        if not isinstance(name, str) or not _KEY.fullmatch(name):
            continue
        if isinstance(value, str):
            kept[name] = value if len(value) <= ARGUMENT_CHARS else value[:ARGUMENT_CHARS] + "…"
        elif value is None or isinstance(value, bool | int | float):
            if isinstance(value, float) and value != value:  # NaN has no JSON
                continue
            kept[name] = value
    return json.dumps(kept, ensure_ascii=False, allow_nan=False) if kept else None


def pause_columns(pending: Sequence[PendingSummary]) -> tuple[str | None, str | None]:
    """The kind of a run's first pause and its call's key arguments (header columns)."""
    if not pending:
        return None, None
    return pending[0].kind, pending[0].arguments


@dataclass(frozen=True, slots=True)
class TriageQuery:
    """A listing checked and turned into SQL: `where` and `params` filter, `facet_where`
    and `facet_params` keep only the status and Ignore filters, `order` sorts."""

    where: str
    params: tuple[Any, ...]
    facet_where: str
    facet_params: tuple[Any, ...]
    order: str
    offset: int
    limit: int


def triage_query(
    *,
    status: str | Sequence[str],
    agent: str | None,
    kind: str | None,
    text: str | None,
    ignored: bool | None,
    sort: str,
    offset: int,
    limit: int,
    argument: Callable[[str], str],
    message: str,
) -> TriageQuery:
    """Check a listing's options (`StoreUsageError` says what is wrong) and build its SQL.
    `argument(key)` is the dialect's expression for a key argument's value, sortable;
    `message` its expression for the first pause's message."""
    names = [status] if isinstance(status, str) else list(status)
    unknown = [n for n in names if n not in TRIAGE_STATUSES]
    if unknown or not names:
        raise StoreUsageError(
            f"status must be one or more of {', '.join(TRIAGE_STATUSES)}, not {status!r}."
        )
    for name, number in (("offset", offset), ("limit", limit)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise StoreUsageError(f"{name} must be a whole number, 0 or more, not {number!r}.")
    if limit > MAX_PAGE:
        raise StoreUsageError(f"A page lists at most {MAX_PAGE} runs; ask for fewer.")
    for name, value in (("agent", agent), ("kind", kind), ("text", text)):
        if value is not None and not isinstance(value, str):
            raise StoreUsageError(f"{name} must be text or None, not {value!r}.")
    if ignored is not None and not isinstance(ignored, bool):
        raise StoreUsageError(f"ignored must be True, False or None, not {ignored!r}.")
    order = _order(sort, argument)
    statuses = [TRIAGE_STATUSES[n] for n in dict.fromkeys(names)]
    where = [f"status IN ({', '.join('?' for _ in statuses)})"]
    params: list[Any] = list(statuses)
    if ignored is not None:
        where.append("ignored_at IS NOT NULL" if ignored else "ignored_at IS NULL")
    facet_where, facet_params = " AND ".join(where), tuple(params)
    if agent is not None:
        where.append("agent = ?")
        params.append(agent)
    if kind is not None:
        where.append("pause_kind = ?")
        params.append(kind)
    if text and text.strip():
        # One lowered text per row, searched once: what a person reads in the row (not
        # the pending entries' ids and times), joined by a space.
        words = " || ' ' || ".join(
            f"COALESCE({column}, '')"
            for column in ("title", "agent", message, "pause_args", "run_id")
        )
        where.append(f"LOWER({words}) LIKE ? ESCAPE '\\'")
        params.append("%" + _escape(text.strip().lower()) + "%")
    return TriageQuery(
        " AND ".join(where), tuple(params), facet_where, facet_params, order, offset, limit
    )


def _order(sort: str, argument: Callable[[str], str]) -> str:
    if not isinstance(sort, str):
        raise StoreUsageError(f"sort must be text, not {sort!r}.")
    if sort == "newest":
        return "updated_at DESC, run_id"
    if sort == "oldest":
        return "updated_at ASC, run_id"
    key = sort.removeprefix("-")
    if not _KEY.fullmatch(key):
        raise StoreUsageError(
            f"sort must be 'newest', 'oldest', a key argument's name (e.g. 'amount', smallest "
            f"first) or '-' and the name ('-amount', largest first), not {sort!r}."
        )
    value = argument(key)
    direction = "DESC" if sort.startswith("-") else "ASC"
    # Runs without the argument come last either way; the value is read once per row.
    return f"{value} {direction} NULLS LAST, updated_at DESC, run_id"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


Run = Callable[[Any, str, Sequence[Any]], Any]


def backfill(cur: Any, run: Run) -> None:
    """Give the header rows of an older store their triage columns: the title from the
    first user message, the first pause's kind and its call's key arguments. A row that
    does not read keeps them empty (its damage shows when it is loaded)."""
    rows = run(cur, "SELECT run_id, pending FROM pausepoint_runs", ()).fetchall()
    for run_id, pending in rows:
        title, kind, arguments = _triage_of(cur, run, run_id, pending)
        run(
            cur,
            "UPDATE pausepoint_runs SET title = ?, pause_kind = ?, pause_args = ? WHERE run_id = ?",
            (title, kind, arguments, run_id),
        )


def _triage_of(
    cur: Any, run: Run, run_id: str, pending: Any
) -> tuple[str | None, str | None, str | None]:
    try:
        waits = json.loads(pending)
        first = waits[0] if isinstance(waits, list) and waits else None
    except (TypeError, ValueError):
        first = None
    title: str | None = None
    kind = first.get("kind") if isinstance(first, dict) else None
    call = first.get("tool_call_id") if isinstance(first, dict) else None
    arguments: str | None = None
    for (text,) in run(
        cur, "SELECT item FROM pausepoint_items WHERE run_id = ? ORDER BY position", (run_id,)
    ).fetchall():
        try:
            item = json.loads(text)
        except (TypeError, ValueError):
            continue
        if not isinstance(item, dict):
            continue
        if title is None and item.get("type") == "user" and isinstance(item.get("text"), str):
            title = title_of([item["text"]])
            if call is None:
                break
        if call is not None and item.get("type") == "tool" and item.get("id") == call:
            given = item.get("input")
            arguments = key_arguments(given) if isinstance(given, dict) else None
    return title, kind if isinstance(kind, str) else None, arguments
