"""A Microsoft Agent Framework workflow as an AG-UI event source, for `host()`.

Each request runs the workflow's streaming run (`workflow.run(..., stream=True)`) and tells
its events as AG-UI events: the text its executors yield as output (a string, an assistant
`Message`, an agent's `AgentResponse` or its streamed `AgentResponseUpdate`s) as assistant
messages, and each executor's `ctx.request_info(...)` as an interrupt told exactly as
agent-framework-ag-ui tells it (the request's id, reason `input_required`, its
`agent_framework` metadata, a response schema from its response type), so it is the same
question card hosted or served (`agent_framework_request`). The continuation's answers go
to the framework as its responses to those requests, `run(responses={request_id: value},
checkpoint_id=...)`, checked against each request's response type first, and the workflow
goes on to its output or its next question. An `AgentExecutor`'s streamed turns are told as
a hosted agent's (its text, calls and results), and its tool's approval, asked by
`request_info`, as the served adapter tells it: an approval card without Edit arguments
(the framework runs the call it stored), answered `to_function_approval_response(approved)`.

The framework checkpoints the workflow at the end of each superstep; the checkpoint the
workflow paused at is the one thing kept, by its id, in the AG-UI state (`STATE_SNAPSHOT`,
sent back by the client with its next request). So the source keeps nothing between
requests: the answer restores that checkpoint, on the same workflow object or another one
built the same way. The checkpoints live in the storage given to
`host(workflow, checkpoint_storage=...)`, else the one the workflow was built with, else
an `InMemoryCheckpointStorage` of the source's own, which does not outlive the kernel; a
`FileCheckpointStorage` makes a saved run go on after a restart. A workflow object runs
one run at a time (the framework refuses a second), so hosted runs that may overlap need a
workflow each.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any, get_args, get_origin

from pydantic_core import to_jsonable_python

from ..errors import MissingDependencyError, UsageError
from ._agent_framework import _failed, _new_messages, _Refused
from ._agent_framework import _response_schema as _approval_schema
from ._agent_framework import _Telling as _AgentTelling

__all__ = ["STATE_KEY", "agent_framework_workflow_source"]

STATE_KEY = "agentFrameworkWorkflow"
"""The key of the AG-UI state that holds the id of the checkpoint the workflow paused at."""
_ENDED = object()


def agent_framework_workflow_source(workflow: Any, options: dict[str, Any]) -> Any:
    """The event source of an `agent_framework.Workflow`: each AG-UI request runs it with
    `workflow.run(..., stream=True)` (`options` go there: `tools=`,
    `function_invocation_kwargs=`, `client_kwargs=`; `checkpoint_storage=` is where its
    checkpoints are kept) and yields its AG-UI events."""
    try:
        from agent_framework import InMemoryCheckpointStorage
    except ImportError:
        raise MissingDependencyError(
            "Hosting an Agent Framework workflow needs agent-framework-core: "
            "pip install agent-framework-core."
        ) from None
    if taken := sorted({"message", "responses", "checkpoint_id", "stream"} & set(options)):
        raise UsageError(
            f"A hosted workflow's messages, responses and checkpoints are the run's own; do "
            f"not pass {', '.join(f'{name}=' for name in taken)}."
        )
    storage = (
        options.pop("checkpoint_storage", None)
        or _built_with_storage(workflow)
        or InMemoryCheckpointStorage()
    )

    async def source(body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        thread_id, run_id = str(body.get("threadId")), str(body.get("runId"))
        yield {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id}
        kept = body.get("state")
        kept = kept.get(STATE_KEY) if isinstance(kept, Mapping) else None
        checkpoint_id = kept.get("checkpointId") if isinstance(kept, Mapping) else None
        try:
            if body.get("resume"):
                if not isinstance(checkpoint_id, str):
                    raise _Refused(
                        "WORKFLOW_RESUME_NOT_FOUND",
                        "This request answers a pause, but its state names no checkpoint of "
                        "the workflow to answer it in.",
                    )
                pending = await _pending(storage, checkpoint_id)
                responses = _responses(pending, body["resume"])
                run = {"responses": responses, "checkpoint_id": checkpoint_id}
            elif isinstance(checkpoint_id, str):
                raise _Refused(
                    "WORKFLOW_RESUME_REQUIRED",
                    "The workflow waits on its questions: answer them before a new message.",
                )
            else:
                run = {"message": _new_messages({}, body.get("messages") or [])}
        except _Refused as error:
            yield _failed(error, thread_id, run_id, code=error.code)
            return

        queue: asyncio.Queue[Any] = asyncio.Queue()

        async def pump() -> None:
            try:
                stream = workflow.run(stream=True, checkpoint_storage=storage, **run, **options)
                async for event in stream:
                    queue.put_nowait(event)
                queue.put_nowait(_ENDED)
            except Exception as error:
                queue.put_nowait(error)

        telling = _Telling(run_id)
        running = asyncio.ensure_future(pump())
        try:
            while (item := await queue.get()) is not _ENDED:
                if isinstance(item, Exception):
                    for told in telling.end_message():
                        yield told
                    yield _failed(item, thread_id, run_id)
                    return
                for told in telling.tell(item):
                    yield told
        finally:
            if not running.done():  # closed by the client's Stop: the framework's run stops
                running.cancel()
                await asyncio.wait([running])
        for told in telling.end_message():
            yield told
        requests = telling.requests
        paused_at = None
        if requests:
            paused_at = await workflow.resolve_pause_checkpoint_id(
                [r.request_id for r in requests], checkpoint_storage=storage
            )
        kept_now = {"checkpointId": paused_at} if paused_at else {}
        yield {"type": "STATE_SNAPSHOT", "snapshot": {STATE_KEY: kept_now}}
        interrupts = [_interrupt(r, paused_at) for r in requests]
        yield {
            "type": "RUN_FINISHED",
            "threadId": thread_id,
            "runId": run_id,
            "outcome": (
                {"type": "interrupt", "interrupts": interrupts}
                if interrupts
                else {"type": "success"}
            ),
        }

    return source


def _built_with_storage(workflow: Any) -> Any:
    """The checkpoint storage the workflow was built with (`WorkflowBuilder(
    checkpoint_storage=...)`), if any: the framework keeps it on its runner's context."""
    context = getattr(getattr(workflow, "_runner", None), "context", None)
    return getattr(context, "_checkpoint_storage", None)


