"""Forks: a new run that goes back to a point of another run's past and goes on from there.

A fork copies its parent's transcript up to the point it goes back to and leaves it
paused there, so that nothing before that point is asked of the model again:

- at an interrupt (its id): that pause is open again, to be answered another way;
- at a tool call (its id): the call is paused before it runs again, by a breakpoint
  whose card edits its arguments; the calls of its turn before it keep their outcomes,
  and those after it run after it, as the loop runs them;
- at a model turn (`ModelTurn(n)`): the transcript ends before assistant turn `n`, paused
  before the model is asked again; `AgentRun.edit_item` changes a user message or a
  tool result before it is.

`fork_name` names a fork by what made it: "declined at refund", "edited cents at
refund", "asked again at turn 3" (turns counted from 1), "went back to refund".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import UnknownInterruptError, UsageError
from ..transcript import (
    AssistantMessage,
    ForkOrigin,
    InterruptEntry,
    ModelPause,
    Prompt,
    ToolCall,
    UserMessage,
    new_id,
)
from ..transcript.decisions import Decision

__all__ = ["GONE_BACK", "ModelTurn", "edits_said", "fork_name", "fork_prompt"]

GONE_BACK = "fork"
"""The `why` of the breakpoint a fork at a tool call pauses with (its `data["why"]`)."""

_LISTED = 20  # ids an error lists before it says how many more there are


@dataclass(frozen=True, slots=True)
class ModelTurn:
    """A model turn to fork at: ``run.fork(at=ModelTurn(3))`` goes back to just before
    the model was asked for assistant turn 3 (0 = the first, counting turns set aside by
    Retry, as `run.model_request` does; -1 = the latest)."""

    n: int

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int):
            raise UsageError(
                f"ModelTurn takes an int (0 = the first assistant turn), not {self.n!r}."
            )


def fork_prompt(prompt: Prompt, at: str | ModelTurn) -> Prompt:
    """A copy of `prompt` gone back to `at` (an interrupt id, a tool call id, or a
    `ModelTurn`), paused there, with a new run id and `parent` naming where it came from.
    Raises `UnknownInterruptError` for an id the run does not have, `UsageError` for a
    turn it does not have, each saying what the run has."""
    if isinstance(at, ModelTurn):
        return _at_turn(prompt, at.n)
    if not isinstance(at, str):
        raise UsageError(
            "fork(at=...) takes an interrupt id, a tool call id (both str) or "
            f"ModelTurn(n), not {at!r}."
        )
    for index, item in enumerate(prompt.items):
        if isinstance(item, ToolCall) and any(e.id == at for e in item.interrupts):
            return _at_interrupt(prompt, index, item, at)
    calls = [
        i for i, item in enumerate(prompt.items) if isinstance(item, ToolCall) and item.id == at
    ]
    if len(calls) > 1:
        raise UsageError(
            f"Tool call id {at!r} answers requests of {len(calls)} turns of this run; fork "
            "at one of those turns with at=ModelTurn(n) instead."
        )
    if calls:
        return _at_call(prompt, calls[0])
    raise UnknownInterruptError(_nothing_at(prompt, at))


def _copy(prompt: Prompt, end: int, origin: ForkOrigin) -> dict[str, Any]:
    data = prompt.model_dump(mode="json")
    data["items"] = data["items"][:end]
    data["run_id"] = new_id("run")
    data["parent"] = origin.model_dump(mode="json")
    data["model_pause"] = None
    return data


def _turn_end(prompt: Prompt, index: int) -> int:
    """The position after the last tool call record of the turn holding `index`."""
    end = index + 1
    while end < len(prompt.items) and isinstance(prompt.items[end], ToolCall):
        end += 1
    return end


def _at_interrupt(prompt: Prompt, index: int, record: ToolCall, interrupt_id: str) -> Prompt:
    origin = ForkOrigin(run_id=prompt.run_id, interrupt_id=interrupt_id)
    data = _copy(prompt, _turn_end(prompt, index), origin)
    position = next(i for i, e in enumerate(record.interrupts) if e.id == interrupt_id)
    entries = data["items"][index]["interrupts"][: position + 1]
    entries[-1]["resolution"] = None
    # Each generic pause ends one execution of the action: count those up to this one.
    attempts = sum(1 for e in record.interrupts[: position + 1] if e.kind == "generic")
    data["items"][index] |= {
        "interrupts": entries,
        "status": "interrupted",
        "result": None,
        "error": None,
        "cancellation": None,
        "attempts": attempts,
        "ended_at": data["items"][index]["ended_at"] if attempts else None,
    }
    return Prompt.model_validate(data)


def _at_call(prompt: Prompt, index: int) -> Prompt:
    record = prompt.items[index]
    assert isinstance(record, ToolCall)
    origin = ForkOrigin(run_id=prompt.run_id, tool_call_id=record.id)
    data = _copy(prompt, _turn_end(prompt, index), origin)
    pause = InterruptEntry(
        kind="breakpoint",
        message=f"Went back to {record.name}: edit its arguments, then continue, or skip it.",
        data={"toolName": record.name, "args": record.input, "why": GONE_BACK},
    )
    data["items"][index] = _fresh(record) | {
        "status": "interrupted",
        "interrupts": [pause.model_dump(mode="json")],
    }
    for later in range(index + 1, len(data["items"])):
        later_record = prompt.items[later]
        assert isinstance(later_record, ToolCall)
        data["items"][later] = _fresh(later_record)
    return Prompt.model_validate(data)


def _fresh(record: ToolCall) -> dict[str, Any]:
    """`record` as the model asked for it, before anything ran."""
    return ToolCall(id=record.id, name=record.name, input=record.input).model_dump(mode="json")


def _at_turn(prompt: Prompt, turn: int) -> Prompt:
    positions = [i for i, item in enumerate(prompt.items) if isinstance(item, AssistantMessage)]
    n = turn + len(positions) if turn < 0 else turn
    if not 0 <= n < len(positions):
        raise UsageError(
            f"This run has {len(positions)} assistant turn(s): fork at ModelTurn(0) to "
            f"ModelTurn({len(positions) - 1}), or ModelTurn(-1) for the latest."
            if positions
            else "This run has no assistant turn yet: there is no model turn to fork at."
        )
    data = _copy(prompt, positions[n], ForkOrigin(run_id=prompt.run_id, turn=n))
    data["model_pause"] = ModelPause().model_dump(mode="json")
    return Prompt.model_validate(data)


def _listed(ids: list[str]) -> str:
    if not ids:
        return "none"
    shown = ", ".join(repr(i) for i in ids[-_LISTED:])
    more = len(ids) - _LISTED
    return f"{shown} and {more} earlier" if more > 0 else shown


def _nothing_at(prompt: Prompt, at: str) -> str:
    interrupts = [e.id for r in prompt.tool_calls() for e in r.interrupts]
    calls = [f"{r.id} ({r.name})" for r in prompt.tool_calls()]
    turns = sum(1 for item in prompt.items if isinstance(item, AssistantMessage))
    said = (
        f"This run has no interrupt or tool call {at!r} to fork at. Its interrupts: "
        f"{_listed(interrupts)}. Its tool calls: {_listed(calls)}."
    )
    if turns:
        said += f" Or fork before a model turn with at=ModelTurn(n), n from 0 to {turns - 1}."
    return said


# -- names ---------------------------------------------------------------------------------

_DONE = {
    "approved": "approved at {name}",
    "declined": "declined at {name}",
    "responded": "responded at {name}",
    "expired": "let expire at {name}",
    "answered": "answered at {name}",
    "continued": "ran {name} again",
    "stepped": "ran {name} again",
    "skipped": "skipped {name}",
}


def fork_name(prompt: Prompt) -> str | None:
    """What made the fork `prompt` (None: not a fork), in a few words: "declined at
    refund", "edited cents at refund", "asked again at turn 3" (turns counted from 1),
    "went back to refund". Read from the fork's own transcript, so it follows what was
    done there."""
    origin = prompt.parent
    if origin is None:
        return None
    if origin.turn is not None and origin.tool_call_id is None and origin.interrupt_id is None:
        return _turn_name(prompt, origin.turn)
    for record in prompt.tool_calls():
        if origin.interrupt_id is not None:
            ids = [e.id for e in record.interrupts]
            if origin.interrupt_id in ids:
                return _call_name(record, ids.index(origin.interrupt_id))
        elif origin.tool_call_id == record.id and record.interrupts:
            return _call_name(record, 0)
    return f"forked from {origin.run_id}"


def _call_name(record: ToolCall, start: int) -> str:
    decisions = [d for d in record.decisions()[start:] if d is not None]
    changed = _changed(decisions)
    if changed:
        return f"edited {', '.join(changed)} at {record.name}"
    if not decisions:
        return f"went back to {record.name}"
    last = decisions[-1]
    return _DONE.get(last.kind, last.kind + " at {name}").format(name=record.name)


def _changed(decisions: Iterable[Decision]) -> list[str]:
    names: list[str] = []
    for decision in decisions:
        for change in decision.changes:
            if change.name not in names:
                names.append(change.name)
    return names


def _turn_name(prompt: Prompt, turn: int) -> str:
    edits = edits_said(prompt)
    said = f"asked again at turn {turn + 1}"  # people count turns from 1
    return f"{said} {edits}" if edits else said


def edits_said(prompt: Prompt) -> str:
    """What a person edited in a fork made at a model turn, in a few words ("with the
    message edited", "with the result of lookup edited", "with 2 items edited"); empty
    when nothing was."""
    origin = prompt.parent
    if origin is None:
        return ""
    edited = [prompt.items[i] for i in origin.edited if 0 <= i < len(prompt.items)]
    if not edited:
        return ""
    if len(edited) > 1:
        return f"with {len(edited)} items edited"
    item = edited[0]
    if isinstance(item, UserMessage):
        return "with the message edited"
    if isinstance(item, ToolCall):
        return f"with the result of {item.name} edited"
    return "with an item edited"
