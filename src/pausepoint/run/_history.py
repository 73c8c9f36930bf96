"""Reading a run's past from its transcript: what the model was sent, and forks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from ..errors import UnknownInterruptError, UsageError
from ..models import ActionSpec, ModelRequest
from ..transcript import (
    AssistantMessage,
    ForkOrigin,
    Prompt,
    ToolCall,
    new_id,
    read_by_model,
    set_aside_replies,
)

if TYPE_CHECKING:
    from ._run import AgentRun

__all__ = ["RunHistory", "fork_prompt", "model_request"]


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


def fork_prompt(prompt: Prompt, interrupt_id: str) -> Prompt:
    """A copy of `prompt` as it stood when interrupt `interrupt_id` paused, with that
    pause open again, a new run id and `parent` naming where it came from."""
    index, record = _locate(prompt, interrupt_id)
    end = index + 1
    while end < len(prompt.items) and isinstance(prompt.items[end], ToolCall):
        end += 1  # the rest of that turn's calls
    data = prompt.model_dump(mode="json")
    data["items"] = data["items"][:end]
    data["run_id"] = new_id("run")
    data["parent"] = ForkOrigin(run_id=prompt.run_id, interrupt_id=interrupt_id).model_dump()
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


def _locate(prompt: Prompt, interrupt_id: str) -> tuple[int, ToolCall]:
    for index, item in enumerate(prompt.items):
        if isinstance(item, ToolCall) and any(e.id == interrupt_id for e in item.interrupts):
            return index, item
    known = [e.id for r in prompt.tool_calls() for e in r.interrupts]
    raise UnknownInterruptError(
        f"This run has no interrupt {interrupt_id!r} to fork at. Its interrupts: {known or 'none'}."
    )


class RunHistory:
    """A run's past, as `AgentRun` offers it: what the model was sent, and forks."""

    def model_request(self, turn: int) -> ModelRequest:
        """What the model was sent for assistant turn `turn` (0 = the first), rebuilt from
        the transcript: the instructions, the items before that turn, the action specs."""
        run = cast("AgentRun", self)
        return model_request(run.prompt, turn, run.agent.action_specs)

    def fork(self, *, at: str) -> AgentRun:
        """A new run whose transcript is this one's up to interrupt `at`, with that pause
        open again so it can be answered differently. This run is unchanged; the new one
        records its parent in `prompt.parent` and is listed in `forks`. No turn before the
        fork point is asked of the model again."""
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
