"""Stored runs scheduled by a real Temporal dev server (tests/temporal/conftest.py): the
transcript stays in the store, the workflow history holds ids and small outcomes, pauses
wait in the workflow and are answered with Workflow Updates checked by the run's checks."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from tests.temporal import agents
from tests.temporal.agents import STATUS_ATTRIBUTE

pytest.importorskip("temporalio")

from temporalio.client import Client
from temporalio.worker import Replayer

from pausepoint import SQLiteStore, ToolCall
from pausepoint.errors import InvalidResolutionError, NoPendingInterruptError
from pausepoint.temporal import RunWorkflow, TemporalRunner, sandbox, temporal_worker


@pytest.fixture
async def client(temporal_address: str) -> Client:
    return await Client.connect(temporal_address)


@pytest.fixture
def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "runs.db")
    yield opened  # type: ignore[misc]
    opened.close()


def queue() -> str:
    return f"pausepoint-{uuid.uuid4().hex[:8]}"


async def until_waiting(runner: TemporalRunner, run_id: str) -> list[str]:
    """The interrupts the run's workflow waits on, once it waits (a budget, not a goal)."""
    async with asyncio.timeout(120):
        while True:
            status = await runner.status(run_id)
            if status.status == "interrupted":
                return status.pending
            await asyncio.sleep(0.05)


async def test_a_run_is_executed_by_a_temporal_worker_and_its_history_holds_no_transcript(
    client: Client, store: SQLiteStore
) -> None:
    task_queue = queue()
    agent = agents.lookup()
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Look up order 3 " + "with a long note " * 200, store=store)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.start(run)
        ended = await runner.result(run.id)

    assert (ended.status, ended.pending) == ("completed", [])
    loaded = agent.load(run.id, store)
    assert loaded.status == "completed"
    assert loaded.prompt.output == "Done: order 3 is fine"
    history = json.dumps((await runner.handle(run.id).fetch_history()).to_json_dict())
    assert "with a long note" not in history  # the transcript stays in the store
    assert "order 3 is fine" not in history
    assert len(history) < 20_000


async def test_a_pause_waits_in_the_workflow_and_an_update_answers_it(
    client: Client, store: SQLiteStore
) -> None:
    task_queue = queue()
    agent = agents.shipping()
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Ship order 7", store=store)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.start(run)
        (waiting,) = await until_waiting(runner, run.id)
        # Another kernel reads the same store: the run waits on the same question.
        there = agent.load(run.id, store)
        assert there.status == "interrupted"
        assert [p.id for p in there.pending] == [waiting]

        answered = await runner.resume(run.id, {"speed": "express"}, interrupt=waiting)
        assert (answered.status, answered.pending) == ("idle", [])
        ended = await runner.result(run.id)

    assert ended.status == "completed"
    done = agent.load(run.id, store)
    assert done.prompt.output == "Done: order 7 sent express"
    (entry,) = [e for item in done.prompt.items for e in getattr(item, "interrupts", [])]
    assert entry.id == waiting


async def test_a_refused_update_raises_pausepoints_error_and_changes_nothing(
    client: Client, store: SQLiteStore
) -> None:
    task_queue = queue()
    agent = agents.shipping()
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Ship order 7", store=store)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.start(run)
        (waiting,) = await until_waiting(runner, run.id)
        before = agent.load(run.id, store).prompt.model_dump_json()

        with pytest.raises(InvalidResolutionError) as refused:
            await runner.resume(run.id, {"speed": "warp"}, interrupt=waiting)
        assert refused.value.problems
        assert refused.value.problems[0].path.startswith("$")
        assert "warp" in refused.value.problems[0].message
        with pytest.raises(NoPendingInterruptError):
            await runner.resume(run.id, {"speed": "express"}, interrupt="int_nowhere")

        assert agent.load(run.id, store).prompt.model_dump_json() == before
        assert (await runner.status(run.id)).pending == [waiting]
        # Declined instead: the model is told, the run ends.
        await runner.reject(run.id, "Order 7 stays here.", interrupt=waiting)
        ended = await runner.result(run.id)

    assert ended.status == "completed"
    assert "Order 7 stays here" in str(agent.load(run.id, store).prompt.output)


