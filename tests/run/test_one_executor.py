"""One run, one executor: two AgentRun objects over one run never execute it together."""

from __future__ import annotations

import asyncio

import pytest

from pausepoint import Agent, AgentRun, Prompt, ScriptedModel, action, call
from pausepoint.errors import RunBusyError


async def test_a_second_agentrun_over_a_prompt_being_executed_is_busy() -> None:
    entered = asyncio.Event()
    release = asyncio.Event()
    runs: list[int] = []

    @action
    async def refund(order_id: int) -> str:
        """Refund an order."""
        runs.append(order_id)
        entered.set()
        await release.wait()
        return "refunded"

    agent = Agent(model=ScriptedModel([call("refund", order_id=7), "done"]), actions=[refund])
    first = agent.new_run("x")
    second = AgentRun(agent, first.prompt)
    copy = AgentRun(agent, Prompt.model_validate_json(first.prompt.model_dump_json()))
    task = asyncio.create_task(first.run())
    await entered.wait()

    assert second.busy
    assert copy.busy
    before = first.prompt.model_dump_json()
    with pytest.raises(RunBusyError, match="another AgentRun"):
        await second.run()
    with pytest.raises(RunBusyError, match="another AgentRun"):
        await copy.run()
    assert first.prompt.model_dump_json() == before

    release.set()
    assert (await task).status == "completed"
    assert runs == [7]
    assert not second.busy
    assert (await second.run("and now?")).status == "failed"  # the script has ended


async def test_answering_through_a_second_object_while_the_first_executes_is_busy() -> None:
    entered = asyncio.Event()
    release = asyncio.Event()

    @action
    async def slow() -> str:
        """Take a while."""
        entered.set()
        await release.wait()
        return "done"

    @action(needs_approval=True)
    def wipe() -> str:
        """Wipe."""
        return "wiped"

    agent = Agent(model=ScriptedModel([[call("wipe"), call("slow")], "ok"]), actions=[wipe, slow])
    first = agent.new_run("x")
    task = asyncio.create_task(first.run())
    await entered.wait()
    second = AgentRun(agent, first.prompt)

    with pytest.raises(RunBusyError):
        await second.resume(True)
    assert first.prompt.pending()[0][1].is_pending

    release.set()
    assert (await task).status == "interrupted"
    assert (await second.resume(True)).status == "completed"
