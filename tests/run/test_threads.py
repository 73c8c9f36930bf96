"""Answers from other threads run on the run's own loop; `on_recorded` marks the answer."""

from __future__ import annotations

import asyncio
import threading

from pausepoint import ActionContext, ActionInterrupt, Agent, ScriptedModel, action, call


async def test_resume_sync_from_another_thread_runs_on_the_runs_loop() -> None:
    threads: list[int] = []

    @action
    async def ask(ctx: ActionContext) -> str:
        """Ask first."""
        threads.append(threading.get_ident())
        if ctx.resumption is None:
            raise ActionInterrupt("ok?")
        return "fine"

    run = Agent(model=ScriptedModel([call("ask"), "done"]), actions=[ask]).new_run("x")
    await run.run()
    loop_thread = threading.get_ident()

    result = await asyncio.to_thread(run.resume_sync, "yes")

    assert result.status == "completed"
    assert threads == [loop_thread, loop_thread]


async def test_reject_sync_from_another_thread_runs_on_the_runs_loop() -> None:
    finished_on: list[int] = []

    @action(needs_approval=True)
    def wipe() -> str:
        """Wipe."""
        return "wiped"

    run = Agent(model=ScriptedModel([call("wipe"), "kept"]), actions=[wipe]).new_run("x")
    run.on("run_finished", lambda e: finished_on.append(threading.get_ident()))
    await run.run()

    result = await asyncio.to_thread(run.reject_sync, "no")

    assert result.output == "kept"
    assert finished_on == [threading.get_ident()] * 2


async def test_on_recorded_is_called_once_the_answer_is_written_before_the_action_reruns() -> None:
    order: list[str] = []

    @action
    async def ask(ctx: ActionContext) -> str:
        """Ask first."""
        if ctx.resumption is None:
            raise ActionInterrupt("ok?")
        order.append("action re-runs")
        return "fine"

    run = Agent(model=ScriptedModel([call("ask"), "done"]), actions=[ask]).new_run("x")
    await run.run()
    ((_, entry),) = run.prompt.pending()

    def recorded() -> None:
        assert entry.resolution is not None
        order.append("recorded")

    await run.resume("yes", on_recorded=recorded)

    assert order == ["recorded", "action re-runs"]
