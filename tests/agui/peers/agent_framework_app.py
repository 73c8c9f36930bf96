"""A Microsoft Agent Framework agent served by its own AG-UI FastAPI endpoint, for interop.

The chat client is scripted (no network): asked anything, it streams "Refunding order 42."
and a call to ``refund``, a tool whose ``approval_mode`` is ``always_require``, so the
framework asks for an approval instead of running it; once the tool's result is in the
conversation, it streams "Done: " and that result as text. Each run of ``refund`` is
appended, as a line of JSON, to the file ``PAUSEPOINT_PEER_CALLS`` names (if it does), so
a test can read what ran and with which arguments.

At ``/workflow``, a workflow whose one executor asks, by ``request_info``, which warehouse
order 42 ships from (a string), and on the answer yields "Shipping order 42 from " and it.
At ``/workflow-approval``, the refunds agent as a workflow's one executor
(``AgentExecutor``): its approval is asked by ``request_info``.

agent-framework-ag-ui pins ag-ui-protocol below 0.2 and pausepoint needs 1.0, so the two
cannot share an environment: this module runs in an interpreter of its own, imported by
nothing in the test process. ``python -m tests.agui.peers.agent_framework_app PORT``
(from the repository root) serves it on 127.0.0.1:PORT.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from agent_framework import (
    Agent,
    AgentExecutor,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    Executor,
    FunctionInvocationLayer,
    Message,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    handler,
    response_handler,
    tool,
)
from agent_framework.ag_ui import AgentFrameworkWorkflow, add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

TOOL_CALL_ID = "call_refund_42"
PATH = "/agent"
WORKFLOW_PATH = "/workflow"
WORKFLOW_APPROVAL_PATH = "/workflow-approval"
QUESTION = "Which warehouse should order 42 ship from?"
ASKING = "Refunding order 42."


def _results(messages: Sequence[Message]) -> list[Content]:
    return [
        content
        for message in messages
        for content in message.contents
        if content.type == "function_result"
    ]


def _updates(messages: Sequence[Message]) -> list[ChatResponseUpdate]:
    results = _results(messages)
    if not results:
        return [
            ChatResponseUpdate(
                role="assistant", contents=[Content.from_text("Refunding order 42.")]
            ),
            ChatResponseUpdate(
                role="assistant",
                contents=[
                    Content.from_function_call(
                        TOOL_CALL_ID,
                        "refund",
                        arguments=json.dumps({"order_id": 42, "amount": 30.0}),
                    )
                ],
            ),
        ]
    result = results[-1].result
    text = result if isinstance(result, str) else json.dumps(result)
    return [ChatResponseUpdate(role="assistant", contents=[Content.from_text(f"Done: {text}")])]


class ScriptedChatClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """Answers from a script, and runs tools (and asks for approvals) like real clients do."""

    def _inner_get_response(
        self,
        *,
        messages: Sequence[Message],
        stream: bool,
        options: Mapping[str, Any],
        **kwargs: Any,
    ) -> Any:
        updates = _updates(messages)
        if stream:

            async def chunks() -> AsyncIterator[ChatResponseUpdate]:
                for update in updates:
                    yield update

            return self._build_response_stream(chunks())

        async def whole() -> ChatResponse:
            return ChatResponse.from_updates(updates)

        return whole()


@tool(approval_mode="always_require")
def refund(order_id: int, amount: float) -> dict[str, float]:
    """Refund an order."""
    calls = os.environ.get("PAUSEPOINT_PEER_CALLS")
    if calls:
        with open(calls, "a", encoding="utf-8") as out:
            out.write(json.dumps({"order_id": order_id, "amount": amount}) + "\n")
    return {"refunded": amount, "order_id": order_id}


class Dispatch(Executor):
    """Asks where an order ships from, and says so once told."""

    @handler
    async def start(self, messages: list[Message], ctx: WorkflowContext[str, str]) -> None:
        await ctx.request_info({"message": QUESTION, "order_id": 42}, str)

    @response_handler
    async def answered(
        self, request: dict[str, Any], warehouse: str, ctx: WorkflowContext[str, str]
    ) -> None:
        await ctx.yield_output(f"Shipping order 42 from {warehouse}.")


def build_agent() -> Agent:
    return Agent(client=ScriptedChatClient(), name="refunds", tools=[refund])


def build_workflow() -> Workflow:
    return WorkflowBuilder(start_executor=Dispatch(id="dispatch")).build()


def build_app() -> FastAPI:
    app = FastAPI()
    add_agent_framework_fastapi_endpoint(app, build_agent(), path=PATH, single_user=True)
    # A workflow of its own for each thread: one instance keeps its pending requests.
    workflow = AgentFrameworkWorkflow(workflow_factory=lambda _: build_workflow())
    add_agent_framework_fastapi_endpoint(app, workflow, path=WORKFLOW_PATH, single_user=True)
    refunds = AgentFrameworkWorkflow(
        workflow_factory=lambda _: WorkflowBuilder(
            start_executor=AgentExecutor(build_agent(), id="refunds")
        ).build()
    )
    add_agent_framework_fastapi_endpoint(
        app, refunds, path=WORKFLOW_APPROVAL_PATH, single_user=True
    )
    return app


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(build_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
