"""A stateless continuation rebuilt from the conversation the client sends back.

TanStack AI's client, like most web clients, keeps no server state: it sends the whole
conversation (AG-UI messages) with `state: {}`, and the answers as resume entries. The
transcript is rebuilt from that once per request:

- user messages, the model's messages and their tool calls are taken as sent, and a tool
  message is the outcome the model read for its call (the conversation is the client's,
  as on any stateless chat server);
- a call of the last turn with no outcome is a pause only when a resume entry names it
  with an id this server sealed (`PauseIds`) for that very call, in this thread, with
  the same name and arguments; the record comes from the id, never from the history;
- any other call without an outcome refuses the request: nothing runs that no valid
  pause names, and a call the history says waits on approval is never run without one.

The rebuilt pauses then go through the same batch checks as a stored run's (the AG-UI
run that carried each pause, the schema and digests, the answer itself).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ag_ui import core as agui

from ..errors import InvalidTranscriptError, ResumeBatchError, ResumeItemError
from ..transcript import ErrorInfo, Prompt
from ._input import BadRequest, Request, text_of
from ._pause_ids import PauseIds, SealedPause

__all__ = ["rebuild"]

_RESPONDED = "Not run: instead, the person said: "
_STATUS_BY_WORDS = (
    ("Not done: a person declined this call. ", "rejected"),
    ("Cancelled: the run was stopped. ", "cancelled"),
    ("Error. ", "failed"),
)


def rebuild(request: Request, ids: PauseIds) -> Prompt:
    """The transcript of the conversation `request` sends (without its last user message
    when that is the new one), with the pauses its resume entries name.

    Raises `BadRequest` for a history that is not a conversation (a tool message for no
    call, a call id used twice, arguments that are not a JSON object, an earlier call
    with no outcome) and `ResumeBatchError` when a call waits on no valid pause."""
    messages = list(request.input.messages)
    if not request.resume and request.ends_with_user:
        messages.pop()
    turns = [m for m in messages if _counts(m)]
    last_turn = next((m for m in reversed(turns) if isinstance(m, agui.AssistantMessage)), None)
    outcomes = _outcomes(messages)
    sealed, problems = _sealed(request.resume or (), ids)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for message in turns:
        if isinstance(message, agui.UserMessage):
            items.append({"type": "user", "text": text_of(message)})
            continue
        assert isinstance(message, agui.AssistantMessage)
        calls = [_call(call, seen) for call in message.tool_calls or ()]
        items.append({"type": "assistant", "text": message.content or "", "tool_calls": calls})
        for call in calls:
            pause = sealed.pop(call["id"], None)
            if pause is not None and message is last_turn and _same_call(pause, call):
                # What the client wrote for its own answer (TanStack's "User denied this
                # action") is not an outcome: the answer is the resume entry.
                outcomes.pop(call["id"], None)
                items.append({**pause.record, "status": "interrupted"})
                continue
            if pause is not None:
                problems.append(_moved(call, pause))
            if call["id"] in outcomes:
                items.append(_settled(call, outcomes.pop(call["id"])))
            elif message is not last_turn:
                raise BadRequest(
                    f"Tool call {call['id']!r} ({call['name']}) of an earlier turn has no "
                    "tool message; send the conversation as the server streamed it."
                )
            elif pause is None:
                problems.append(_unanswered(call))
    if outcomes:
        stray = next(iter(outcomes))
        raise BadRequest(f"A tool message answers tool call {stray!r}, which no message made.")
    problems.extend(
        ResumeItemError(
            "stale",
            "That pause's tool call is not waiting in the conversation sent with this "
            "continuation; fetch the thread's pending interrupts again and answer those.",
            pause_id,
        )
        for pause_id in (p.record["interrupts"][-1]["id"] for p in sealed.values())
    )
    if problems:
        raise ResumeBatchError(problems)
    thread = request.thread_id
    try:
        return Prompt.model_validate({"thread_id": thread, "run_id": thread, "items": items})
    except InvalidTranscriptError as exc:
        raise BadRequest(f"The conversation does not make a transcript: {exc}") from exc


def _counts(message: agui.Message) -> bool:
    """A message that is part of the transcript: user messages, and the model's messages
    that say or call something (a client may add an empty one after a refusal)."""
    if isinstance(message, agui.UserMessage):
        return True
    return isinstance(message, agui.AssistantMessage) and bool(
        message.content or message.tool_calls
    )


def _outcomes(messages: Sequence[agui.Message]) -> dict[str, agui.ToolMessage]:
    """Each call's tool message, but for the placeholders a client writes for a call it
    answered and that has not run yet (TanStack's `pendingExecution`)."""
    found: dict[str, agui.ToolMessage] = {}
    for message in messages:
        if not isinstance(message, agui.ToolMessage) or _placeholder(_said(message)):
            continue
        if message.tool_call_id in found:
            raise BadRequest(f"Two tool messages answer tool call {message.tool_call_id!r}.")
        found[message.tool_call_id] = message
    return found


def _placeholder(content: str) -> bool:
    if not content.startswith("{"):
        return False
    try:
        said = json.loads(content)
    except ValueError:
        return False
    return isinstance(said, dict) and said.get("pendingExecution") is True


def _sealed(
    resume: Sequence[dict[str, Any]], ids: PauseIds
) -> tuple[dict[str, SealedPause], list[ResumeItemError]]:
    """The pauses the resume entries name, by tool call id, and the entries whose id is
    not one this server sealed for this thread."""
    found: dict[str, SealedPause] = {}
    problems: list[ResumeItemError] = []
    for entry in resume:
        interrupt_id = entry.get("interruptId")
        if not isinstance(interrupt_id, str) or not interrupt_id:
            continue  # the batch check names it
        pause = ids.read(interrupt_id)
        if pause is None:
            problems.append(
                ResumeItemError(
                    "unknown-interrupt",
                    "This server made no pause with that id in this thread (a stateless "
                    "server's pause ids are sealed; copy them as they came).",
                    interrupt_id,
                )
            )
        else:
            found.setdefault(str(pause.record.get("id")), pause)
    return found, problems


def _call(call: agui.ToolCall, seen: set[str]) -> dict[str, Any]:
    if call.id in seen:
        raise BadRequest(f"Tool call id {call.id!r} is used twice in the conversation.")
    seen.add(call.id)
    try:
        arguments = json.loads(call.function.arguments or "{}")
    except ValueError as exc:
        raise BadRequest(f"Tool call {call.id!r} has arguments that are not JSON: {exc}") from exc
    if not isinstance(arguments, dict):
        raise BadRequest(f"Tool call {call.id!r} has arguments that are not a JSON object.")
    return {"id": call.id, "name": call.function.name, "input": arguments}


def _same_call(pause: SealedPause, call: dict[str, Any]) -> bool:
    record = pause.record
    return bool(record.get("name") == call["name"] and record.get("input") == call["input"])


def _moved(call: dict[str, Any], pause: SealedPause) -> ResumeItemError:
    return ResumeItemError(
        "stale",
        f"Tool call {call['id']!r} ({call['name']}) is not waiting on that pause in the "
        "conversation sent (it has an outcome, is in an earlier turn, or shows other "
        "arguments); nothing was run. Fetch the pending interrupts again and answer those.",
        pause.record["interrupts"][-1]["id"],
    )


def _unanswered(call: dict[str, Any]) -> ResumeItemError:
    return ResumeItemError(
        "incomplete-batch",
        f"Tool call {call['id']!r} ({call['name']}) has no outcome in the conversation "
        "and no resume entry answers a pause of it; it is not run.",
    )


def _settled(call: dict[str, Any], message: agui.ToolMessage) -> dict[str, Any]:
    """The record of a call whose outcome the model read as `message.content`."""
    record: dict[str, Any] = {"type": "tool", **call, "attempts": 1}
    content = _said(message)
    if message.error is None:
        if content.startswith(_RESPONDED):
            return record | {"status": "responded", "result": content[len(_RESPONDED) :]}
        return record | {"status": "succeeded", "result": content}
    name, _, said = message.error.partition(": ")
    error = ErrorInfo(name=name or "Error", message=said or message.error).model_dump()
    status = next((s for words, s in _STATUS_BY_WORDS if content.startswith(words)), "failed")
    return record | {"status": status, "error": error}


def _said(message: agui.ToolMessage) -> str:
    """A tool message's text (its text parts, when it has parts)."""
    content = message.content
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content if isinstance(part, agui.TextInputContent))
