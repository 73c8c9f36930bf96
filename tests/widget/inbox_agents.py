"""The agent the inbox tests answer: `delete_record(id)` asks before it deletes, and a
gate can hold it once resumed, so a run stays executing while a test looks."""

from __future__ import annotations

import asyncio
from typing import Any

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    Prompt,
    ScriptedModel,
    ToolCall,
    ToolCallRequest,
    action,
    call,
)
from pausepoint.store import RunStore
from pausepoint.transcript import AssistantMessage, InterruptEntry, UserMessage

__all__ = ["Gate", "ops_agent", "refund_agent", "triage_prompt", "waiting"]


class Gate:
    """Holds a resumed action until the test lets it go, so a run stays executing."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()


def ops_agent(executed: list[str], gate: Gate | None = None, *, name: str = "ops") -> Agent:
    """Records `run_id:id` in `executed` for each record it deletes."""

    @action
    async def delete_record(id: int, ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt(f"Delete record {id}?", data={"id": id})
        if gate is not None:
            gate.entered.set()
            await gate.release.wait()
        executed.append(f"{ctx.run_id}:{id}")
        return f"deleted {id}"

    def script(request: Any) -> Any:
        if len(request.items) == 1:
            return call("delete_record", id=int(request.items[0].text.split()[-1]))
        return "Done."

    return Agent(model=ScriptedModel(script), actions=[delete_record], name=name)


async def waiting(agent: Agent, store: RunStore, text: str) -> AgentRun:
    """A run of `agent` in `store`, paused on its question."""
    run = agent.new_run(text, store=store)
    assert (await run.run()).status == "interrupted"
    return run


def refund_agent(executed: list[str], *, name: str = "payments") -> Agent:
    """Records `run_id:amount` in `executed` for each refund a person approved; its runs
    are made by `triage_prompt` (quicker than running each to its pause)."""

    @action(needs_approval=True)
    async def refund(amount: float, customer: str, ctx: ActionContext) -> str:
        executed.append(f"{ctx.run_id}:{amount}")
        return f"refunded {amount} to {customer}"

    return Agent(model=ScriptedModel(lambda request: "Done."), actions=[refund], name=name)


def triage_prompt(run_id: str, *, amount: float, customer: str) -> Prompt:
    """A run of `refund_agent` paused on its approval of `refund(amount, customer)`, as the
    run itself would have stored it."""
    args = {"amount": amount, "customer": customer}
    ask = InterruptEntry(
        id=f"int_{run_id}",
        kind="tool-approval",
        message=f"Refund {amount} to {customer}?",
        data={"toolName": "refund", "args": args},
    )
    return Prompt(
        run_id=run_id,
        items=[
            UserMessage(text=f"Refund {customer}"),
            AssistantMessage(
                tool_calls=[ToolCallRequest(id=f"call_{run_id}", name="refund", input=args)]
            ),
            ToolCall(
                id=f"call_{run_id}",
                name="refund",
                input=args,
                status="interrupted",
                interrupts=[ask],
            ),
        ],
    )
