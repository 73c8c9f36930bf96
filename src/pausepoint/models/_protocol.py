"""The contract between a run and a language model.

A model takes one `ModelRequest` (instructions, the transcript so far and the actions it
may call) and answers one assistant turn: text and/or tool calls. Wrapping a provider is
one class with one method::

    class MyModel:
        async def request(self, request: ModelRequest) -> ModelResponse:
            reply = await my_client.chat(system=request.instructions, ...)
            return ModelResponse(text=reply.text, tool_calls=[
                ToolCallRequest(id=c.id, name=c.name, input=c.args) for c in reply.calls
            ])

A model may also offer `stream(request)`, an async iterator of `TextDelta` and
`ToolCallDelta` events that ends with the complete `ModelResponse`; the run then
forwards text to its `text_delta` event as it arrives.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .._json import check_text, is_plain_json, to_json_value
from ..errors import NotJSONError
from ..transcript import AssistantMessage, Item, ToolCallRequest

__all__ = [
    "ActionSpec",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "StreamEvent",
    "StreamingModel",
    "TextDelta",
    "ToolCallDelta",
    "checked_response",
]


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """An action as a model sees it: name, description and input JSON Schema."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One request to a model. `items` is the live transcript: read it, never change it.

    `set_aside` holds the replies a person set aside with Retry before this request (they
    are not in `items`): an adapter may use them to ask for something different."""

    instructions: str | None
    items: Sequence[Item]
    actions: Sequence[ActionSpec]
    set_aside: Sequence[AssistantMessage] = ()


@dataclass(slots=True)
class ModelResponse:
    """One assistant turn. No tool calls means the run is complete.

    `usage` (token counts by name, e.g. ``{"input_tokens": 12, "output_tokens": 3}``) and
    `finish_reason` are recorded with the turn when the adapter reports them; they are
    left out of comparisons (two responses that say the same thing are equal)."""

    text: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    usage: dict[str, int] | None = field(default=None, compare=False)
    finish_reason: str | None = field(default=None, compare=False)


def checked_response(response: ModelResponse) -> ModelResponse:
    """`response` as it will be recorded, or `NotJSONError` when part of it could not be
    saved and loaded back (a lone surrogate in the text, arguments nested too deeply...).

    A refused response fails the run's turn; the transcript is unchanged, and calling
    `run()` again asks the model again. This is on every turn's path: an ordinary
    response is returned as it is, without copies.
    """
    if not isinstance(response, ModelResponse):
        raise NotJSONError(
            "The model's response", "$", f"a {type(response).__name__}, not a ModelResponse"
        )
    # Plain ASCII text is always fine: the common case costs two attribute reads.
    if not (type(response.text) is str and response.text.isascii()):
        check_text(response.text, "The model's text")
    calls = response.tool_calls
    for index, call in enumerate(calls):
        if not isinstance(call, ToolCallRequest):
            raise NotJSONError("The model's tool calls", f"$[{index}]", f"a {type(call).__name__}")
        if not (type(call.id) is str and call.id.isascii()):
            check_text(call.id, "The model's tool call id")
        if not (type(call.name) is str and call.name.isascii()):
            check_text(call.name, "The model's tool call name")
        if type(call.input) is dict and is_plain_json(call.input):
            continue  # recorded as it is: a copy would be equal
        arguments = to_json_value(call.input, "The arguments of the model's tool call")
        if not isinstance(arguments, dict):
            raise NotJSONError("The model's tool call", "$.input", "not an object")
        if arguments != call.input:  # e.g. tuples in a call built without validation
            if calls is response.tool_calls:
                calls = list(calls)
            calls[index] = call.model_copy(update={"input": arguments})
    if calls is response.tool_calls:
        return response
    return ModelResponse(
        text=response.text,
        tool_calls=calls,
        usage=response.usage,
        finish_reason=response.finish_reason,
    )


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of assistant text, as it streams in."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a tool call: its position in the turn, and whatever arrived of it."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


StreamEvent = TextDelta | ToolCallDelta | ModelResponse


@runtime_checkable
class Model(Protocol):
    async def request(self, request: ModelRequest) -> ModelResponse: ...


@runtime_checkable
class StreamingModel(Model, Protocol):
    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...
