"""The rules a Prompt obeys, checked when one is built or loaded.

The run keeps these by construction; a transcript edited by hand, corrupted, or written
by other code may not, and would otherwise load and fail later or silently ignore some
of its entries. Each rule is a small function that yields the problems it finds; add one
to `RULES` to check something more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

from pydantic_core import TzInfo

from .._json import check_text, is_plain_json, is_plain_text, to_json_value
from .._response_schema import check_response_schema
from ..errors import (
    InvalidResolutionError,
    InvalidResponseSchemaError,
    InvalidTranscriptError,
    NotJSONError,
)
from ..errors import TranscriptProblem as Problem
from . import (
    AssistantMessage,
    InterruptEntry,
    Item,
    Prompt,
    ResumeResolution,
    ToolCall,
    UserMessage,
    set_aside_replies,
)
from .decisions import decision_of

__all__ = ["RULES", "check_prompt"]

Rule = Callable[[Prompt], Iterator[Problem]]


def check_prompt(prompt: Prompt, *, parsed: bool = False) -> bool:
    """Raise `InvalidTranscriptError` listing every problem the `RULES` find; else return
    whether some turn is set aside (the check reads every message anyway).

    `parsed` says the prompt was just read from JSON text: its parser refuses lone
    surrogates and integers of more digits than `MAX_INT_DIGITS`, and the transcript's
    timestamps refuse to be read without a timezone (see `transcript.Timestamp`)."""
    passes, aside = _passes(prompt, full=not parsed)
    if passes:
        return aside
    problems = [problem for rule in RULES for problem in rule(prompt)]
    if problems:
        raise InvalidTranscriptError(problems)
    return bool(set_aside_replies(prompt.items))


def values_are_json(prompt: Prompt) -> Iterator[Problem]:
    """Every recorded value and text would be saved and loaded back unchanged."""
    for path, value, is_text in _values(prompt):
        try:
            if is_text:
                check_text(value, path)
            else:
                to_json_value(value, path)
        except NotJSONError as exc:
            where = path + exc.path[1:]
            yield Problem(where, f"not JSON that loads back: {exc.reason}", "values-are-json")


def interrupt_ids_are_unique(prompt: Prompt) -> Iterator[Problem]:
    """Answers name an interrupt by id; two entries with one id make that ambiguous."""
    seen: dict[str, str] = {}
    for path, entry in _entries(prompt):
        if entry.id in seen:
            yield Problem(
                f"{path}.id",
                f"the interrupt id {entry.id!r} is already used at {seen[entry.id]}",
                "interrupt-ids-are-unique",
            )
        else:
            seen[entry.id] = path


def only_the_latest_entry_waits(prompt: Prompt) -> Iterator[Problem]:
    """A call waits on its newest entry only; an unanswered one below it would be lost."""
    for index, record in _records(prompt):
        for position, entry in enumerate(record.interrupts[:-1]):
            if entry.is_pending:
                yield Problem(
                    f"items[{index}].interrupts[{position}]",
                    "this entry has no answer, but a newer entry of the same call follows it",
                    "only-the-latest-entry-waits",
                )


def interrupts_wait_in_the_latest_turn(prompt: Prompt) -> Iterator[Problem]:
    """The run only moves on once a turn's interrupts are answered, so an unanswered one
    in an earlier turn could never be answered."""
    last_assistant = max(
        (i for i, item in enumerate(prompt.items) if isinstance(item, AssistantMessage)),
        default=-1,
    )
    for index, record in _records(prompt):
        latest = record.latest_interrupt
        if index < last_assistant and latest is not None and latest.is_pending:
            yield Problem(
                f"items[{index}].interrupts[{len(record.interrupts) - 1}]",
                "this entry has no answer, but the run has moved on to a later turn",
                "interrupts-wait-in-the-latest-turn",
            )


def set_aside_turns_wait_on_nobody(prompt: Prompt) -> Iterator[Problem]:
    """Retry sets a turn aside only once nothing in it waits: an answer to a call the
    model no longer reads would go nowhere."""
    aside = False
    for index, item in enumerate(prompt.items):
        if isinstance(item, AssistantMessage):
            aside = item.set_aside is not None
        elif isinstance(item, UserMessage):
            aside = False
        elif aside and item.pending_interrupt is not None:
            yield Problem(
                f"items[{index}].interrupts[{len(item.interrupts) - 1}]",
                "this entry has no answer, but its turn was set aside",
                "set-aside-turns-wait-on-nobody",
            )


def tool_records_answer_requests(prompt: Prompt) -> Iterator[Problem]:
    """Each tool record answers one tool call of the assistant message of its turn."""
    requests: dict[str, str] = {}
    answered: set[str] = set()
    for index, item in enumerate(prompt.items):
        if isinstance(item, AssistantMessage):
            requests = {call.id: call.name for call in item.tool_calls}
            answered = set()
        elif isinstance(item, UserMessage):
            requests, answered = {}, set()
        elif isinstance(item, ToolCall):
            where = f"items[{index}]"
            if item.id not in requests:
                yield Problem(
                    f"{where}.id",
                    f"no tool call {item.id!r} was requested by the assistant message of this turn",
                    "tool-records-answer-requests",
                )
            elif requests[item.id] != item.name:
                yield Problem(
                    f"{where}.name",
                    f"the request {item.id!r} called {requests[item.id]!r}, not {item.name!r}",
                    "tool-records-answer-requests",
                )
            elif item.id in answered:
                yield Problem(
                    f"{where}.id",
                    f"the request {item.id!r} already has a record in this turn",
                    "tool-records-answer-requests",
                )
            answered.add(item.id)


def timestamps_are_aware(prompt: Prompt) -> Iterator[Problem]:
    """Deadlines are compared with the current time in UTC and the timeline subtracts
    start from end; a naive timestamp can do neither."""
    for index, item in enumerate(prompt.items):
        for position, name, stamp in _stamps(item):
            if stamp is not None and stamp.utcoffset() is None:
                entry = "" if position is None else f".interrupts[{position}]"
                yield _naive(f"items[{index}]{entry}.{name}")
    if prompt.model_pause is not None and prompt.model_pause.at.utcoffset() is None:
        yield _naive("model_pause.at")


def _stamps(item: Item) -> Iterator[tuple[int | None, str, datetime | None]]:
    """(interrupt position or None, name, timestamp) for every timestamp of an item.

    Paths are spelled out only for a naive one: this runs on every load."""
    if isinstance(item, ToolCall):
        yield None, "started_at", item.started_at
        yield None, "ended_at", item.ended_at
        if item.cancellation is not None:
            yield None, "cancellation.at", item.cancellation.at
        for position, entry in enumerate(item.interrupts):
            yield position, "created_at", entry.created_at
            yield position, "expires_at", entry.expires_at
            if entry.resolution is not None:
                yield position, "resolution.at", entry.resolution.at
    elif isinstance(item, AssistantMessage):
        if item.call is not None:
            yield None, "call.started_at", item.call.started_at
            yield None, "call.ended_at", item.call.ended_at
        if item.set_aside is not None:
            yield None, "set_aside.at", item.set_aside.at


def _naive(path: str) -> Problem:
    return Problem(
        path,
        "a timestamp without a timezone; write it with one, e.g. ...Z or +00:00",
        "timestamps-are-aware",
    )


def response_schemas_are_usable(prompt: Prompt) -> Iterator[Problem]:
    """Recorded response schemas pass the checks made when the action raised."""
    for path, entry in _entries(prompt):
        if entry.response_schema is None:
            continue
        try:
            check_response_schema(entry.response_schema)
        except InvalidResponseSchemaError as exc:
            yield Problem(
                f"{path}.response_schema{exc.path[1:]}",
                exc.reason,
                "response-schemas-are-usable",
            )


def a_fork_holds_its_parent_interrupt(prompt: Prompt) -> Iterator[Problem]:
    """A fork reopens the interrupt it was made at under the same id; without it there is
    nothing to answer differently and no way to tell the fork's branch from its parent's."""
    origin = prompt.parent
    if origin is None or origin.interrupt_id is None:
        return
    if not any(entry.id == origin.interrupt_id for _, entry in _entries(prompt)):
        yield Problem(
            "parent.interrupt_id",
            f"this run is a fork of {origin.run_id!r} at the interrupt "
            f"{origin.interrupt_id!r}, which is not in its transcript; restore the fork's "
            "saved transcript, or remove `parent` to load it as a run of its own",
            "a-fork-holds-its-parent-interrupt",
        )


def a_fork_holds_its_fork_point(prompt: Prompt) -> Iterator[Problem]:
    """A fork at a tool call holds that call, a fork at a model turn names a turn, and the
    items it lists as edited are messages or tool calls it has: what names the fork and
    what Compare lines up."""
    origin = prompt.parent
    if origin is None:
        return
    rule = "a-fork-holds-its-fork-point"
    if origin.tool_call_id is not None and not any(
        isinstance(item, ToolCall) and item.id == origin.tool_call_id for item in prompt.items
    ):
        yield Problem(
            "parent.tool_call_id",
            f"this run is a fork of {origin.run_id!r} at the tool call "
            f"{origin.tool_call_id!r}, which is not in its transcript; restore the fork's "
            "saved transcript, or remove `parent` to load it as a run of its own",
            rule,
        )
    if origin.turn is not None and origin.turn < 0:
        yield Problem(
            "parent.turn",
            f"the turn a fork went back to counts from 0, not {origin.turn}",
            rule,
        )
    for n, index in enumerate(origin.edited):
        item = prompt.items[index] if 0 <= index < len(prompt.items) else None
        if not isinstance(item, UserMessage | ToolCall):
            yield Problem(
                f"parent.edited[{n}]",
                f"position {index} is not a user message or tool call of this run's "
                f"{len(prompt.items)} items; keep only the positions of edited items",
                rule,
            )


def answers_fit_their_pause(prompt: Prompt) -> Iterator[Problem]:
    """Every recorded answer reads as a decision of its pause's kind (an approval is
    answered with true, false or {approved, ...}; a breakpoint with {action, ...}): the
    loop could not tell what one that does not was meant to decide."""
    for index, record in _records(prompt):
        for position, entry in enumerate(record.interrupts):
            try:
                decision_of(entry)
            except InvalidResolutionError as exc:
                at = f"items[{index}].interrupts[{position}].resolution.data"
                for problem in exc.problems:
                    yield Problem(
                        at + problem.path[1:],
                        f"not an answer to a {entry.kind} pause: {problem.message}",
                        "answers-fit-their-pause",
                    )


def _passes(prompt: Prompt, *, full: bool) -> tuple[bool, bool]:
    """True when no rule would find a problem, in one pass over the transcript.

    The rules run on every load and every built Prompt; they walk it nine times and
    spell a path for every value. This pass gathers the texts, values and timestamps,
    checks each group at once, and spells no path; without `full` it leaves out the
    texts and timestamps that reading JSON has checked. False only means "run the rules",
    which find and name each problem (or find none). The second value says whether some
    turn is set aside."""
    texts: list[Any] = [prompt.thread_id, prompt.run_id]
    values: list[Any] = []
    stamps: list[datetime | None] = []
    if prompt.instructions is not None:
        texts.append(prompt.instructions)
    if prompt.model_pause is not None:
        stamps.append(prompt.model_pause.at)
    ids: set[str] = set()
    requests: dict[str, str] = {}
    answered: set[str] = set()
    waiting = False  # a call's latest entry is unanswered: no assistant message may follow
    aside = False  # the current turn is set aside: none of its calls may wait
    any_aside = False
    for item in prompt.items:
        # A subclass of an item is left to the rules.
        if type(item) is ToolCall:
            if requests.get(item.id) != item.name or item.id in answered:
                return _FAILS
            answered.add(item.id)
            values += (item.input, item.result)
            if full:
                texts += (item.id, item.name)
                stamps += (item.started_at, item.ended_at)
                if item.cancellation is not None:
                    stamps.append(item.cancellation.at)
            entries = item.interrupts
            if entries:
                for entry in entries:
                    if entry.id in ids or (entry.resolution is None and entry is not entries[-1]):
                        return _FAILS
                    ids.add(entry.id)
                    if not _entry_passes(entry, values):
                        return _FAILS
                    if full:
                        texts += (entry.id, entry.message)
                        stamps += (entry.created_at, entry.expires_at)
                        if entry.resolution is not None:
                            stamps.append(entry.resolution.at)
                if entries[-1].resolution is None:
                    if aside:
                        return _FAILS
                    waiting = True
        elif type(item) is AssistantMessage:
            if waiting:
                return _FAILS
            requests = {}
            for request in item.tool_calls:
                values.append(request.input)
                requests[request.id] = request.name
            answered = set()
            aside = item.set_aside is not None
            any_aside = any_aside or aside
            if full:
                texts.append(item.text)
                for request in item.tool_calls:
                    texts += (request.id, request.name)
                if item.call is not None:
                    stamps += (item.call.started_at, item.call.ended_at)
                if item.set_aside is not None:
                    stamps.append(item.set_aside.at)
        elif type(item) is UserMessage:
            requests, answered, aside = {}, set(), False
            if full:
                texts.append(item.text)
        else:
            return _FAILS
    parent = prompt.parent
    if parent is not None and parent.interrupt_id is not None and parent.interrupt_id not in ids:
        return _FAILS
    if parent is not None and next(a_fork_holds_its_fork_point(prompt), None) is not None:
        return _FAILS
    if not is_plain_json(values):
        return _FAILS
    if not full:
        return True, any_aside
    try:
        joined = "".join(texts)
    except TypeError:
        return _FAILS
    if not is_plain_text(joined):
        return _FAILS
    zones = {type(stamp.tzinfo) for stamp in stamps if stamp is not None}
    return zones <= _FIXED_ZONES or all(_aware(stamp) for stamp in stamps), any_aside


_FAILS = (False, False)


def _entry_passes(entry: InterruptEntry, values: list[Any]) -> bool:
    values += (entry.data, entry.state)
    if entry.response_schema is not None:
        if not is_plain_json(entry.response_schema):
            return False
        try:
            check_response_schema(entry.response_schema)
        except InvalidResponseSchemaError:
            return False
    resolution = entry.resolution
    if resolution is None:
        return True
    if isinstance(resolution, ResumeResolution):
        values.append(resolution.data)
    try:
        decision_of(entry)
    except InvalidResolutionError:
        return False
    return True


_FIXED_ZONES = {timezone, TzInfo}
"""Zones whose offset never depends on the time: a stamp with one is aware."""


def _aware(stamp: datetime | None) -> bool:
    return stamp is None or stamp.utcoffset() is not None


RULES: list[Rule] = [
    values_are_json,
    interrupt_ids_are_unique,
    only_the_latest_entry_waits,
    interrupts_wait_in_the_latest_turn,
    set_aside_turns_wait_on_nobody,
    tool_records_answer_requests,
    timestamps_are_aware,
    response_schemas_are_usable,
    a_fork_holds_its_parent_interrupt,
    a_fork_holds_its_fork_point,
    answers_fit_their_pause,
]
"""Checked in this order; every problem of every rule is reported."""


def _records(prompt: Prompt) -> Iterator[tuple[int, ToolCall]]:
    for index, item in enumerate(prompt.items):
        if isinstance(item, ToolCall):
            yield index, item


def _entries(prompt: Prompt) -> Iterator[tuple[str, InterruptEntry]]:
    for index, record in _records(prompt):
        for position, entry in enumerate(record.interrupts):
            yield f"items[{index}].interrupts[{position}]", entry


def _values(prompt: Prompt) -> Iterator[tuple[str, Any, bool]]:
    """(path, value, is_text) for every recorded value and free text."""
    for name in ("thread_id", "run_id", "instructions"):
        value = getattr(prompt, name)
        if value is not None:
            yield name, value, True
    for index, item in enumerate(prompt.items):
        where = f"items[{index}]"
        if isinstance(item, UserMessage | AssistantMessage):
            yield f"{where}.text", item.text, True
        if isinstance(item, AssistantMessage):
            for position, call in enumerate(item.tool_calls):
                at = f"{where}.tool_calls[{position}]"
                yield f"{at}.id", call.id, True
                yield f"{at}.name", call.name, True
                yield f"{at}.input", call.input, False
        if isinstance(item, ToolCall):
            yield f"{where}.id", item.id, True
            yield f"{where}.name", item.name, True
            yield f"{where}.input", item.input, False
            yield f"{where}.result", item.result, False
            for position, entry in enumerate(item.interrupts):
                at = f"{where}.interrupts[{position}]"
                yield f"{at}.id", entry.id, True
                yield f"{at}.message", entry.message, True
                yield f"{at}.data", entry.data, False
                yield f"{at}.state", entry.state, False
                yield f"{at}.response_schema", entry.response_schema, False
                if isinstance(entry.resolution, ResumeResolution):
                    yield f"{at}.resolution.data", entry.resolution.data, False
