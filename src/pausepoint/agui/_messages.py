"""The transcript as AG-UI messages: stable ids, tool outcomes as text, the snapshot."""

from __future__ import annotations

import json
from typing import Any

from ag_ui import core as agui

from ..models import outcome_text
from ..transcript import AssistantMessage, Item, Prompt, ToolCall, UserMessage, read_by_model

__all__ = [
    "SETTLED",
    "arguments_text",
    "message_id",
    "position_of",
    "result_error",
    "result_text",
    "snapshot_messages",
]

SETTLED = frozenset({"succeeded", "failed", "rejected", "responded", "cancelled"})
"""The statuses of a tool call that has an outcome (a result message on the wire)."""

AguiMessage = agui.UserMessage | agui.AssistantMessage | agui.ToolMessage


def message_id(prompt: Prompt, position: int) -> str:
    """The AG-UI id of the transcript item at `position`: the same in every stream and
    snapshot of the run, so a client can match a streamed message with a snapshot's."""
    return f"{prompt.run_id}-{position}"


def position_of(prompt: Prompt, item: Item) -> int:
    """Where `item` (the object itself) is in the transcript; the loop appends, so it is
    looked for from the end."""
    items = prompt.items
    for position in range(len(items) - 1, -1, -1):
        if items[position] is item:
            return position
    raise LookupError("the item is not in the run's transcript")


def arguments_text(arguments: dict[str, Any]) -> str:
    """A tool call's arguments as the JSON text AG-UI carries."""
    return json.dumps(arguments, ensure_ascii=False)


def result_text(record: ToolCall) -> str:
    """What a settled call returned, as text: the words the model reads (`outcome_text`)."""
    return outcome_text(record)


def result_error(record: ToolCall) -> str | None:
    """Why a call that did not succeed has no result (None for a success)."""
    if record.status in ("succeeded", "responded"):
        return None
    error = record.error
    return f"{error.name}: {error.message}" if error is not None else None


def snapshot_messages(prompt: Prompt) -> list[AguiMessage]:
    """The conversation as AG-UI messages, as the model reads it: a turn set aside by
    Retry is left out, and a call still waiting (on a person, or to run) has no tool
    message yet. The instructions are the agent's, not the conversation's: left out.

    A message is built once: the same item at the same place of the same run gives the
    same message in every later snapshot (a settled call, a message; `_BUILT` keeps the
    most recent ones), so a long run's snapshot costs a lookup per item, not a build."""
    positions = {id(item): position for position, item in enumerate(prompt.items)}
    # A fork whose items were edited in place is built afresh: its edits change items.
    keep = prompt.parent is None or not prompt.parent.edited
    out: list[AguiMessage] = []
    for item in read_by_model(prompt.items):
        position = positions[id(item)]
        if isinstance(item, ToolCall) and item.status not in SETTLED:
            continue
        key = (prompt.run_id, position, item.type, _fingerprint(item))
        message = _BUILT.get(key) if keep else None
        if message is None:
            message = _message(item, message_id(prompt, position))
            if keep:
                _BUILT[key] = message
                if len(_BUILT) > _BUILT_MAX:
                    del _BUILT[next(iter(_BUILT))]
        out.append(message)
    return out


_BUILT: dict[tuple[str, int, str, int], AguiMessage] = {}


def _fingerprint(item: Item) -> int:
    """What the message of `item` is built from: two runs with one id (two servers that
    each name a run after its thread) never share a message unless it says the same."""
    if isinstance(item, UserMessage):
        return hash(item.text)
    if isinstance(item, AssistantMessage):
        return hash((item.text, *(call.id for call in item.tool_calls)))
    return hash((item.id, item.status, result_text(item)))


_BUILT_MAX = 100_000


def _message(item: Item, mid: str) -> AguiMessage:
    if isinstance(item, UserMessage):
        return agui.UserMessage(id=mid, content=item.text)
    if isinstance(item, AssistantMessage):
        calls = [
            agui.ToolCall(
                id=call.id,
                function=agui.FunctionCall(name=call.name, arguments=arguments_text(call.input)),
            )
            for call in item.tool_calls
        ]
        return agui.AssistantMessage(id=mid, content=item.text or None, tool_calls=calls or None)
    return agui.ToolMessage(
        id=mid, tool_call_id=item.id, content=result_text(item), error=result_error(item)
    )
