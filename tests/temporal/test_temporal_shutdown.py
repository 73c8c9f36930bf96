"""A Temporal worker shut down while an action runs (its grace period over) leaves the
run as a crash would: the next attempt, on another worker, runs the action again."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from temporalio.client import Client
from tests.helpers import until
from tests.temporal import agents

from pausepoint import SQLiteStore
from pausepoint.temporal import TemporalRunner, temporal_worker


async def test_a_worker_shut_down_mid_action_leaves_the_action_to_run_again(
    temporal_address: str, tmp_path: Path
) -> None:
    store, agent = SQLiteStore(tmp_path / "runs.db"), agents.slow(tmp_path)
    client = await Client.connect(temporal_address)
    task_queue = f"shutdown-{uuid.uuid4().hex[:8]}"
    runner = TemporalRunner(client, task_queue)
    run = agent.new_run("Crunch 9", store=store)
    async with temporal_worker(client, task_queue, agent, store):  # shutdown() on exit
        await runner.start(run)
        await until((tmp_path / agents.ATTEMPTS).exists, within=120)
    async with temporal_worker(client, task_queue, agent, store):
        await runner.result(run.id)
    done = agent.load(run.id, store)
    assert done.prompt.output == "Done: crunched 9 on attempt 2"
    attempts = [json.loads(line)["attempt"] for line in (tmp_path / agents.ATTEMPTS).open()]
    assert attempts == [1, 2]
    store.close()
