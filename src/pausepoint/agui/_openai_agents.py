"""An OpenAI Agents SDK agent as an AG-UI event source, for `host()`.

The SDK has no AG-UI adapter of its own, so this one speaks for it: each request runs
`Runner.run_streamed` and tells what it streams as AG-UI events (text, tool calls and
their results). A tool made with `needs_approval` stops the run with
`result.interruptions`; each becomes an interrupt on its call (`oa-<callId>`, reason
`tool_call`), and the continuation that answers them approves or rejects them on the
run's `RunState` (`state.approve(item)` / `state.reject(item, rejection_message=...)`)
before the run goes on.

What the SDK needs to go on travels in the AG-UI state (`STATE_SNAPSHOT`, sent back by
the client with its next request): the paused run's `RunState.to_json()`, or, once a run
completed, its `to_input_list()` for the next turn. So the source keeps nothing between
requests, and a hosted run saved to a file goes on after a restart. The SDK rebuilds a
paused run from that state with `RunState.from_json`, which trusts it: load only runs you
saved yourself.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from ..errors import MissingDependencyError, UsageError
from ..transcript.decisions import parse_approval
from ._shape import Shape

__all__ = ["INTERRUPT_PREFIX", "STATE_KEY", "openai_agents_approval", "openai_agents_source"]

STATE_KEY = "openaiAgents"
"""The key of the AG-UI state that holds what the SDK needs to go on."""
INTERRUPT_PREFIX = "oa-"
"""An approval's interrupt id: this prefix and its call's id."""


def openai_agents_approval(interrupt: Mapping[str, Any]) -> Shape | None:
    """A tool call an OpenAI Agents SDK run waits to have approved (`needs_approval`),
    as this module tells it: approved, or rejected with a message the model reads in the
    call's place (Reject's reason, or Respond's words). The SDK runs a tool with the
    arguments its model gave, so Edit arguments is not offered."""
    call_id, interrupt_id = interrupt.get("toolCallId"), interrupt.get("id")
    metadata = interrupt.get("metadata")
    if (
        interrupt.get("reason") != "tool_call"
        or not isinstance(call_id, str)
        or interrupt_id != f"{INTERRUPT_PREFIX}{call_id}"
        or not isinstance(metadata, Mapping)
        or not isinstance(metadata.get(STATE_KEY), Mapping)
    ):
        return None

    def resolve(answer: Any) -> dict[str, Any]:
        approval = parse_approval(answer)
        if approval.response is not None:
            return {"approved": False, "message": approval.response}
        return {"approved": approval.approved}

    def decline(reason: str) -> dict[str, Any]:
        return {"approved": False, "message": reason}

    return Shape(
        "OpenAI Agents",
        "tool-approval",
        resolve,
        decline,
        decisions=("approve", "respond", "reject"),
    )


def openai_agents_source(agent: Any, options: dict[str, Any]) -> Any:
    """The event source of an `agents.Agent`: each AG-UI request runs it with
    `Runner.run_streamed` (`options` go there: `context=`, `run_config=`, `max_turns=`,
    ...) and yields its AG-UI events."""
    try:
        from agents import Runner, RunState
    except ImportError:
        raise MissingDependencyError(
            "Hosting an OpenAI Agents agent needs the SDK: pip install openai-agents."
        ) from None
    if "input" in options:
        raise UsageError("A hosted agent's input is the run's messages; do not pass input=.")

    async def source(body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        thread_id, run_id = str(body.get("threadId")), str(body.get("runId"))
        yield {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id}
        kept = body.get("state")
        kept = kept.get(STATE_KEY) if isinstance(kept, Mapping) else None
        kept = kept if isinstance(kept, Mapping) else {}
        try:
            start: Any
            if body.get("resume"):
                if not isinstance(kept.get("runState"), Mapping):
                    raise UsageError(
                        "This request answers a pause, but its state holds no paused "
                        "OpenAI Agents run to answer."
                    )
                state = await RunState.from_json(
                    agent,
                    dict(kept["runState"]),
                    context_override=options.get("context"),
                )
                _answer(state, body["resume"])
                start = state
            else:
                start = _input(kept, body.get("messages") or [])
        except Exception as error:
            yield _failed(error, thread_id, run_id)
            return
        result = Runner.run_streamed(agent, start, **options)
        telling = _Telling(run_id)
        finished = False
        try:
            async for event in result.stream_events():
                for told in telling.tell(event):
                    yield told
            finished = True
        except Exception as error:
            finished = True
            yield _failed(error, thread_id, run_id)
            return
        finally:
            if not finished:  # closed by the client's Stop: the SDK's run stops too
                result.cancel()
        paused = list(result.interruptions)
        snapshot = (
            {"runState": result.to_state().to_json()}
            if paused
            else {"input": result.to_input_list()}
        )
        yield {"type": "STATE_SNAPSHOT", "snapshot": {STATE_KEY: snapshot}}
        finish: dict[str, Any] = {"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id}
        if paused:
            finish["outcome"] = {
                "type": "interrupt",
                "interrupts": [_interrupt(item) for item in paused],
            }
        else:
            finish["outcome"] = {"type": "success"}
        yield finish

    return source


def _answer(state: Any, entries: Any) -> None:
    """Approve or reject, on the paused run's state, each call an entry answers."""
    waiting = {item.raw_item.call_id: item for item in state.get_interruptions()}
    for entry in entries:
        interrupt_id = str(entry.get("interruptId", ""))
        call_id = interrupt_id.removeprefix(INTERRUPT_PREFIX)
        item = waiting.get(call_id)
        if item is None:
            raise UsageError(f"The paused run waits on no call for interrupt {interrupt_id!r}.")
        payload = entry.get("payload")
        if entry.get("status") == "resolved" and isinstance(payload, Mapping):
            if payload.get("approved") is True:
                state.approve(item)
                continue
            message = payload.get("message")
            state.reject(item, rejection_message=message if isinstance(message, str) else None)
        else:  # cancelled: refused with the SDK's own words
            state.reject(item)