async def test_the_workflow_replays_from_its_history(client: Client, store: SQLiteStore) -> None:
    task_queue = queue()
    agent = agents.shipping()
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Ship order 7", store=store)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.start(run)
        (waiting,) = await until_waiting(runner, run.id)
        await runner.resume(run.id, {"speed": "standard"}, interrupt=waiting)
        await runner.result(run.id)
    history = await runner.handle(run.id).fetch_history()

    replayer = Replayer(workflows=[RunWorkflow], workflow_runner=sandbox())
    replayed = await replayer.replay_workflow(history)

    assert replayed.replay_failure is None


async def test_a_pause_nobody_answers_expires_on_the_workflows_timer_and_the_run_goes_on(
    client: Client, store: SQLiteStore
) -> None:
    task_queue = queue()
    agent = agents.holding()
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Hold order 5", store=store)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.start(run)
        (waiting,) = await until_waiting(runner, run.id)
        status = await runner.status(run.id)
        assert status.expires_at is not None
        ended = await runner.result(run.id)  # nobody answers

    assert ended.status == "completed"
    done = agent.load(run.id, store)
    (record,) = [item for item in done.prompt.items if getattr(item, "interrupts", None)]
    assert record.status == "rejected"  # declined as expired, never run
    assert record.interrupts[0].id == waiting
    assert "expired" in str(done.prompt.output)
    history = await runner.handle(run.id).fetch_history()
    assert any(event.HasField("timer_started_event_attributes") for event in history.events)


async def test_temporals_own_list_shows_the_runs_waiting_on_a_person(
    client: Client, store: SQLiteStore
) -> None:
    task_queue = queue()
    agent = agents.shipping()
    runner = TemporalRunner(client, task_queue, status_attribute=STATUS_ATTRIBUTE)
    runs = [agent.new_run("Ship order 7", store=store) for _ in range(3)]
    async with temporal_worker(client, task_queue, agent, store):
        for run in runs:
            await runner.start(run)
        waits = {run.id: (await until_waiting(runner, run.id))[0] for run in runs}
        query = f'{STATUS_ATTRIBUTE} = "interrupted" AND TaskQueue = "{task_queue}"'

        async def listed(expected: set[str]) -> None:
            async with asyncio.timeout(60):  # visibility is eventually consistent
                while True:
                    if {w.id async for w in client.list_workflows(query)} == expected:
                        return
                    await asyncio.sleep(0.05)

        await listed(set(waits))
        first = runs[0].id
        await runner.resume(first, {"speed": "express"}, interrupt=waits[first])
        await runner.result(first)
        await listed(set(waits) - {first})
        for run in runs[1:]:
            await runner.resume(run.id, {"speed": "standard"}, interrupt=waits[run.id])
            await runner.result(run.id)


async def test_a_run_answered_many_times_continues_as_new_and_keeps_a_short_history(
    client: Client, store: SQLiteStore
) -> None:
    task_queue = queue()
    agent = agents.refunds_each()
    runner = TemporalRunner(client, task_queue, continue_after=20)
    run = agent.new_run("Refund orders 1 2 3 4 5", store=store)
    async with temporal_worker(client, task_queue, agent, store):
        started = await runner.start(run)
        for _ in range(5):
            (waiting,) = await until_waiting(runner, run.id)
            await runner.resume(run.id, True, interrupt=waiting)
        ended = await runner.result(run.id)  # follows the workflow's new runs

    assert ended.status == "completed"
    done = agent.load(run.id, store)
    assert [i.status for i in done.prompt.items if isinstance(i, ToolCall)] == ["succeeded"] * 5
    history = await runner.handle(run.id).fetch_history()  # the latest run's
    assert len(history.events) < 40
    first = client.get_workflow_handle(run.id, run_id=started.result_run_id)
    began = await first.fetch_history()
    assert began.events[-1].HasField("workflow_execution_continued_as_new_event_attributes")


async def test_an_answer_to_a_run_whose_workflow_ended_says_it_waits_on_none(
    client: Client, store: SQLiteStore
) -> None:
    task_queue = queue()
    agent = agents.shipping()
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Ship order 7", store=store)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.start(run)
        (waiting,) = await until_waiting(runner, run.id)
        await runner.resume(run.id, {"speed": "express"}, interrupt=waiting)
        await runner.result(run.id)
        before = agent.load(run.id, store).prompt.model_dump_json()

        with pytest.raises(NoPendingInterruptError, match="waits on no answer"):
            await runner.resume(run.id, {"speed": "standard"}, interrupt=waiting)
        with pytest.raises(NoPendingInterruptError):
            await runner.resume("run_never_started", True, interrupt=waiting)

    assert agent.load(run.id, store).prompt.model_dump_json() == before
