"""Finding things in a long transcript from the view, in the kernel.

The find bar asks `{type: "find", filter: {tool?, status?, text?}, from?, count?}` and
gets the number of matching steps with one page of them, as the view draws items
(`item_json`: large values as previews); `{type: "find", jump: {call: n} | "first-pause"
| "last-failure", count?}` gets the page of the transcript around that step. Only a page
travels, however long the run.

Each step's facts (its call number, tool, statuses and, once a text search asks for it,
its words) are kept in an index refreshed on each request: a step is read again only when
its record changed since, so a filter over 10,000 steps answers in a few milliseconds.
Statuses that depend on answers (edited, answered by a person) are read through
`pausepoint.transcript.decisions`, as everything else that reads an answer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

import pydantic_core

from ..errors import PausepointError
from ..transcript import AssistantMessage, Item, ToolCall
from ..transcript.decisions import Decision
from ._item_sync import item_json
from ._preview import PREVIEW_LIMIT
from ._requests import RequestRefused, Served
from .protocol import FIND_PAGE, FindRequest, FindStatus

if TYPE_CHECKING:
    from ._viewed import ViewedRun

__all__ = ["PAGE", "STATUSES", "Found", "TranscriptIndex", "find_handler"]

STATUSES: tuple[str, ...] = get_args(FindStatus.__value__)
"""The statuses a filter may ask for (`protocol.FindStatus`)."""
Jump = Literal["first-pause", "last-failure"]

PAGE = FIND_PAGE
"""Steps in one page of results, unless the request asks for another count."""
_WORDS_PER_ITEM = 4 * PREVIEW_LIMIT
"""How much of each step (its values' JSON, a message's text) a text search reads."""


@dataclass(frozen=True, slots=True)
class Filter:
    """What a find asks for; a step matches when it fits every part that is set."""

    tool: str | None = None
    status: FindStatus | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """Positions in the transcript, with what the view needs to draw them."""

    positions: Sequence[int]
    calls: int


def _decisions(call: ToolCall) -> list[Decision | None]:
    try:
        return call.decisions()
    except PausepointError:  # a hand-edited answer the loader would refuse: no decision
        return []


_BIT = {status: 1 << i for i, status in enumerate(STATUSES)}


def _statuses(call: ToolCall) -> int:
    """The statuses of a call, as bits of `_BIT`."""
    found = 0
    if call.status == "interrupted":
        found |= _BIT["waiting"]
    elif call.status in ("failed", "cancelled"):
        found |= _BIT[call.status]
    if call.interrupts:
        for decision in _decisions(call):
            if decision is None:
                continue
            if decision.args is not None:
                found |= _BIT["edited"]
            if decision.kind != "expired" and decision.by != "policy":
                found |= _BIT["answered"]
    return found


def _words(item: Item) -> str:
    """The text a search looks in, folded: a message's text; a call's name, its arguments
    (as given and as edited), result and error as JSON, its questions and the answers'
    words."""
    if not isinstance(item, ToolCall):
        return item.text[:_WORDS_PER_ITEM].casefold()
    values: list[Any] = [item.input, item.result]
    if item.error is not None:
        values.append(item.error.model_dump(mode="json"))
    if item.interrupts:
        for entry, decision in zip(item.interrupts, _decisions(item), strict=False):
            values.append(entry.message)
            if decision is not None:
                values += [decision.words, decision.args]
    text = pydantic_core.to_json(values, fallback=str)[:_WORDS_PER_ITEM]
    return f"{item.name}\n{text.decode(errors='ignore')}".casefold()


def _shown(item: AssistantMessage) -> bool:
    return bool(item.text) or not item.tool_calls or item.set_aside is not None


class TranscriptIndex:
    """The facts of each step of one transcript, kept current as it grows and changes.

    `items()` gives the transcript's items as they are now (a run's `prompt.items`). Safe
    to use from several threads (the view's requests may arrive on any of them). The facts
    are kept in flat lists of plain values: reading 10,000 steps again makes no objects the
    garbage collector would have to walk.
    """

    def __init__(self, items: Callable[[], Sequence[Item]]) -> None:
        self._items = items
        self._lock = threading.Lock()
        self._seen: list[Item] = []
        # What changes when a record changes (a record is updated in place): a call's
        # status, attempts, pauses, whether its latest pause waits, when it ended; for a
        # message, its length (kept in `_attempts`) and whether it was set aside (`_waits`).
        self._status: list[str | None] = []
        self._attempts: list[int] = []
        self._pauses: list[int] = []
        self._waits: list[bool] = []
        self._ended: list[Any] = []
        self._call: list[int] = []  # the call's number (1 for the first), 0 for a message
        self._tool: list[str | None] = []
        self._shown: list[bool] = []  # the view draws a row (a tools-only turn has none)
        self._bits: list[int] = []  # statuses, as bits of `_BIT`
        self._words: list[str | None] = []  # made when a text search first needs them

    def _refresh(self) -> int:
        """Bring the facts up to date; the number of tool calls."""
        items = list(self._items())
        lists: tuple[list[Any], ...] = (
            self._seen, self._status, self._attempts, self._pauses, self._waits, self._ended,
            self._call, self._tool, self._shown, self._bits, self._words,
        )  # fmt: skip
        for values in lists:
            del values[len(items) :]
        seen, status, attempts, pauses_, waits_, ended, numbers, tools, shown, bits, words = lists
        known = len(seen)
        calls = 0
        facts: tuple[Any, ...]
        # The steps known before: read again only those whose record changed.
        for position in range(known):
            item = items[position]
            if isinstance(item, ToolCall):
                calls += 1
                pauses = item.interrupts
                waits = bool(pauses) and pauses[-1].resolution is None
                if (
                    seen[position] is item
                    and status[position] == item.status
                    and attempts[position] == item.attempts
                    and pauses_[position] == len(pauses)
                    and waits_[position] == waits
                    and ended[position] == item.ended_at
                ):
                    continue
                facts = (
                    item, item.status, item.attempts, len(pauses), waits, item.ended_at,
                    calls, item.name, True, _statuses(item), None,
                )  # fmt: skip
            else:
                length = len(item.text)
                aside = isinstance(item, AssistantMessage) and item.set_aside is not None
                if (
                    seen[position] is item
                    and attempts[position] == length
                    and waits_[position] == aside
                ):
                    continue
                visible = not isinstance(item, AssistantMessage) or _shown(item)
                facts = (item, None, length, 0, aside, None, 0, None, visible, 0, None)
            for values, value in zip(lists, facts, strict=True):
                values[position] = value
        # The new steps, appended list by list (a first find reads every step).
        for position in range(known, len(items)):
            item = items[position]
            seen.append(item)
            words.append(None)
            if isinstance(item, ToolCall):
                calls += 1
                pauses = item.interrupts
                status.append(item.status)
                attempts.append(item.attempts)
                pauses_.append(len(pauses))
                waits_.append(bool(pauses) and pauses[-1].resolution is None)
                ended.append(item.ended_at)
                numbers.append(calls)
                tools.append(item.name)
                shown.append(True)
                bits.append(_statuses(item))
            else:
                status.append(None)
                attempts.append(len(item.text))
                pauses_.append(0)
                waits_.append(isinstance(item, AssistantMessage) and item.set_aside is not None)
                ended.append(None)
                numbers.append(0)
                tools.append(None)
                shown.append(not isinstance(item, AssistantMessage) or _shown(item))
                bits.append(0)
        return calls

    def find(self, where: Filter) -> Found:
        """The positions of the steps that fit `where`, in transcript order."""
        with self._lock:
            calls = self._refresh()
            needle = where.text.casefold() if where.text else None
            bit = _BIT[where.status] if where.status is not None else 0
            tools, bits, words = self._tool, self._bits, self._words
            found: list[int] = []
            for position, shown in enumerate(self._shown):
                if not shown:
                    continue
                if where.tool is not None and tools[position] != where.tool:
                    continue
                if bit and not bits[position] & bit:
                    continue
                if needle is not None:
                    text = words[position]
                    if text is None:
                        text = words[position] = _words(self._seen[position])
                    if needle not in text:
                        continue
                found.append(position)
            return Found(found, calls)

    def target(self, to: Jump | int) -> tuple[int | None, int]:
        """The position of call number `to`, of the first pause or of the last failure
        (None when there is none), and how many tool calls the run has."""
        with self._lock:
            calls = self._refresh()
            numbers = self._call
            if isinstance(to, int):
                if not 0 < to <= calls:
                    return None, calls
                return numbers.index(to), calls
            if to == "first-pause":
                paused = (p for p, n in enumerate(self._pauses) if n and numbers[p])
                return next(paused, None), calls
            failed = _BIT["failed"]
            last = (p for p in range(len(numbers) - 1, -1, -1) if self._bits[p] & failed)
            return next(last, None), calls

    def number_of(self, position: int) -> int | None:
        """The call number of the step at `position` (None for a message)."""
        with self._lock:
            number = self._call[position] if position < len(self._call) else 0
            return number or None


def _page(items: Sequence[Item], index: TranscriptIndex, positions: Sequence[int]) -> list[Any]:
    return [
        {"position": p, "call": index.number_of(p), "item": item_json(items[p], p)}
        for p in positions
        if p < len(items)
    ]


def find_handler(run: ViewedRun) -> Callable[[FindRequest], Served]:
    """The handler of a run view's `find` requests."""
    index = TranscriptIndex(lambda: run.prompt.items)

    def handle(request: FindRequest) -> Served:
        started = time.perf_counter()
        count = request.count
        if request.jump is not None:
            to = request.jump if isinstance(request.jump, str) else request.jump.call
            position, calls = index.target(to)
            if position is None and isinstance(to, int):
                raise RequestRefused(
                    "not-found",
                    f"This run has {calls:,} tool calls; there is no call {to:,}.",
                    name="NotFound",
                )
            items = run.prompt.items
            start = 0 if position is None else max(0, position - count // 2)
            page = [] if position is None else range(start, min(len(items), start + count))
            value: dict[str, Any] = {
                "target": position,
                "call": None if position is None else index.number_of(position),
                "calls": calls,
                "items": _page(items, index, page),
            }
        else:
            asked = request.filter
            text = asked.text if asked.text and asked.text.strip() else None
            found = index.find(Filter(asked.tool or None, asked.status, text))
            start = request.from_
            items = run.prompt.items
            value = {
                "total": len(found.positions),
                "calls": found.calls,
                "from": start,
                "items": _page(items, index, found.positions[start : start + count]),
            }
        value["ms"] = round((time.perf_counter() - started) * 1000, 2)
        return Served(value)

    return handle