def _input(kept: Mapping[str, Any], messages: list[Any]) -> list[dict[str, Any]]:
    """What the SDK is run with for a new turn: the conversation it had (its own input
    list, from the state) and the user's new messages, or, with no state, the AG-UI
    history in the SDK's input items."""
    before = kept.get("input")
    if isinstance(before, list):
        new: list[Any] = []
        for message in reversed(messages):
            if not isinstance(message, Mapping) or message.get("role") != "user":
                break
            new.insert(0, message)
        return [*before, *(_item for m in new for _item in _items(m))]
    return [item for m in messages if isinstance(m, Mapping) for item in _items(m)]


def _items(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    role = message.get("role")
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    if role in ("user", "system", "developer"):
        return [{"role": role, "content": text}]
    if role == "tool":
        return [
            {
                "type": "function_call_output",
                "call_id": str(message.get("toolCallId")),
                "output": text,
            }
        ]
    if role != "assistant":
        return []
    items: list[dict[str, Any]] = [{"role": "assistant", "content": text}] if text else []
    for call in message.get("toolCalls") or []:
        function = call.get("function") or {}
        items.append(
            {
                "type": "function_call",
                "call_id": str(call.get("id")),
                "name": str(function.get("name")),
                "arguments": str(function.get("arguments") or "{}"),
            }
        )
    return items


def _interrupt(item: Any) -> dict[str, Any]:
    call = item.raw_item
    return {
        "id": f"{INTERRUPT_PREFIX}{call.call_id}",
        "reason": "tool_call",
        "toolCallId": call.call_id,
        "message": f"{item.agent.name} asks to run {item.tool_name}.",
        "metadata": {STATE_KEY: {"agent": item.agent.name, "toolName": item.tool_name}},
    }


def _failed(error: BaseException, thread_id: str, run_id: str) -> dict[str, Any]:
    return {
        "type": "RUN_ERROR",
        "threadId": thread_id,
        "runId": run_id,
        "message": f"{type(error).__name__}: {error}",
        "code": type(error).__name__,
    }


class _Telling:
    """The AG-UI events of one run's SDK stream events."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.made = 0
        self.open: dict[int, tuple[str, str]] = {}  # output index: (kind, AG-UI id)
        self.streamed: set[str] = set()  # calls whose arguments came in deltas
        self.message: str | None = None  # the model turn's text message, parent of calls

    def _new_id(self) -> str:
        self.made += 1
        return f"{self.run_id}-m{self.made}"

    def tell(self, event: Any) -> list[dict[str, Any]]:
        if event.type == "raw_response_event":
            return self._raw(event.data)
        if event.type == "run_item_stream_event" and event.name == "tool_output":
            raw = event.item.raw_item
            call_id = raw.get("call_id") if isinstance(raw, Mapping) else raw.call_id
            output = event.item.output
            content = output if isinstance(output, str) else json.dumps(output, default=str)
            return [
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": f"{self.run_id}-result-{call_id}",
                    "toolCallId": str(call_id),
                    "content": content,
                    "role": "tool",
                }
            ]
        return []

    def _raw(self, data: Any) -> list[dict[str, Any]]:
        kind = data.type
        if kind == "response.created":
            self.open.clear()
            self.message = None
            return [{"type": "STEP_STARTED", "stepName": "model"}]
        if kind == "response.completed":
            # The model's turn is whole: its calls are running while the SDK runs them.
            return [{"type": "STEP_FINISHED", "stepName": "model"}]
        if kind == "response.output_item.added":
            item = data.item
            if item.type == "message":
                message_id = self._new_id()
                self.open[data.output_index] = ("message", message_id)
                self.message = message_id
                return [
                    {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}
                ]
            if item.type == "function_call":
                self.open[data.output_index] = ("call", item.call_id)
                start = {
                    "type": "TOOL_CALL_START",
                    "toolCallId": item.call_id,
                    "toolCallName": item.name,
                }
                if self.message is not None:
                    start["parentMessageId"] = self.message
                return [start]
            return []
        opened = self.open.get(getattr(data, "output_index", -1))
        if opened is None:
            return []
        what, made_id = opened
        if kind == "response.output_text.delta" and what == "message" and data.delta:
            return [{"type": "TEXT_MESSAGE_CONTENT", "messageId": made_id, "delta": data.delta}]
        if kind == "response.function_call_arguments.delta" and what == "call" and data.delta:
            self.streamed.add(made_id)
            return [{"type": "TOOL_CALL_ARGS", "toolCallId": made_id, "delta": data.delta}]
        if kind == "response.output_item.done":
            del self.open[data.output_index]
            if what == "message":
                return [{"type": "TEXT_MESSAGE_END", "messageId": made_id}]
            out: list[dict[str, Any]] = []
            arguments = getattr(data.item, "arguments", "")
            if made_id not in self.streamed and arguments:
                out.append({"type": "TOOL_CALL_ARGS", "toolCallId": made_id, "delta": arguments})
            out.append({"type": "TOOL_CALL_END", "toolCallId": made_id})
            return out
        return []
