"""Reading a run's past from its transcript: what the model was sent, and forks that go
back to a point of it (see `_forks`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from .._json import check_text, to_json_value
from ..errors import ForkMovedOnError, UsageError
from ..models import ActionSpec, ModelRequest
from ..transcript import (
    AssistantMessage,
    Prompt,
    ToolCall,
    UserMessage,
    read_by_model,
    set_aside_replies,
    set_fields,
)
from ._events import ItemEditedEvent
from ._forks import ModelTurn, fork_name, fork_prompt

if TYPE_CHECKING:
    from ._run import AgentRun

__all__ = ["ModelTurn", "RunHistory", "fork_name", "fork_prompt", "model_request"]

_UNSET: Any = object()


def model_request(prompt: Prompt, turn: int, actions: Sequence[ActionSpec]) -> ModelRequest:
    """The request behind assistant turn `turn` (0 = the first, counting turns set aside
    by Retry): the instructions, every item before that turn's message but the turns
    set aside before it was asked, and the action specs."""
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise UsageError(f"turn is an int (0 = the first assistant turn), not {turn!r}.")
    positions = [i for i, item in enumerate(prompt.items) if isinstance(item, AssistantMessage)]
    if turn < 0:
        turn += len(positions)
    if not 0 <= turn < len(positions):
        raise UsageError(
            f"This run has {len(positions)} assistant turn(s); pick turn 0 to "
            f"{len(positions) - 1}, or -1 for the latest."
        )
    before = prompt.items[: positions[turn]]
    items = tuple(item.model_copy(deep=True) for item in read_by_model(before))
    aside = tuple(item.model_copy(deep=True) for item in set_aside_replies(before))
    return ModelRequest(
        instructions=prompt.instructions, items=items, actions=tuple(actions), set_aside=aside
    )


class RunHistory:
    """A run's past, as `AgentRun` offers it: what the model was sent, and forks."""

    def model_request(self, turn: int) -> ModelRequest:
        """What the model was sent for assistant turn `turn` (0 = the first), rebuilt from
        the transcript: the instructions, the items before that turn, the action specs."""
        run = cast("AgentRun", self)
        return model_request(run.prompt, turn, run.agent.action_specs)

    def fork(self, *, at: str | ModelTurn) -> AgentRun:
        """A new run gone back to a point of this one, paused there, to go on another way:

        - ``at=<interrupt id>``: that pause is open again, to be answered differently;
        - ``at=<tool call id>``: the call is paused before it runs again (a breakpoint:
          `fork.debug.edit({...})` runs it with other arguments, `continue_()` as it
          was, `skip()` not at all); the calls of its turn before it keep their
          outcomes, those after it run after it;
        - ``at=ModelTurn(n)``: the transcript ends before assistant turn `n`, paused
          before the model is asked again (`fork.edit_item(...)` first, then
          `fork.run()` or `fork.debug.continue_()`).

        This run is unchanged; the new one records where it came from in
        `prompt.parent`, is named by `fork_name` and listed in `forks`. No turn before
        the fork point is asked of the model again::

            fork = run.fork(at=run.prompt.items[3].id)      # a tool call
            await fork.debug.edit({"order": 42, "cents": 500})
        """
        run = cast("AgentRun", self)
        child = type(run)(
            run.agent,
            fork_prompt(run.prompt, at),
            store=run.store,
            step=run.debug.stepping,
            breakpoints=run.debug.breakpoints,
        )
        run.forks.append(child)
        return child

    @property
    def fork_name(self) -> str | None:
        """What made this fork, in a few words ("declined at refund", "edited cents at
        refund", "asked again at turn 3"); None for a run that is not a fork."""
        return fork_name(cast("AgentRun", self).prompt)

    @property
    def editable_items(self) -> list[int]:
        """The positions `edit_item` changes now: the user messages and tool calls of a fork
        made at a model turn that has not asked the model since (empty otherwise)."""
        run = cast("AgentRun", self)
        if not _at_fork_point(run):
            return []
        return [
            i for i, item in enumerate(run.prompt.items) if isinstance(item, UserMessage | ToolCall)
        ]

    def edit_item(self, position: int, *, text: str = _UNSET, result: Any = _UNSET) -> None:
        """Change an item of a fork made at a model turn before the model is asked again:
        a user message's `text`, or a tool call's `result` (what the model reads as its
        outcome; a failed or declined call then reads as succeeded with it). `position`
        indexes `prompt.items` (negative counts from the end)::

            fork = run.fork(at=ModelTurn(1))
            fork.edit_item(0, text="Refund order 42, but only half of it.")
            await fork.run()

        Raises `ForkMovedOnError` once the fork has asked the model, `UsageError` for
        another run, another item, or the wrong field for it."""
        run = cast("AgentRun", self)
        prompt = run.prompt
        origin = prompt.parent
        if origin is None or origin.point != "turn":
            raise UsageError(
                "edit_item changes a fork made at a model turn before it asks the model "
                "again: make one with run.fork(at=ModelTurn(n)) and edit that."
            )
        if not _at_fork_point(run):
            raise ForkMovedOnError(
                f"This fork has moved on from turn {origin.turn}: the model was asked again "
                f"since it was made. Fork again with run.fork(at=ModelTurn({origin.turn})) "
                "and edit that one before it goes on."
            )
        if isinstance(position, bool) or not isinstance(position, int):
            raise UsageError(f"position is an int index into prompt.items, not {position!r}.")
        count = len(prompt.items)
        index = position + count if position < 0 else position
        if not 0 <= index < count:
            raise UsageError(f"This fork has {count} items: pick a position from 0 to {count - 1}.")
        item = prompt.items[index]
        if isinstance(item, UserMessage) and text is not _UNSET and result is _UNSET:
            changes: dict[str, Any] = {"text": check_text(text, "The message")}
        elif isinstance(item, ToolCall) and result is not _UNSET and text is _UNSET:
            changes = {"result": to_json_value(result, f"The result of {item.name}")}
            if item.status not in ("succeeded", "responded"):
                changes |= {"status": "succeeded", "error": None}
        else:
            raise UsageError(
                f"Item {index} is a {type(item).__name__}: edit a UserMessage with text=... "
                "or a ToolCall with result=..., one at a time."
            )
        _write(run, index, changes)


def _at_fork_point(run: AgentRun) -> bool:
    """Whether `run` is a fork made at a model turn that still waits before that turn: the
    model was not asked since (a fork that moved on and paused again by stepping has more
    assistant turns than its fork point)."""
    prompt = run.prompt
    origin = prompt.parent
    if origin is None or origin.point != "turn" or prompt.model_pause is None or run.busy:
        return False
    turns = sum(1 for item in prompt.items if isinstance(item, AssistantMessage))
    return turns == origin.turn


def _write(run: AgentRun, index: int, changes: dict[str, Any]) -> None:
    """Change item `index` of `run` and note it in `parent.edited`; saved at once for a
    stored run (a refused save leaves the item as it was)."""
    prompt = run.prompt
    origin = prompt.parent
    assert origin is not None
    item = prompt.items[index]
    before = {name: getattr(item, name) for name in changes}
    edited = list(origin.edited)
    set_fields(item, **changes)
    if index not in origin.edited:
        origin.edited.append(index)
    durable = run._stretch.durable
    if durable is not None:
        try:
            durable.hold()
            try:
                durable.save(prompt, run.status, (index,), release=True)
            finally:
                durable.let_go()
        except BaseException:
            set_fields(item, **before)
            origin.edited[:] = edited
            raise
    assert isinstance(item, UserMessage | ToolCall)
    run._events.emit_now(ItemEditedEvent(item, index))
