"""`ReplayModel`: answers a run's model turns from a recorded transcript.

With scripted humans (`pausepoint.humans`) it turns a session recorded once against a
real model into a deterministic test::

    model = ReplayModel.from_prompt(saved_json)
    run = Agent(model=model, actions=[...]).new_run(Prompt.from_user("Refund order 42"))
    await humans.Policy(approve=["refund"]).drive(run)
"""

from __future__ import annotations

from typing import Any

from ..errors import ReplayDivergedError, UsageError
from ..transcript import AssistantMessage, Item, Prompt, ToolCall, UserMessage, read_by_model
from ._protocol import Model, ModelRequest, ModelResponse

__all__ = ["ReplayModel"]


class ReplayModel:
    """Replays the assistant turns of a recorded `Prompt`, in order.

    Turn k is answered with the recording's k-th assistant message (text and tool calls,
    with their ids) as long as everything the run has before it matches the recording
    (user messages, earlier turns, each call's outcome). When it does not, `fallback`
    answers instead; without one `ReplayDivergedError` says where the run left the
    recording. `diverged_at` is the first turn that was not replayed (None while on track).
    """

    def __init__(self, recording: Prompt, *, fallback: Model | None = None) -> None:
        if not isinstance(recording, Prompt):
            raise UsageError(f"ReplayModel replays a Prompt, not {type(recording).__name__}.")
        self.recording = recording.model_copy(deep=True)
        self.fallback = fallback
        self.diverged_at: int | None = None
        self.model = _recorded_model(self.recording)
        # The turns the run kept: one set aside by Retry is replayed as its retry.
        self._kept = read_by_model(self.recording.items)
        self._turns = [i for i, item in enumerate(self._kept) if _is_turn(item)]

    @classmethod
    def from_prompt(
        cls, saved: Prompt | str | bytes | dict[str, Any], *, fallback: Model | None = None
    ) -> ReplayModel:
        """A replay of `saved`: a Prompt, its JSON, or its dict."""
        if isinstance(saved, str | bytes):
            saved = Prompt.model_validate_json(saved)
        elif isinstance(saved, dict):
            saved = Prompt.model_validate(saved)
        return cls(saved, fallback=fallback)

    async def request(self, request: ModelRequest) -> ModelResponse:
        turn = sum(1 for item in request.items if isinstance(item, AssistantMessage))
        problem = self._mismatch(turn, request.items)
        if problem is None:
            message = self._kept[self._turns[turn]]
            assert isinstance(message, AssistantMessage)
            call = message.call
            return ModelResponse(
                text=message.text,
                tool_calls=[c.model_copy(deep=True) for c in message.tool_calls],
                usage=call.usage if call is not None else None,
                finish_reason=call.finish_reason if call is not None else None,
            )
        if self.diverged_at is None:
            self.diverged_at = turn
        if self.fallback is not None:
            return await self.fallback.request(request)
        raise ReplayDivergedError(
            f"The run left the recording at turn {turn}: {problem}. Give "
            "ReplayModel(..., fallback=<a model>) to answer such turns, or check the "
            "actions and answers against the recorded session."
        )

    def _mismatch(self, turn: int, items: Any) -> str | None:
        if self.diverged_at is not None and turn >= self.diverged_at:
            return "an earlier turn already left it"
        if turn >= len(self._turns):
            return f"the recording has only {len(self._turns)} assistant turn(s)"
        recorded = self._kept[: self._turns[turn]]
        if len(items) != len(recorded):
            return f"{len(items)} items precede it, the recording has {len(recorded)}"
        for index, (got, want) in enumerate(zip(items, recorded, strict=True)):
            if _shape(got) != _shape(want):
                return f"item {index} differs from the recorded one ({_shape(want)[0]})"
        return None

    def __repr__(self) -> str:
        return f"ReplayModel({len(self._turns)} turns of {self.model})"


def _is_turn(item: Item) -> bool:
    return isinstance(item, AssistantMessage)


def _recorded_model(prompt: Prompt) -> str:
    for item in prompt.items:
        if isinstance(item, AssistantMessage) and item.call is not None:
            return item.call.model
    return "recording"


def _shape(item: Item) -> tuple[Any, ...]:
    """What must match for a replay to stay on track (ids and times aside)."""
    if isinstance(item, UserMessage):
        return ("user message", item.text)
    if isinstance(item, AssistantMessage):
        return ("assistant message", item.text, [(c.name, c.input) for c in item.tool_calls])
    assert isinstance(item, ToolCall)
    return ("tool call", item.name, item.effective_input, item.status, item.result, item.error)