async def _pending(storage: Any, checkpoint_id: str) -> dict[str, Any]:
    """The requests the workflow waits on at its checkpoint, read without restoring it."""
    try:
        checkpoint = await storage.load(checkpoint_id)
    except Exception as error:
        raise _Refused(
            "WORKFLOW_CHECKPOINT_NOT_FOUND",
            f"The workflow's checkpoint {checkpoint_id!r} is not in its checkpoint storage "
            f"({error}). A saved run goes on after a restart only with a storage that "
            f"outlives the kernel: host(workflow, checkpoint_storage=FileCheckpointStorage("
            f"...)) and HostedRun.load(path, workflow, checkpoint_storage=the same).",
        ) from None
    return {str(k): v for k, v in (checkpoint.pending_request_info_events or {}).items()}


def _responses(pending: Mapping[str, Any], entries: Any) -> dict[str, Any]:
    """The framework's response to each request an entry answers, of its response type."""
    responses: dict[str, Any] = {}
    for entry in entries if isinstance(entries, list) else []:
        interrupt_id = str(entry.get("interruptId", "")) if isinstance(entry, Mapping) else ""
        request = pending.get(interrupt_id)
        if request is None:
            raise _Refused(
                "WORKFLOW_RESUME_NOT_FOUND",
                f"No pending interrupt found for resume interruptId {interrupt_id!r}.",
            )
        if entry.get("status") == "cancelled":
            # Cancelling a request drops it without telling its executor: not offered here.
            raise _Refused(
                "WORKFLOW_RESUME_INVALID",
                f"The workflow's request {interrupt_id!r} takes an answer, not a cancellation.",
            )
        responses[interrupt_id] = _coerced(request, entry.get("payload"), interrupt_id)
    if missing := sorted(set(pending) - set(responses)):
        raise _Refused(
            "WORKFLOW_RESUME_MISSING_INTERRUPT",
            f"Resume omitted pending interruptId {missing[0]!r}.",
        )
    return responses


