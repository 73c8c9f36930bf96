"""A Pydantic AI agent served by Pydantic AI's own AG-UI adapter, for the interop tests.

The model is a scripted ``FunctionModel`` (no network). Asked about an order, it streams
"Refunding order N." and a call ``call_refund_N`` to ``refund``, a tool that needs a
person's approval (``requires_approval=True``), so the run ends deferred and the adapter
tells it as an AG-UI interrupt. Once the call's result (or its denial) is in the history,
the model streams "Done: " and that result as text.

Asked to ship an order, it calls ``ship`` (``call_ship_N``), a tool that defers itself
(``CallDeferred``): its result comes from outside, so a client that declares AG-UI 1.0
hears the call in the ``pendingToolCallIds`` of a success outcome, and sends the result
back as a tool message.

Two routes serve the same agent: ``PATH`` keeps no history (the client's ``messages`` are
the conversation), ``STORED_PATH`` keeps each thread's history in memory on the server.

``python -m tests.agui.peers.pydantic_ai_app PORT`` serves it on 127.0.0.1:PORT.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator

from pydantic_ai import Agent, CallDeferred, DeferredToolRequests
from pydantic_ai.conversation_store import InMemoryConversationStore
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

PATH = "/agent"
STORED_PATH = "/agent/stored"
AMOUNT = 30.0


def _order(prompt: UserPromptPart) -> int:
    found = re.search(r"\d+", prompt.content if isinstance(prompt.content, str) else "")
    return int(found.group()) if found else 42


async def _script(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    last = messages[-1]
    parts = last.parts if isinstance(last, ModelRequest) else []
    results = [part for part in parts if isinstance(part, ToolReturnPart)]
    if results:
        yield f"Done: {results[-1].model_response_str()}"
        return
    prompts = [part for part in parts if isinstance(part, UserPromptPart)]
    order = _order(prompts[-1]) if prompts else 42
    if prompts and "ship" in str(prompts[-1].content).lower():
        yield f"Shipping order {order}."
        args = json.dumps({"order_id": order})
        yield {0: DeltaToolCall(name="ship", json_args=args, tool_call_id=f"call_ship_{order}")}
        return
    yield f"Refunding order {order}."
    args = json.dumps({"order_id": order, "amount": AMOUNT})
    yield {0: DeltaToolCall(name="refund", json_args=args, tool_call_id=f"call_refund_{order}")}


def build_agent() -> Agent[None, str | DeferredToolRequests]:
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(stream_function=_script),
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def refund(order_id: int, amount: float) -> dict[str, float]:
        """Refund an order."""
        return {"refunded": amount, "order_id": order_id}

    @agent.tool_plain
    def ship(order_id: int) -> str:
        """Ship an order (the warehouse answers later)."""
        raise CallDeferred(metadata={"warehouse": "north"})

    return agent


def build_app() -> Starlette:
    agent = build_agent()
    store = InMemoryConversationStore()

    async def run(request: Request) -> Response:
        return await AGUIAdapter.dispatch_request(request, agent=agent)

    async def run_stored(request: Request) -> Response:
        return await AGUIAdapter.dispatch_request(request, agent=agent, conversation_store=store)

    return Starlette(
        routes=[
            Route(PATH, run, methods=["POST"]),
            Route(STORED_PATH, run_stored, methods=["POST"]),
        ]
    )


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(build_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
