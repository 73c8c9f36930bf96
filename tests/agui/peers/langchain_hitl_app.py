"""An agent built with langchain's `create_agent` and its `HumanInTheLoopMiddleware`,
served over AG-UI by ag-ui-langgraph: the way most LangGraph users pause for a person.

The model (scripted, no network) answers a request with two calls in one turn:
``refund(order_id=42, amount=30.0)`` and ``notify(customer="Ada")``. The middleware
gates both: ``refund`` allows every decision (approve, edit, reject, respond), ``notify``
only approve and reject. Once the calls have their outcomes, the model streams one line
that repeats each tool message it was sent, so what it saw (a result, a refusal, a
person's response) is in the final text. `RAN` records each tool that really ran, with
its arguments.

``build_app("batched" | "per_call")`` returns the ASGI app (the package's own FastAPI
endpoint helper) on ``POST /``, with a memory checkpointer so one app keeps its threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint  # type: ignore[import-untyped]
from fastapi import FastAPI
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from tests.agui.peers.langgraph_app import RefundDeskModel

ASKING = "I'll refund order 42 and tell Ada."
CALLS = [
    {"name": "refund", "args": {"order_id": 42, "amount": 30.0}, "id": "call_refund"},
    {"name": "notify", "args": {"customer": "Ada"}, "id": "call_notify"},
]
RAN: list[tuple[str, dict[str, Any]]] = []


@tool
def refund(order_id: int, amount: float) -> str:
    """Refund `amount` on an order."""
    RAN.append(("refund", {"order_id": order_id, "amount": amount}))
    return f"refunded {amount} on order {order_id}"


@tool
def notify(customer: str) -> str:
    """Tell a customer their refund is on its way."""
    RAN.append(("notify", {"customer": customer}))
    return f"told {customer}"


class DeskModel(RefundDeskModel):
    """Two gated calls after a person's message; after tool messages, one line that
    repeats them. Streams as the LangGraph peer's model does."""

    @property
    def _llm_type(self) -> str:
        return "hitl-desk-fake"

    def bind_tools(self, tools: Any, **kwargs: Any) -> DeskModel:  # type: ignore[override]
        return self

    def _reply(self, messages: Sequence[BaseMessage]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            seen = [str(m.content) for m in messages if isinstance(m, ToolMessage)]
            return AIMessage(content="Done: " + " | ".join(seen))
        return AIMessage(
            content=ASKING,
            tool_calls=[{**call, "type": "tool_call"} for call in CALLS],  # type: ignore[misc]
        )


def build_agent(mode: Literal["batched", "per_call"]) -> Any:
    return create_agent(
        DeskModel(),
        tools=[refund, notify],
        middleware=[
            HumanInTheLoopMiddleware(
                interrupt_on={
                    "refund": True,
                    "notify": {"allowed_decisions": ["approve", "reject"]},
                },
                interrupt_mode=mode,
            )
        ],
        checkpointer=InMemorySaver(),
    )


def build_app(mode: Literal["batched", "per_call"] = "batched") -> FastAPI:
    """The agent on ``POST /``, ending a paused run with AG-UI's interrupt outcome."""
    app = FastAPI()
    add_langgraph_fastapi_endpoint(
        app,
        LangGraphAgent(
            name="refund_desk_hitl",
            graph=build_agent(mode),
            emit_interrupt_outcome=True,
            enable_legacy_on_interrupt_event=False,
        ),
        "/",
    )
    return app


__all__ = ["ASKING", "CALLS", "RAN", "build_agent", "build_app"]
