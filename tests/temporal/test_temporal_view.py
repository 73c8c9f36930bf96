"""A Temporal-scheduled run attached in this kernel (`TemporalRunner.attach`): the view
shows it from the store, and its cards' answers go to the workflow as Updates; the view
then follows the store as the workers carry the run to its end."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers import until
from tests.temporal import agents
from tests.temporal.test_temporal_runs import until_waiting
from tests.widget.recording import RecordingComm, comm_of, comms, recording_of, response_to

pytest.importorskip("temporalio")

from temporalio.client import Client

from pausepoint import SQLiteStore
from pausepoint.errors import UsageError
from pausepoint.temporal import TemporalRunner, temporal_worker

__all__ = ["comms"]


@pytest.fixture
async def client(temporal_address: str) -> Client:
    return await Client.connect(temporal_address)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "runs.db")
    yield opened
    opened.close()


async def test_a_card_of_an_attached_run_is_answered_by_a_click_and_the_view_follows_it_to_the_end(
    client: Client, store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    task_queue = f"pausepoint-{uuid.uuid4().hex[:8]}"
    agent = agents.shipping()
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Ship order 7", store=store)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.start(run)
        (waiting,) = await until_waiting(runner, run.id)

        attached = runner.attach(run.id, agents.shipping(), store)
        assert attached.status == "interrupted"
        view = attached.view
        (card,) = view.pending
        assert (card["id"], card["kind"], card["canResolve"]) == (waiting, "generic", True)
        assert [item["type"] for item in view.items] == ["user", "assistant", "tool"]

        # The form's Submit, as the page sends it: refused by the run's checks first.
        refused = await response_to(
            recording_of(attached),
            {"type": "resume", "requestId": "r-1", "interrupt": waiting, "data": {"speed": "warp"}},
        )
        assert refused["ok"] is False
        assert "warp" in str(refused)
        assert attached.status == "interrupted"

        reply = await response_to(
            recording_of(attached),
            {
                "type": "resume",
                "requestId": "r-2",
                "interrupt": waiting,
                "data": {"speed": "express"},
            },
        )
        assert reply["ok"] is True, reply
        await until(lambda: view.status == "completed", within=120)
        ended = await runner.result(run.id)

    assert ended.status == "completed"
    assert view.pending == []
    await until(lambda: len(view.items) == len(attached.prompt.items))
    assert [item["type"] for item in view.items] == ["user", "assistant", "tool", "assistant"]
    assert view.items[2]["status"] == "succeeded"
    assert view.items[-1]["text"] == "Done: order 7 sent express"
    # Recorded as the view's answer, in the store the workers wrote.
    stored = agents.shipping().load(run.id, store)
    (entry,) = stored.prompt.items[2].interrupts  # type: ignore[union-attr]
    assert entry.resolution is not None
    assert entry.resolution.by == "view"


async def test_what_only_the_executor_does_is_refused_saying_who_executes_it(
    client: Client, store: SQLiteStore
) -> None:
    task_queue = f"pausepoint-{uuid.uuid4().hex[:8]}"
    agent = agents.shipping()
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Ship order 7", store=store)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.start(run)
        await until_waiting(runner, run.id)
        attached = runner.attach(run.id, agent, store)
        before = attached.prompt.model_dump_json()

        for attempt in (attached.run("Ship faster"), attached.retry()):
            with pytest.raises(UsageError, match="executed by Temporal's workers"):
                await attempt
        with pytest.raises(UsageError, match="forks"):
            attached.fork(at="turn")
        assert attached.prompt.model_dump_json() == before
        await runner.resume(run.id, {"speed": "standard"}, interrupt=attached.pending[0].id)
        await runner.result(run.id)


async def test_the_inbox_lists_temporal_runs_and_its_bulk_approve_goes_to_each_workflow(
    client: Client, store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    task_queue = f"pausepoint-{uuid.uuid4().hex[:8]}"
    agent = agents.refunds()
    runner = TemporalRunner(client, task_queue)
    runs = [agent.new_run(f"Refund order {n}", store=store) for n in range(5)]
    async with temporal_worker(client, task_queue, agent, store):
        for run in runs:
            await runner.start(run)
        for run in runs:
            await until_waiting(runner, run.id)
        box = runner.inbox(store, {"refunds": agents.refunds()}, poll=None)
        assert box.rows()["total"] == 5

        comm = comm_of(box)
        ids = [run.id for run in runs]
        comm.browser_send({"type": "bulk", "requestId": "b", "answer": "approve", "runs": ids})
        bulk = await until(
            lambda: box.bulk if len(box.bulk.get("outcomes", [])) == 5 else None, within=120
        )
        assert {o["outcome"] for o in bulk["outcomes"]} == {"answered"}
        ended = [await runner.result(run_id) for run_id in ids]

    assert {e.status for e in ended} == {"completed"}
    assert {store.summary(run_id).status for run_id in ids} == {"completed"}
    box.refresh()
    assert box.rows()["total"] == 0
    # Each answer went to its workflow: recorded by the inbox, in the store the workers wrote.
    for run_id in ids:
        loaded = agents.refunds().load(run_id, store)
        (entry,) = [e for item in loaded.prompt.items for e in getattr(item, "interrupts", [])]
        assert entry.resolution is not None
        assert entry.resolution.by == "inbox"


async def test_a_thousand_temporal_runs_waiting_are_listed_in_the_inbox(
    client: Client, tmp_path: Path, comms: list[RecordingComm]
) -> None:
    """1,000 runs scheduled by Temporal, each paused by its first stretch, are the
    inbox's rows (read from the store), paged and filtered there; a page of them answered
    from it goes to their workflows."""
    store = SQLiteStore(tmp_path / "many.db")
    task_queue = f"pausepoint-{uuid.uuid4().hex[:8]}"
    agent = agents.refunds()
    runner = TemporalRunner(client, task_queue)
    runs = [agent.new_run(f"Refund order {n}", store=store) for n in range(1000)]
    async with temporal_worker(client, task_queue, agent, store, max_concurrent_activities=20):
        await asyncio.gather(*(runner.start(run) for run in runs))
        await until(lambda: store.waiting().total == 1000, within=600)
        box = runner.inbox(store, {"refunds": agents.refunds()}, poll=None)
        assert box.rows()["total"] == 1000
        page = box.rows(text="Refund order 99", limit=20)["rows"]
        assert {row["title"] for row in page} >= {"Refund order 99", "Refund order 999"}
        picked = [row["runId"] for row in box.rows(limit=10)["rows"]]
        comm_of(box).browser_send(
            {"type": "bulk", "requestId": "b", "answer": "approve", "runs": picked}
        )
        await until(lambda: len(box.bulk.get("outcomes", [])) == 10, within=120)
        ended = [await runner.result(run_id) for run_id in picked]

    assert {e.status for e in ended} == {"completed"}
    box.refresh()
    assert box.rows()["total"] == 990
    store.close()
