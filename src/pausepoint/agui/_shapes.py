"""Other producers' pauses read as cards. An AG-UI interrupt without a pausepoint binding
is shown read-only, unless a shape reader knows it: the reader says what card it is and
how an answer goes back in that producer's own words (the payload its resume entry
carries).

What a card read from a shape can promise is less than a bound pause: nothing vouches
that the interrupt belongs to the run it came with, or that its schema is the one its
producer checks. So it says where it was read from; the answer is checked here against
what the interrupt came with (its schema, the decisions it allows), and the server checks
it again.

Readers are tried newest first; `register_shape` adds one. Built in: Pydantic AI's tool
approvals (`int-<toolCallId>`, reason `tool_call`, answered `{approved, editedArgs?,
reason?}`), LangGraph's (`_shapes_langgraph`: langchain's human in the loop, and the
plain values of `interrupt()` that ask a question), and Microsoft Agent Framework's
(`_shapes_agent_framework`: a tool approval answered `{approved, editedArgs?}`, and a
workflow's `request_info` question answered with a value).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from ..errors import UsageError
from ..transcript.decisions import parse_approval
from ._openai_agents import openai_agents_approval
from ._shape import Shape, ShapeReader
from ._shapes_agent_framework import agent_framework_approval, agent_framework_request
from ._shapes_langgraph import (
    agent_inbox,
    langchain_batched,
    langchain_per_call,
    langgraph_value,
)

__all__ = ["Shape", "ShapeReader", "read_shape", "register_shape"]

logger = logging.getLogger("pausepoint")


def pydantic_ai_approval(interrupt: Mapping[str, Any]) -> Shape | None:
    """A Pydantic AI tool that requires approval, as its AG-UI adapter sends it."""
    call_id, interrupt_id = interrupt.get("toolCallId"), interrupt.get("id")
    schema = interrupt.get("responseSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if (
        interrupt.get("reason") != "tool_call"
        or not isinstance(call_id, str)
        or interrupt_id != f"int-{call_id}"
        or not isinstance(properties, Mapping)
        or "approved" not in properties
    ):
        return None

    def resolve(answer: Any) -> dict[str, Any]:
        approval = parse_approval(answer)
        words = approval.response
        if words is not None:  # Respond: a denial whose reason the model reads
            return {"approved": False, "reason": words}
        payload: dict[str, Any] = {"approved": approval.approved}
        if approval.edited_args is not None:
            payload["editedArgs"] = approval.edited_args
        return payload

    def decline(reason: str) -> dict[str, Any]:
        # Pydantic AI's own denial with a reason; a `cancelled` entry would drop it.
        return {"approved": False, "reason": reason}

    return Shape("Pydantic AI", "tool-approval", resolve, decline)


_READERS: list[ShapeReader] = [
    langchain_per_call,
    langchain_batched,
    pydantic_ai_approval,
    openai_agents_approval,
    agent_framework_approval,
    agent_framework_request,
    agent_inbox,
    langgraph_value,  # after langchain's: any value of a LangGraph pause
]


def register_shape(reader: ShapeReader) -> ShapeReader:
    """Add a shape reader, tried before those there are; returns it (a decorator)."""
    if not callable(reader):
        raise UsageError(f"A shape reader is a function of an interrupt, not {reader!r}.")
    _READERS.insert(0, reader)
    return reader


def read_shape(interrupt: Mapping[str, Any]) -> Shape | None:
    """The shape the first reader that knows `interrupt` makes of it. A reader that
    raises is skipped (and logged): the interrupt then stays read-only."""
    for reader in list(_READERS):
        try:
            shape = reader(interrupt)
        except Exception:
            logger.exception("pausepoint: the shape reader %r failed", reader)
            continue
        if shape is not None:
            return shape
    return None
