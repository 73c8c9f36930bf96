"""A LangGraph graph that asks before it sends an email, the Agent Inbox way.

``draft`` says what it will do; ``review`` stops the graph with ``interrupt([request])``,
one ``HumanInterrupt`` about the action ``send_email`` and its args (its ``config``
allowing accept, edit, respond and ignore), and reads the ``HumanResponse`` it is
answered with: ``accept`` sends the email as drafted, ``edit`` sends it with the edited
args, ``response`` keeps the person's words as ``note`` and sends nothing, ``ignore``
sends nothing. What was sent goes into the ``outbox`` given to ``build_graph()`` (one
entry per email sent); ``review`` ends with a line saying what happened.
``build_graph(outbox)`` compiles it with a memory checkpointer; ``build_app(outbox)``
serves it with ag-ui-langgraph on ``POST /``.
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

DRAFTED = "I'll email Ada that order 42 is refunded; asking first."
DESCRIPTION = "Send this email to **Ada**?"
EMAIL: dict[str, Any] = {
    "to": "ada@example.com",
    "subject": "Your refund",
    "body": "Order 42 is refunded.",
}
CONFIG = {"allow_accept": True, "allow_edit": True, "allow_respond": True, "allow_ignore": True}


class Desk(MessagesState, total=False):
    note: str


def build_graph(outbox: list[dict[str, Any]]) -> CompiledStateGraph:
    def send_email(to: str, subject: str, body: str) -> str:
        outbox.append({"to": to, "subject": subject, "body": body})
        return f"Sent {subject!r} to {to}."

    def draft(state: Desk) -> dict[str, Any]:
        return {"messages": [AIMessage(DRAFTED)]}

    def review(state: Desk) -> dict[str, Any]:
        request = {
            "action_request": {"action": "send_email", "args": dict(EMAIL)},
            "config": dict(CONFIG),
            "description": DESCRIPTION,
        }
        response = interrupt([request])[0]
        kind, args = response["type"], response.get("args")
        if kind == "accept":
            return {"messages": [AIMessage(send_email(**EMAIL))]}
        if kind == "edit":
            return {"messages": [AIMessage(send_email(**args["args"]))]}
        if kind == "response":
            return {"note": args, "messages": [AIMessage(f"Not sent: {args}")]}
        if kind == "ignore":
            return {"messages": [AIMessage("Not sent.")]}
        raise ValueError(f"Unknown response type {kind!r}")

    graph = StateGraph(Desk)
    graph.add_node("draft", draft)
    graph.add_node("review", review)
    graph.add_edge(START, "draft")
    graph.add_edge("draft", "review")
    graph.add_edge("review", END)
    return graph.compile(checkpointer=InMemorySaver())


def build_app(outbox: list[dict[str, Any]]) -> FastAPI:
    app = FastAPI()
    add_langgraph_fastapi_endpoint(
        app,
        LangGraphAgent(
            name="inbox",
            graph=build_graph(outbox),
            emit_interrupt_outcome=True,
            enable_legacy_on_interrupt_event=False,
        ),
        "/",
    )
    return app


__all__ = ["CONFIG", "DESCRIPTION", "DRAFTED", "EMAIL", "build_app", "build_graph"]