def _coerced(request: Any, value: Any, interrupt_id: str) -> Any:
    """`value` as the request's response type, as the framework coerces a response."""
    from agent_framework._workflows._typing_utils import is_instance_of, try_coerce_to_type

    if _approval(request) is not None:
        approved = (
            value.get("approved", value.get("accepted")) if isinstance(value, Mapping) else None
        )
        if not isinstance(approved, bool):
            raise _Refused(
                "WORKFLOW_RESUME_INVALID_RESPONSE",
                f"The answer to interrupt {interrupt_id!r} must say approved: true or false.",
            )
        # The framework runs the call it stored, whatever edit it is sent: none is offered.
        return request.data.to_function_approval_response(approved)
    response_type = request.response_type
    if response_type is not str and isinstance(value, str):
        with contextlib.suppress(ValueError):  # a JSON text, as the served adapter reads one
            value = json.loads(value)
    coerced = try_coerce_to_type(value, response_type)
    if not is_instance_of(coerced, response_type):
        raise _Refused(
            "WORKFLOW_RESUME_INVALID_RESPONSE",
            f"Workflow resume for interruptId {interrupt_id!r} does not match expected "
            f"response type {_name(response_type)}.",
        )
    return coerced


def _name(kind: Any) -> str | None:
    if kind is None:
        return None
    return getattr(kind, "__name__", str(kind))


def _safe(value: Any) -> Any:
    return to_jsonable_python(value, fallback=_as_dict)


