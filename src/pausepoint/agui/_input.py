"""Reading an AG-UI request: the `RunAgentInput` body, and what it asks of the run.

A client sends its whole conversation each time. What is new in it is read the same way
in both server modes: a `resume` list answers the pending interrupts; otherwise the last
message, when it is a user message the transcript does not hold yet, is the next one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui.core import AssistantMessage, RunAgentInput, TextInputContent, ToolMessage, UserMessage
from pydantic import ValidationError

from ..transcript import Prompt
from ..transcript import UserMessage as TranscriptUserMessage
from ._limits import LimitExceeded, Limits, check_input, json_depth_error

__all__ = ["BadRequest", "Request", "new_user_text", "read_request", "text_of"]


class BadRequest(Exception):
    """The body is not a usable RunAgentInput: RUN_ERROR `bad-request`."""


@dataclass(frozen=True)
class Request:
    """One POST: the validated input, and its resume entries exactly as sent (so an
    explicit `payload: null` or a cancelled entry's stray payload reach the batch check)."""

    input: RunAgentInput
    resume: list[dict[str, Any]] | None

    @property
    def thread_id(self) -> str:
        return self.input.thread_id

    def user_messages(self) -> list[str]:
        """The text of each user message the client sent, in order."""
        return [text_of(m) for m in self.input.messages if isinstance(m, UserMessage)]

    def user_ids(self) -> list[tuple[str, str]]:
        """The id and text of each user message the client sent, in order."""
        return [(m.id, text_of(m)) for m in self.input.messages if isinstance(m, UserMessage)]

    @property
    def ends_with_user(self) -> bool:
        return bool(self.input.messages) and isinstance(self.input.messages[-1], UserMessage)

    @property
    def has_history(self) -> bool:
        """True when the client shows more than a first question: an assistant's
        answer, a tool outcome, a continuation. Such a request needs the thread's
        transcript (system or developer messages alone do not)."""
        return bool(self.resume) or any(
            isinstance(m, AssistantMessage | ToolMessage) for m in self.input.messages
        )


def read_request(body: bytes, limits: Limits | None = None) -> Request:
    """The request in `body`, or `BadRequest` naming what is wrong with it (and where,
    for a body past `limits`)."""
    limits = limits or Limits()
    try:
        raw = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(f"The body is not JSON ({exc}); send an AG-UI RunAgentInput.") from exc
    except RecursionError:
        raise BadRequest(str(json_depth_error(limits))) from None
    if not isinstance(raw, dict):
        raise BadRequest("The body is not a JSON object; send an AG-UI RunAgentInput.")
    try:
        check_input(raw, body, limits)
    except LimitExceeded as exc:
        raise BadRequest(str(exc)) from None
    try:
        parsed = RunAgentInput.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(step) for step in first["loc"]) or "the body"
        raise BadRequest(
            f"The body is not an AG-UI RunAgentInput: at {where}, {first['msg']} "
            f"({exc.error_count()} problem(s))."
        ) from exc
    resume = raw.get("resume")
    if resume is not None and not all(isinstance(entry, dict) for entry in resume):
        raise BadRequest("resume must be a list of resume entry objects.")
    return Request(parsed, list(resume) if resume else None)


def new_user_text(request: Request, prompt: Prompt | None) -> str | None:
    """The user message this request adds to the conversation, if any: the last message,
    when it is a user message and the client holds more user messages than the
    transcript (so sending the same request twice adds it once)."""
    if not request.ends_with_user:
        return None
    sent = request.user_messages()
    held = (
        0
        if prompt is None
        else sum(1 for item in prompt.items if isinstance(item, TranscriptUserMessage))
    )
    if len(sent) <= held:
        return None
    text = sent[-1]
    if not text.strip():
        raise BadRequest("The last user message has no text.")
    return text


def text_of(message: UserMessage) -> str:
    """The text of a user message (its text parts, one per line)."""
    content: str | Sequence[Any] = message.content
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content if isinstance(part, TextInputContent))
