"""A Microsoft Agent Framework workflow for the hosted interop tests, on
agent-framework-core alone (its AG-UI server does not install beside pausepoint; the same
workflow is served in agent_framework_app.py).

Its one executor, ``dispatch``, asks by ``request_info`` which warehouse order 42 ships
from (a string) and, told, yields "Shipping order 42 from " and it. Asked to "wait", it
first awaits `GATE` (set by the test), noting in `ENDED` that it started and, if so, that
it was cancelled. `ASKED` lists the messages each run started with; `HEARD` each answer
the executor read.

`build_refunds_workflow` makes the refunds agent of agent_framework_hosted.py a workflow's
one executor (``AgentExecutor``): its approval is asked by ``request_info``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agent_framework import (
    AgentExecutor,
    Executor,
    Message,
    Workflow,
    WorkflowBuilder,
    WorkflowContext,
    handler,
    response_handler,
)

QUESTION = "Which warehouse should order 42 ship from?"
ASKED: list[list[str]] = []
HEARD: list[str] = []
ENDED: list[str] = []
GATE = asyncio.Event()


class Dispatch(Executor):
    """Asks where an order ships from, and says so once told."""

    @handler
    async def start(self, messages: list[Message], ctx: WorkflowContext[str, str]) -> None:
        ASKED.append([m.text for m in messages])
        if "wait" in messages[-1].text:
            ENDED.append("started")
            try:
                await GATE.wait()
            except asyncio.CancelledError:
                ENDED.append("cancelled")
                raise
        await ctx.request_info({"message": QUESTION, "order_id": 42}, str)

    @response_handler
    async def answered(
        self, request: dict[str, Any], warehouse: str, ctx: WorkflowContext[str, str]
    ) -> None:
        HEARD.append(warehouse)
        await ctx.yield_output(f"Shipping order 42 from {warehouse}.")


def build_workflow() -> Workflow:
    """A new workflow of one ``dispatch`` executor."""
    return WorkflowBuilder(start_executor=Dispatch(id="dispatch")).build()


def build_refunds_workflow() -> Workflow:
    """A new workflow of one ``refunds`` executor: the hosted tests' refunds agent."""
    from tests.agui.peers.agent_framework_hosted import build_agent

    return WorkflowBuilder(start_executor=AgentExecutor(build_agent(), id="refunds")).build()
