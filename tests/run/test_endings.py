"""However a stretch of the run ends, run_finished fires, result is current, and the
transcript saves and loads unchanged."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from tests.run.endings import Broken, ask, hang

from pausepoint import (
    Agent,
    AgentRun,
    AgentRunResult,
    Prompt,
    ScriptedModel,
    action,
    call,
)


async def completed() -> tuple[AgentRun, AgentRunResult]:
    run = Agent(model=ScriptedModel(["hi"])).new_run("x")
    return run, await run.run()


async def interrupted() -> tuple[AgentRun, AgentRunResult]:
    run = Agent(model=ScriptedModel([call("ask"), "ok"]), actions=[ask]).new_run("x")
    return run, await run.run()


async def failed() -> tuple[AgentRun, AgentRunResult]:
    run = Agent(model=Broken()).new_run("x")
    return run, await run.run()


@action
def noop() -> None:
    """Do nothing."""


async def limit() -> tuple[AgentRun, AgentRunResult]:
    agent = Agent(model=ScriptedModel(lambda r: call("noop")), actions=[noop], max_turns=2)
    run = agent.new_run("x")
    return run, await run.run()


async def action_timeout() -> tuple[AgentRun, AgentRunResult]:
    run = Agent(
        model=ScriptedModel([call("hang"), "gave up"]), actions=[hang], action_timeout=0.01
    ).new_run("x")
    return run, await run.run()


async def cancelled() -> tuple[AgentRun, AgentRunResult]:
    run = Agent(model=ScriptedModel([call("hang"), "ok"]), actions=[hang]).new_run("x")
    started = asyncio.Event()
    run.on("tool_call_started", lambda e: started.set())
    task = asyncio.create_task(run.run())
    await started.wait()
    await run.cancel("stop")
    return run, await task


ENDINGS: dict[str, tuple[Callable[[], Awaitable[tuple[AgentRun, AgentRunResult]]], str]] = {
    "completed": (completed, "completed"),
    "interrupted": (interrupted, "interrupted"),
    "failed": (failed, "failed"),
    "max turns": (limit, "failed"),
    "action timeout": (action_timeout, "completed"),
    "cancelled": (cancelled, "cancelled"),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
async def test_every_ending_fires_run_finished_and_leaves_a_current_result(
    ending: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, status = ENDINGS[ending]
    finished: list[Any] = []
    init = AgentRun.__init__

    def subscribing(self: AgentRun, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.on("run_finished", lambda e: finished.append(e.result))

    monkeypatch.setattr(AgentRun, "__init__", subscribing)

    run, result = await make()

    assert result.status == status
    assert finished[-1] is result
    assert run.result is result
    assert (await run.wait()) is result
    assert not run.busy
    assert Prompt.model_validate_json(run.prompt.model_dump_json()) == run.prompt
