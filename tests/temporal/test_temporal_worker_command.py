"""``python -m pausepoint.temporal.worker``: a worker process executes the runs a
TemporalRunner starts on its task queue against the session's dev server, commits the
answers sent to them, and stops on SIGTERM once its stretches have finished."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from tests.helpers import until
from tests.temporal import agents

pytest.importorskip("temporalio")

from temporalio.client import Client

from pausepoint import SQLiteStore
from pausepoint.temporal import TemporalRunner
from pausepoint.temporal.worker import main

ROOT = Path(__file__).resolve().parents[2]


def command(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pausepoint.temporal.worker", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(worker: subprocess.Popen[str]) -> str:
    """SIGTERM, then what the worker said as it stopped (killed if it does not)."""
    try:
        worker.send_signal(signal.SIGTERM)
        _, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.communicate()
    return err


async def test_the_command_executes_a_run_and_commits_its_answer(
    temporal_address: str, tmp_path: Path
) -> None:
    path = tmp_path / "runs.db"
    task_queue = f"command-{uuid.uuid4().hex[:8]}"
    store = SQLiteStore(path)
    agent = agents.shipping()
    runner = TemporalRunner(await Client.connect(temporal_address), task_queue)
    worker = command(
        "tests.temporal.agents:shipping",
        *("--address", temporal_address, "--task-queue", task_queue),
        *("--store", f"sqlite:{path}", "--concurrency", "2"),
    )
    try:
        run = agent.new_run("Ship order 7", store=store)
        await runner.start(run)
        waiting = await until(lambda: store.summary(run.id).status == "interrupted", within=120)
        assert waiting
        (pending,) = [p.id for p in agent.load(run.id, store).pending]

        answered = await runner.resume(run.id, {"speed": "standard"}, interrupt=pending)
        ended = await runner.result(run.id)
    finally:
        err = stop(worker)

    assert worker.returncode == 0, err
    assert (answered.status, ended.status) == ("idle", "completed")
    assert agent.load(run.id, store).prompt.output == "Done: order 7 sent standard"
    assert f"from task queue {task_queue!r}" in err
    assert err.rstrip().splitlines()[-1] == (
        f"Temporal worker for tests.temporal.agents:shipping stopped (task queue {task_queue!r})."
    )
    store.close()


async def test_a_stop_lets_the_stretch_executing_go_on_and_a_second_quits_leaving_the_run(
    temporal_address: str, tmp_path: Path
) -> None:
    """A stretch cut short by a stop would be recorded as cancelled: the first SIGTERM
    waits for it, a second quits at once and leaves the run as it was, for another worker."""
    path = tmp_path / "runs.db"
    task_queue = f"command-{uuid.uuid4().hex[:8]}"
    store = SQLiteStore(path)
    agent = agents.slow(tmp_path)
    runner = TemporalRunner(await Client.connect(temporal_address), task_queue)
    worker = command(
        "tests.temporal.agents:slow_here",
        *("--address", temporal_address, "--task-queue", task_queue, "--store", f"sqlite:{path}"),
        env={**os.environ, agents.ATTEMPTS_FOLDER: str(tmp_path)},
    )
    attempts = tmp_path / agents.ATTEMPTS
    try:
        run = agent.new_run("Crunch 9", store=store)
        await runner.start(run)
        await until(attempts.exists, within=120)
        worker.send_signal(signal.SIGTERM)
        assert worker.stderr is not None
        said = ""
        while "Stopping:" not in said and worker.poll() is None:
            said = worker.stderr.readline()
        err = stop(worker)  # the action still waits: only this second signal ends the worker
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.communicate()

    assert worker.returncode == 1, err
    assert "Quitting now" in err
    assert store.summary(run.id).status == "running"  # not cancelled: it goes on elsewhere
    store.close()


SHIPPING = ("tests.temporal.agents:shipping",)


@pytest.mark.parametrize(
    ("served", "args", "said"),
    [
        (SHIPPING, ("--address", "localhost"), "is not HOST:PORT"),
        (SHIPPING, ("--task-queue", " "), "--task-queue is empty"),
        (SHIPPING, ("--concurrency", "0"), "--concurrency must be 1 or more"),
        (SHIPPING, ("--store", "mysql://db"), "not a store URL"),
        (SHIPPING, ("--address", "127.0.0.1:1"), "cannot be reached"),
        (("tests.temporal.agents:nothing",), (), "no attribute"),
        (SHIPPING * 2, (), "distinct Agent(name=...)"),
    ],
)
def test_the_command_says_what_to_fix(
    served: tuple[str, ...],
    args: tuple[str, ...],
    said: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    given = [*served, "--address", "127.0.0.1:7233", "--task-queue", "q"]
    given += ["--store", "sqlite:runs.db", *args]

    assert main(given) == 2

    assert said in capsys.readouterr().err


def test_the_command_needs_an_address_a_task_queue_and_a_store(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["tests.temporal.agents:shipping", "--store", "sqlite:runs.db"])

    assert refused.value.code == 2
    assert "--address, --task-queue" in capsys.readouterr().err
