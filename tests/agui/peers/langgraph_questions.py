"""A LangGraph graph whose nodes ask a person with a plain ``interrupt()``, no tool call.

``read`` answers the request with a line of text; ``approve`` stops the graph with
``interrupt({"message", "responseSchema"})``, asking whether to refund; ``ask`` stops it
again with ``interrupt("What name goes on the receipt?")``, a question in words; ``close``
writes one line from both answers. ``build_graph()`` compiles it with a memory
checkpointer; ``build_app()`` serves it with ag-ui-langgraph on ``POST /``.
"""

from __future__ import annotations

from typing import Any

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint  # type: ignore[import-untyped]
from fastapi import FastAPI
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import interrupt

READING = "Order 42 can be refunded; I'll ask first."
QUESTION = "Refund 30.00 on order 42?"
NAME_QUESTION = "What name goes on the receipt?"
DECISION: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "amount": {"type": "number", "minimum": 0}},
    "required": ["approved"],
}


class Desk(MessagesState, total=False):
    decision: Any
    name: Any


def read(state: Desk) -> dict[str, Any]:
    return {"messages": [AIMessage(READING)]}


def approve(state: Desk) -> dict[str, Any]:
    return {"decision": interrupt({"message": QUESTION, "responseSchema": DECISION})}


def ask(state: Desk) -> dict[str, Any]:
    return {"name": interrupt(NAME_QUESTION)}


def close(state: Desk) -> dict[str, Any]:
    decision = state.get("decision") or {}
    paid = float(decision.get("amount", 30.0)) if decision.get("approved") else 0.0
    return {"messages": [AIMessage(f"Refunded {paid:.2f} to {state.get('name')}.")]}


def build_graph() -> CompiledStateGraph:
    graph = StateGraph(Desk)
    for node in (read, approve, ask, close):
        graph.add_node(node.__name__, node)
    graph.add_edge(START, "read")
    graph.add_edge("read", "approve")
    graph.add_edge("approve", "ask")
    graph.add_edge("ask", "close")
    graph.add_edge("close", END)
    return graph.compile(checkpointer=InMemorySaver())


def build_app() -> FastAPI:
    app = FastAPI()
    add_langgraph_fastapi_endpoint(
        app,
        LangGraphAgent(
            name="questions",
            graph=build_graph(),
            emit_interrupt_outcome=True,
            enable_legacy_on_interrupt_event=False,
        ),
        "/",
    )
    return app


__all__ = ["DECISION", "NAME_QUESTION", "QUESTION", "READING", "build_app", "build_graph"]
