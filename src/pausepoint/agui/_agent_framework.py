"""A Microsoft Agent Framework agent as an AG-UI event source, for `host()`.

The framework's own AG-UI server (agent-framework-ag-ui) pins an AG-UI protocol older than
pausepoint's, so the two cannot share an interpreter; this module speaks for
agent-framework-core in the kernel instead. Each request runs the agent's streaming run
(`agent.run(messages, stream=True, session=...)`) and tells its updates as AG-UI events.

A tool made with `approval_mode="always_require"` ends the run with a
`function_approval_request`; each becomes an interrupt told as agent-framework-ag-ui tells
it (the call's `Content.id`, reason `tool_call`, its `agent_framework` metadata and
response schema), so it is the same card hosted or served (`agent_framework_approval`).
The continuation answers each in the framework's words, a user message of
`request.to_function_approval_response(approved)`, and the framework runs the approved
calls and goes on. The framework runs the call its session stored, so edited arguments
replace that stored call first, as agent-framework-ag-ui does.

What the framework needs to go on travels in the AG-UI state (`STATE_SNAPSHOT`, sent back
by the client with its next request): the run's `AgentSession.to_dict()` (the conversation
and the approvals it waits on) and the open requests' `Content.to_dict()`. So the source
keeps nothing between requests, and a hosted run saved to a file goes on after a restart.
`AgentSession.from_dict` trusts that state: load only runs you saved yourself.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from ..errors import MissingDependencyError, UsageError

__all__ = ["STATE_KEY", "agent_framework_source"]

STATE_KEY = "agentFramework"
"""The key of the AG-UI state that holds what the framework needs to go on."""
_TOOLS_RUN = object()  # put on a run's queue as the framework starts running a tool
_ENDED = object()


class _Refused(Exception):
    """An answer the framework's own AG-UI server refuses too, with its error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def agent_framework_source(agent: Any, options: dict[str, Any]) -> Any:
    """The event source of an `agent_framework.Agent`: each AG-UI request runs it with
    `agent.run(..., stream=True)` (`options` go there: `options=`, `tools=`,
    `middleware=`, `function_invocation_kwargs=`, ...) and yields its AG-UI events."""
    try:
        from agent_framework import AgentSession, Message, function_middleware
    except ImportError:
        raise MissingDependencyError(
            "Hosting an Agent Framework agent needs agent-framework-core: "
            "pip install agent-framework-core."
        ) from None
    if taken := sorted({"messages", "session", "stream"} & set(options)):
        raise UsageError(
            f"A hosted agent's messages and session are the run's own; do not pass "
            f"{', '.join(f'{name}=' for name in taken)}."
        )
    given = list(options.pop("middleware", None) or [])

    async def source(body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        thread_id, run_id = str(body.get("threadId")), str(body.get("runId"))
        yield {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id}
        kept = body.get("state")
        kept = kept.get(STATE_KEY) if isinstance(kept, Mapping) else None
        kept = kept if isinstance(kept, Mapping) else {}
        try:
            if isinstance(kept.get("session"), Mapping):
                session = AgentSession.from_dict(json.loads(json.dumps(kept["session"])))
            elif body.get("resume"):
                raise UsageError(
                    "This request answers a pause, but its state holds no Agent Framework "
                    "session to answer it in."
                )
            else:
                session = agent.create_session(session_id=thread_id)
            if body.get("resume"):
                messages = [Message("user", _answers(session, kept, body["resume"]))]
            else:
                messages = _new_messages(kept, body.get("messages") or [])
        except _Refused as error:
            yield _failed(error, thread_id, run_id, code=error.code)
            return
        except Exception as error:
            yield _failed(error, thread_id, run_id)
            return

        queue: asyncio.Queue[Any] = asyncio.Queue()

        @function_middleware
        async def tools_run(context: Any, call_next: Callable[[], Awaitable[None]]) -> None:
            queue.put_nowait(_TOOLS_RUN)
            await call_next()

        async def pump() -> None:
            try:
                stream = agent.run(
                    messages,
                    stream=True,
                    session=session,
                    middleware=[tools_run, *given],
                    **options,
                )
                async for update in stream:
                    queue.put_nowait(update)
                queue.put_nowait(_ENDED)
            except Exception as error:
                queue.put_nowait(error)

        telling = _Telling(run_id)
        running = asyncio.ensure_future(pump())
        try:
            while (item := await queue.get()) is not _ENDED:
                if isinstance(item, Exception):
                    yield _failed(item, thread_id, run_id)
                    return
                for told in telling.finish_step() if item is _TOOLS_RUN else telling.tell(item):
                    yield told
        finally:
            if not running.done():  # closed by the client's Stop: the framework's run stops
                running.cancel()
                await asyncio.wait([running])
        for told in telling.finish_step():
            yield told
        requests = telling.requests
        snapshot = {
            "session": session.to_dict(),
            "requests": [request.to_dict() for request in requests],
        }
        yield {"type": "STATE_SNAPSHOT", "snapshot": {STATE_KEY: snapshot}}
        outcome = {"type": "interrupt", "interrupts": [_interrupt(r) for r in requests]}
        yield {
            "type": "RUN_FINISHED",
            "threadId": thread_id,
            "runId": run_id,
            "outcome": outcome if requests else {"type": "success"},
        }

    return source


def _answers(session: Any, kept: Mapping[str, Any], entries: Any) -> list[Any]:
    """The framework's approval response to each open request an entry answers."""
    from agent_framework import Content

    requests = {
        _interrupt_id(request): request
        for request in (Content.from_dict(dict(r)) for r in kept.get("requests") or [])
    }
    answers = []
    for entry in entries:
        interrupt_id = str(entry.get("interruptId", ""))
        request = requests.get(interrupt_id)
        if request is None:
            raise _Refused(
                "APPROVAL_RESUME_NOT_FOUND",
                f"The agent waits on no approval for interrupt {interrupt_id!r}.",
            )
        if entry.get("status") == "cancelled":  # refused, in the framework's own words
            answers.append(request.to_function_approval_response(False))
            continue
        payload = entry.get("payload")
        approved = (
            payload.get("approved", payload.get("accepted"))
            if isinstance(payload, Mapping)
            else None
        )
        if not isinstance(approved, bool):
            raise _Refused(
                "APPROVAL_RESUME_INVALID",
                f"The answer to interrupt {interrupt_id!r} must say approved: true or false.",
            )
        edited = payload.get("editedArgs") if isinstance(payload, Mapping) else None
        if approved and edited is not None:
            request = _edited(session, request, edited, interrupt_id)
        answers.append(request.to_function_approval_response(approved))
    return answers


def _edited(session: Any, request: Any, edited: Any, interrupt_id: str) -> Any:
    """The request with its call's arguments replaced, stored in the session in the
    place of the one there: the framework runs the call its session holds."""
    from agent_framework import Content
    from agent_framework._tools import (
        _load_pending_approval_requests,
        _save_pending_approval_requests,
    )

    call = request.function_call
    before = call.parse_arguments() or {}
    if _hosted(call) or not isinstance(edited, Mapping) or set(edited) != set(before):
        raise _Refused(
            "APPROVAL_RESUME_INVALID_RESPONSE",
            f"The answer to interrupt {interrupt_id!r} must give editedArgs as a full "
            f"replacement of the call's arguments ({', '.join(before) or 'none'}).",
        )
    replaced = Content.from_dict({**call.to_dict(), "arguments": json.dumps(dict(edited))})
    stored = Content.from_function_approval_request(
        request.id, replaced, additional_properties=dict(request.additional_properties)
    )
    pending = _load_pending_approval_requests(session)
    pending[request.id] = stored
    _save_pending_approval_requests(session, pending)
    return stored


def _new_messages(kept: Mapping[str, Any], messages: list[Any]) -> list[Any]:
    """What the agent is run with for a new turn: the user's new messages (its session
    holds the conversation before them), or, with no session yet, the AG-UI history in
    the framework's messages."""
    from agent_framework import Content, Message

    if isinstance(kept.get("session"), Mapping):
        new: list[Any] = []
        for message in reversed(messages):
            if not isinstance(message, Mapping) or message.get("role") != "user":
                break
            new.insert(0, Message("user", [_text(message)]))
        return new
    out = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        if role in ("user", "system"):
            out.append(Message(str(role), [_text(message)]))
        elif role == "developer":
            out.append(Message("system", [_text(message)]))
        elif role == "tool":
            call_id = str(message.get("toolCallId"))
            result = Content.from_function_result(call_id, result=_text(message))
            out.append(Message("tool", [result]))
        elif role == "assistant":
            contents: list[Any] = [_text(message)] if _text(message) else []
            for call in message.get("toolCalls") or []:
                function = call.get("function") or {}
                contents.append(
                    Content.from_function_call(
                        str(call.get("id")),
                        str(function.get("name")),
                        arguments=str(function.get("arguments") or "{}"),
                    )
                )
            out.append(Message("assistant", contents))
    return out


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _hosted(call: Any) -> bool:
    """Whether the model's provider, not the framework, runs the call."""
    return getattr(call, "hosted", None) is True


def _interrupt_id(request: Any) -> str:
    """An approval's id as agent-framework-ag-ui gives it: its call's occurrence id."""
    call = request.function_call
    if _hosted(call):
        return str(request.id)
    return str(getattr(call, "id", None) or call.call_id or request.id)


def _interrupt(request: Any) -> dict[str, Any]:
    """An approval request as agent-framework-ag-ui tells it in RUN_FINISHED."""
    call = request.function_call
    arguments = call.parse_arguments() or {}
    told = {
        "type": "function_approval_request",
        "function_call": {"call_id": call.call_id, "name": call.name, "arguments": arguments},
    }
    return {
        "id": _interrupt_id(request),
        "reason": "tool_call",
        "message": f"Approve running {call.name or 'this tool'}?",
        "toolCallId": call.call_id,
        "responseSchema": _response_schema(None if _hosted(call) else arguments),
        "metadata": {"agent_framework": {**told, "value": told}},
    }


def _response_schema(arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """agent-framework-ag-ui's schema of an approval's answer: approved (or its older
    name, accepted) and, for a call the framework runs, the arguments to run it with."""
    properties: dict[str, Any] = {
        "approved": {
            "type": "boolean",
            "description": "Whether the requested tool call is approved.",
        },
        "accepted": {"type": "boolean", "description": "Legacy alias for approved."},
    }
    if arguments is not None:
        edited: dict[str, Any] = {}
        for name, value in arguments.items():
            if name not in ("approved", "accepted", "editedArgs"):
                properties[name] = {
                    **_schema_of(value),
                    "description": f"Optional edited value for the '{name}' tool argument.",
                }
            edited[name] = _schema_of(value)
        properties["editedArgs"] = {
            "type": "object",
            "description": "Full replacement of the tool arguments. Not merged.",
            "properties": edited,
            "required": list(edited),
            "additionalProperties": False,
        }
    return {
        "type": "object",
        "properties": properties,
        "anyOf": [{"required": ["approved"]}, {"required": ["accepted"]}],
        "additionalProperties": False,
    }


def _schema_of(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"type": "boolean"}
    for kind, name in ((int, "integer"), (float, "number"), (str, "string"), (list, "array")):
        if isinstance(value, kind):
            return {"type": name}
    if isinstance(value, Mapping):
        return {"type": "object", "additionalProperties": True}
    return {}


def _failed(
    error: BaseException, thread_id: str, run_id: str, *, code: str | None = None
) -> dict[str, Any]:
    return {
        "type": "RUN_ERROR",
        "threadId": thread_id,
        "runId": run_id,
        "message": str(error) if code else f"{type(error).__name__}: {error}",
        "code": code or type(error).__name__,
    }


class _Telling:
    """The AG-UI events of one run's `AgentResponseUpdate`s. A model turn is a step,
    finished once the framework runs its tools or asks for approvals, so its calls are
    shown running meanwhile."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.made = 0
        self.stepping = False
        self.message: str | None = None  # the open text message
        self.parent: str | None = None  # the turn's text message, parent of its calls
        self.calls: dict[str, str] = {}  # the turn's open calls: occurrence id: call id
        self.told: set[str] = set()  # calls told in this run
        self.requests: list[Any] = []  # the approval requests the run ended with

    def tell(self, update: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for content in update.contents:
            kind = content.type
            if kind == "text" and content.text:
                out += self._start_step()
                if self.message is None:
                    self.made += 1
                    self.message = self.parent = f"{self.run_id}-m{self.made}"
                    out.append(
                        {
                            "type": "TEXT_MESSAGE_START",
                            "messageId": self.message,
                            "role": "assistant",
                        }
                    )
                out.append(
                    {
                        "type": "TEXT_MESSAGE_CONTENT",
                        "messageId": self.message,
                        "delta": content.text,
                    }
                )
            elif kind == "function_call":
                out += self._call(content)
            elif kind == "function_approval_request":
                out += self.finish_step()
                self.requests.append(content)
            elif kind == "function_result":
                out += self.finish_step()
                result = content.result
                out.append(
                    {
                        "type": "TOOL_CALL_RESULT",
                        "messageId": f"{self.run_id}-result-{content.call_id}",
                        "toolCallId": str(content.call_id),
                        "content": result if isinstance(result, str) else json.dumps(result),
                        "role": "tool",
                    }
                )
        return out

    def _call(self, content: Any) -> list[dict[str, Any]]:
        occurrence = str(content.id or content.call_id)
        out: list[dict[str, Any]] = []
        if occurrence not in self.calls:
            if occurrence in self.told:
                return []  # a call of an earlier turn, told again
            out += self._start_step()
            out += self._end_message()
            self.calls[occurrence] = call_id = str(content.call_id or occurrence)
            self.told.add(occurrence)
            start = {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": content.name}
            if self.parent is not None:
                start["parentMessageId"] = self.parent
            out.append(start)
        arguments = content.arguments
        delta = json.dumps(arguments) if isinstance(arguments, Mapping) else arguments
        if delta:
            out.append(
                {"type": "TOOL_CALL_ARGS", "toolCallId": self.calls[occurrence], "delta": delta}
            )
        return out

    def _start_step(self) -> list[dict[str, Any]]:
        if self.stepping:
            return []
        self.stepping = True
        return [{"type": "STEP_STARTED", "stepName": "model"}]

    def _end_message(self) -> list[dict[str, Any]]:
        message, self.message = self.message, None
        return [] if message is None else [{"type": "TEXT_MESSAGE_END", "messageId": message}]

    def finish_step(self) -> list[dict[str, Any]]:
        """The model's turn is whole: its message and calls end with it."""
        if not self.stepping:
            return []
        out = self._end_message()
        out += [{"type": "TOOL_CALL_END", "toolCallId": call_id} for call_id in self.calls.values()]
        out.append({"type": "STEP_FINISHED", "stepName": "model"})
        self.stepping = False
        self.parent = None
        self.calls.clear()
        return out
