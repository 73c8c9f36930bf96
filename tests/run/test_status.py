"""`AgentRun.status` is the run's one status: what the view, the snapshot and the store
show, settled before `run_finished` fires."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, get_args

import pytest
from tests.run.endings import Broken, ask, hang

from pausepoint import (
    Agent,
    AgentRun,
    Prompt,
    RunStatus,
    ScriptedModel,
    call,
)
from pausepoint.store import SQLiteStore
from pausepoint.widget._status import status_of


def asking() -> Agent:
    return Agent(model=ScriptedModel([call("ask"), "done"]), actions=[ask])


def test_the_status_names_every_state_of_a_run() -> None:
    assert set(get_args(RunStatus)) == {
        "idle",
        "running",
        "paused",
        "interrupted",
        "completed",
        "failed",
        "cancelled",
    }


async def test_a_run_is_idle_then_interrupted_then_completed() -> None:
    run = asking().new_run("x")
    assert run.status == "idle"
    await run.run()
    assert run.status == "interrupted"
    await run.resume(True)
    assert run.status == "completed"


async def test_a_failed_run_and_a_paused_run_say_so() -> None:
    failed = Agent(model=Broken()).new_run("x")
    await failed.run()
    assert failed.status == "failed"
    assert status_of(failed) == ("failed", {"name": "ConnectionError", "message": "endpoint down"})

    paused = Agent(model=ScriptedModel(["hi"])).new_run("x", step=True)
    await paused.run()
    assert paused.status == "paused"


async def test_the_status_is_running_while_it_executes_and_cancelled_after_a_stop() -> None:
    run = Agent(model=ScriptedModel([call("hang"), "ok"]), actions=[hang]).new_run("x")
    seen: list[RunStatus] = []
    started = asyncio.Event()

    def on_start(event: Any) -> None:
        seen.append(run.status)
        started.set()

    run.on("tool_call_started", on_start)
    task = asyncio.create_task(run.run())
    await started.wait()
    assert seen == ["running"]
    await run.cancel("stop")
    await task
    assert run.status == "cancelled"


def watched(run: AgentRun) -> list[tuple[str, str, str]]:
    """What run.status, the view's status and the event said, at each run_finished."""
    seen: list[tuple[str, str, str]] = []
    run.on("run_finished", lambda e: seen.append((run.status, status_of(run)[0], e.result.status)))
    return seen


@pytest.mark.parametrize("ending", ["completed", "interrupted", "failed", "cancelled"])
async def test_the_status_is_settled_when_run_finished_fires(ending: str) -> None:
    if ending == "failed":
        run = Agent(model=Broken()).new_run("x")
    elif ending == "cancelled":
        run = Agent(model=ScriptedModel([call("hang"), "ok"]), actions=[hang]).new_run("x")
        run.on("tool_call_started", lambda e: asyncio.ensure_future(run.cancel()))
    else:
        run = asking().new_run("x")
    seen = watched(run)
    await run.run()
    if ending == "completed":
        await run.resume(True)
    assert seen[-1] == (ending, ending, ending)


async def test_the_store_saves_the_runs_own_status(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "runs.db") as store:
        run = asking().new_run("x", store=store)
        assert store.summary(run.id).status == run.status == "idle"
        await run.run()
        assert store.summary(run.id).status == run.status == "interrupted"
        await run.resume(True)
        assert store.summary(run.id).status == run.status == "completed"


async def test_a_run_stored_as_ready_by_an_older_version_loads_and_saves_its_status(
    tmp_path: Path,
) -> None:
    with SQLiteStore(tmp_path / "runs.db") as store:
        prompt = Prompt.from_user("x")
        store.create(prompt, status="ready")  # the spelling of "idle" before one status
        assert store.summary(prompt.run_id).status == "idle"  # listed in today's words
        run = AgentRun.load(store, prompt.run_id, asking())
        assert run.status == "idle"
        await run.run()
        assert store.summary(run.id).status == run.status == "interrupted"
