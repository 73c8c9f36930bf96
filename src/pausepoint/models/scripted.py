"""`ScriptedModel`: an offline, deterministic model for demos and tests."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, TypeAlias

from ..errors import ScriptExhaustedError, UsageError
from ..transcript import AssistantMessage, ToolCallRequest, new_id
from ._protocol import ModelRequest, ModelResponse, StreamEvent, TextDelta, ToolCallDelta

__all__ = ["ScriptedModel", "Turn", "call"]

Turn: TypeAlias = str | ToolCallRequest | Sequence[ToolCallRequest] | ModelResponse
"""One scripted answer: text, one tool call, several tool calls, or a full response."""


def call(name: str, /, **input: Any) -> ToolCallRequest:
    """A scripted tool call with a fresh id: ``call("delete_record", id=7)``."""
    return ToolCallRequest(id=new_id("call"), name=name, input=input)


class ScriptedModel:
    """Answers from a script instead of a network.

    `script` is a list of turns, answered in order, or a function of the `ModelRequest`
    that returns a turn. A turn is text, a tool call (see `call`), a list of tool calls or
    a `ModelResponse`::

        model = ScriptedModel([
            call("delete_record", id=7),
            "Record 7 is gone.",
        ])

    With `token_delay` set, `stream()` yields the text word by word with that pause, so
    an offline demo looks live.
    """

    def __init__(
        self,
        script: Sequence[Turn] | Callable[[ModelRequest], Turn],
        *,
        token_delay: float = 0.0,
    ) -> None:
        self._script = script
        self.token_delay = token_delay
        self.requests: list[ModelRequest] = []

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if callable(self._script):
            return _as_response(self._script(request))
        # Each reply is read once: a reply set aside by Retry is followed by the next one.
        position = len(request.set_aside) + sum(
            1 for item in request.items if isinstance(item, AssistantMessage)
        )
        if position >= len(self._script):
            raise ScriptExhaustedError(
                f"ScriptedModel was asked for turn {position + 1} but its script has "
                f"{len(self._script)}. Add a final text turn so the run can complete."
            )
        return _as_response(self._script[position])

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        response = await self.request(request)
        for token in re.findall(r"\S+\s*|\s+", response.text):
            if self.token_delay:
                await asyncio.sleep(self.token_delay)
            yield TextDelta(token)
        for index, tool_call in enumerate(response.tool_calls):
            yield ToolCallDelta(index, tool_call.id, tool_call.name, "")
        yield response


def _as_response(turn: Turn) -> ModelResponse:
    if isinstance(turn, ModelResponse):
        return turn
    if isinstance(turn, str):
        return ModelResponse(text=turn)
    if isinstance(turn, ToolCallRequest):
        return ModelResponse(tool_calls=[turn])
    calls = list(turn)
    if not all(isinstance(c, ToolCallRequest) for c in calls):
        raise UsageError(
            "A scripted turn is text, call(...), a list of call(...) or a ModelResponse; "
            f"got {turn!r}."
        )
    return ModelResponse(tool_calls=calls)