def _as_dict(value: Any) -> Any:
    """A framework object (a `Content`, a `Message`) as its `to_dict()`, as
    agent-framework-ag-ui tells it; anything else as its text."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else str(value)


def _approval(request: Any) -> Any:
    """The tool call a request asks approval for (an `AgentExecutor`'s), if it does."""
    data = request.data
    if getattr(data, "type", None) == "function_approval_request":
        return data.function_call
    return None


def _interrupt(request: Any, checkpoint_id: str | None) -> dict[str, Any]:
    """A `request_info` as agent-framework-ag-ui tells it in RUN_FINISHED (with its pause
    checkpoint, as it tells it when it keeps checkpoints)."""
    data = _safe(request.data)
    value = data if isinstance(data, dict) else {"data": data}
    told = {
        "type": "workflow_request_info",
        "request_id": request.request_id,
        "source_executor_id": request.source_executor_id,
        "request_type": _name(request.request_type),
        "response_type": _name(request.response_type),
        "data": data,
        "value": value,
        "checkpoint_id": checkpoint_id,
    }
    call = _approval(request)
    if call is not None:
        return _approval_interrupt(request, call, {**told, "type": None})
    interrupt: dict[str, Any] = {"id": str(request.request_id), "reason": "input_required"}
    message = _message(value)
    if message:
        interrupt["message"] = message
    interrupt["responseSchema"] = _response_schema(request.response_type)
    interrupt["metadata"] = {
        "agent_framework": {k: v for k, v in told.items() if v is not None},
    }
    return interrupt


def _approval_interrupt(request: Any, call: Any, told: Mapping[str, Any]) -> dict[str, Any]:
    """An `AgentExecutor`'s approval asked by `request_info`, as agent-framework-ag-ui
    tells it: an approval of the call, with the request's metadata."""
    arguments = _safe(call.parse_arguments() or {})
    function = {
        "type": "function_approval_request",
        "function_call": {"call_id": call.call_id, "name": call.name, "arguments": arguments},
    }
    hosted = getattr(call, "hosted", None) is True
    return {
        "id": str(request.request_id),
        "reason": "tool_call",
        "message": f"Approve running {call.name or 'this tool'}?",
        "toolCallId": call.call_id,
        "responseSchema": _approval_schema(None if hosted else arguments),
        "metadata": {
            "agent_framework": {
                **function,
                "value": function,
                **{k: v for k, v in told.items() if v is not None},
            }
        },
    }


def _message(value: Mapping[str, Any]) -> str | None:
    for key in ("message", "prompt", "question", "data"):
        found = value.get(key)
        if isinstance(found, str) and found:
            return found
    return None


def _response_schema(response_type: Any) -> dict[str, Any]:
    """agent-framework-ag-ui's schema of a request's answer, from its response type."""
    from agent_framework import Content, Message

    kind = get_origin(response_type) or response_type
    if kind is Any:
        return {"description": "Resolved workflow response payload."}
    if kind is dict or kind in (Message, Content):
        return {"type": "object", "additionalProperties": True}
    if kind is list:
        schema: dict[str, Any] = {"type": "array"}
        if items := get_args(response_type):
            schema["items"] = _response_schema(items[0])
        return schema
    for simple, name in ((str, "string"), (bool, "boolean"), (int, "integer"), (float, "number")):
        if kind is simple:
            return {"type": name}
    return {
        "description": f"Resolved workflow response payload for {_name(kind)}.",
    }


class _Telling:
    """The AG-UI events of one workflow run's events: text output as assistant messages,
    an executor's streamed chunks one message until it is invoked again or another is."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.made = 0
        self.message: str | None = None  # the open text message
        self.agents: dict[str, _AgentTelling] = {}  # each agent executor's streamed turns
        self.requests: list[Any] = []  # the request_info events the run ended with

    def tell(self, event: Any) -> list[dict[str, Any]]:
        from agent_framework import AgentResponse, AgentResponseUpdate

        kind = event.type
        if kind in ("executor_invoked", "executor_completed", "superstep_started"):
            return self.end_message()
        if kind == "request_info":
            self.requests.append(event)
            return self.end_message()
        if kind != "output":
            return []
        data = event.data
        if isinstance(data, AgentResponseUpdate):
            # An agent's streamed turn, told as a hosted agent's (its calls and results
            # too); its approvals come as the workflow's requests, not from here.
            executor = str(event.executor_id)
            if executor not in self.agents:
                self.agents[executor] = _AgentTelling(f"{self.run_id}-{executor}")
            return self.agents[executor].tell(data)
        if isinstance(data, AgentResponse) and self.agents.get(str(event.executor_id)):
            return []  # the whole of a turn already streamed
        text = _whole_text(data)
        if text is not None:
            return [*self.end_message(), *self._say(text), *self.end_message()]
        return [{"type": "CUSTOM", "name": "workflow_output", "value": _safe(data)}]

    def _say(self, text: str) -> list[dict[str, Any]]:
        if not text:
            return []
        out: list[dict[str, Any]] = []
        if self.message is None:
            self.made += 1
            self.message = f"{self.run_id}-m{self.made}"
            out.append(
                {"type": "TEXT_MESSAGE_START", "messageId": self.message, "role": "assistant"}
            )
        out.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": self.message, "delta": text})
        return out

    def end_message(self) -> list[dict[str, Any]]:
        """What is open ends: a text message, an agent's turn."""
        out = [told for agent in self.agents.values() for told in agent.finish_step()]
        message, self.message = self.message, None
        if message is not None:
            out.append({"type": "TEXT_MESSAGE_END", "messageId": message})
        return out


def _whole_text(data: Any) -> str | None:
    """The assistant text of a whole output: a string, a `Message`, an `AgentResponse`."""
    from agent_framework import AgentResponse, Message

    if isinstance(data, str):
        return data
    if isinstance(data, Message):
        return data.text if data.role == "assistant" else None
    if isinstance(data, AgentResponse):
        said = [m for m in data.messages if m.role == "assistant" and m.text]
        return said[-1].text if said else None
    return None
