"""A LangGraph graph served over AG-UI by ag-ui-langgraph: a peer we did not write.

The graph is a small refund desk. Its model (scripted, no network) answers a request by
calling ``refund(order_id=42, amount=30.0)``; the ``approve`` node then stops the graph
with LangGraph's ``interrupt()``, asking whether to pay the refund and how much. The answer
comes back as the resume value: the node records it in the graph's state (``decision``,
``refunded``) and answers the tool call, and the model streams a closing line that repeats
the tool's result, so the amount that was approved shows up in the final text.

``build_app()`` returns the ASGI app (FastAPI, the package's own endpoint helper) with the
graph on ``POST /`` and a memory checkpointer, so one app keeps its threads across runs.
``python tests/agui/peers/langgraph_app.py PORT [--legacy-only]`` serves it on
127.0.0.1:PORT (``--legacy-only``: the package's default way of telling a pause).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from typing import Annotated, Any

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint  # type: ignore[import-untyped]
from fastapi import FastAPI
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    AnyMessage,
    BaseMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict

ORDER_ID = 42
AMOUNT = 30.0
REFUND_CALL_ID = "call_refund_42"
ASKING = "Order 42 qualifies for a refund; I'll ask for approval first."

# What the approve node asks for: JSON Schema of the answer it reads.
DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "amount": {"type": "number", "minimum": 0},
    },
    "required": ["approved"],
}


class DeskState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    decision: dict[str, Any] | None
    refunded: float | None


class RefundDeskModel(BaseChatModel):
    """Scripted by the conversation's last message, and streams what it says.

    After a person's message: some text, then a ``refund`` tool call. After a tool's
    result: one line that repeats it. Streaming goes word by word, and a tool call as
    its name, then its arguments in two pieces, as a provider's stream would.
    """

    @property
    def _llm_type(self) -> str:
        return "refund-desk-fake"

    def _reply(self, messages: Sequence[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            return AIMessage(content=f"Done: {last.content}")
        return AIMessage(
            content=ASKING,
            tool_calls=[
                {
                    "name": "refund",
                    "args": {"order_id": ORDER_ID, "amount": AMOUNT},
                    "id": REFUND_CALL_ID,
                    "type": "tool_call",
                }
            ],
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        text = str(reply.content)
        words = text.split(" ")
        pieces = [word + " " for word in words[:-1]] + [words[-1]]
        chunks = [AIMessageChunk(content=piece) for piece in pieces if piece]
        for index, call in enumerate(reply.tool_calls):
            # As providers stream one: the name and id first, then the arguments in pieces
            # (the peer reads arguments only from the chunks after the first).
            arguments = json.dumps(call["args"])
            middle = len(arguments) // 2
            for piece, part in enumerate(("", arguments[:middle], arguments[middle:])):
                chunks.append(
                    AIMessageChunk(
                        content="",
                        tool_call_chunks=[
                            {
                                "name": call["name"] if piece == 0 else None,
                                "args": part,
                                "id": call["id"] if piece == 0 else None,
                                "index": index,
                                "type": "tool_call_chunk",
                            }
                        ],
                    )
                )
        for chunk in chunks:
            generation = ChatGenerationChunk(message=chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token(str(chunk.content), chunk=generation)
            yield generation


MODEL = RefundDeskModel()


async def agent(state: DeskState) -> dict[str, Any]:
    reply = await MODEL.ainvoke(state["messages"])
    return {"messages": [reply]}


def approve(state: DeskState) -> dict[str, Any]:
    last = state["messages"][-1]
    assert isinstance(last, AIMessage)
    assert last.tool_calls
    call = last.tool_calls[0]
    amount = float(call["args"]["amount"])
    decision = interrupt(
        {
            "reason": "refund_approval",
            "message": f"Approve a refund of {amount} for order {call['args']['order_id']}?",
            "toolCallId": call["id"],
            "responseSchema": DECISION_SCHEMA,
            "order_id": call["args"]["order_id"],
            "amount": amount,
        }
    )
    if not isinstance(decision, dict):
        decision = {"approved": False, "note": f"unreadable answer: {decision!r}"}
    if decision.get("approved"):
        paid = float(decision.get("amount", amount))
        result = f"refunded {paid} on order {call['args']['order_id']}."
    else:
        paid = 0.0
        result = f"the refund on order {call['args']['order_id']} was declined."
    return {
        "messages": [ToolMessage(content=result, tool_call_id=call["id"], name=call["name"])],
        "decision": decision,
        "refunded": paid,
    }


def _after_agent(state: DeskState) -> str:
    last = state["messages"][-1]
    return "approve" if isinstance(last, AIMessage) and last.tool_calls else END


def build_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    graph = StateGraph(DeskState)
    graph.add_node("agent", agent)
    graph.add_node("approve", approve)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", _after_agent, ["approve", END])
    graph.add_edge("approve", "agent")
    return graph.compile(checkpointer=InMemorySaver())


def build_app(*, interrupt_outcome: bool = True, legacy_event: bool = True) -> FastAPI:
    """The graph on ``POST /`` (and ``GET /health``).

    ``interrupt_outcome`` ends a paused run with AG-UI 1.0's
    ``RUN_FINISHED.outcome = {type: "interrupt", interrupts: [...]}``. The package leaves
    it off unless asked: a paused run then ends with a plain RUN_FINISHED, and the pause is
    told only by a ``CUSTOM`` event named ``on_interrupt`` whose value is the interrupt's
    value as a JSON string, with no interrupt id. ``legacy_event`` keeps that event (before
    the outcome, when both are on); with it off the package turns the outcome on.
    """
    app = FastAPI()
    add_langgraph_fastapi_endpoint(
        app,
        LangGraphAgent(
            name="refund_desk",
            graph=build_graph(),
            emit_interrupt_outcome=interrupt_outcome,
            enable_legacy_on_interrupt_event=legacy_event,
        ),
        "/",
    )
    return app


def main(argv: Sequence[str]) -> None:
    import uvicorn

    port = int(argv[1]) if len(argv) > 1 else 8123
    legacy_only = "--legacy-only" in argv
    uvicorn.run(
        build_app(interrupt_outcome=not legacy_only),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )


if __name__ == "__main__":
    main(sys.argv)


__all__ = ["AMOUNT", "ASKING", "ORDER_ID", "build_app", "build_graph"]
