"""``python -m pausepoint.worker``: a worker process on PostgreSQL takes a new run to its
question, and once the test answers it with `continue_run=False`, to its end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from tests.helpers import until
from tests.workers.batch_agents import APPROVAL, STEPS, batch

from pausepoint.store import PostgresStore, SQLiteStore
from pausepoint.worker import main

ROOT = Path(__file__).resolve().parents[2]
AGENT = "tests.workers.batch_agents:batch"


def _empty(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE IF EXISTS pausepoint_runs, pausepoint_items, pausepoint_schema, executions"
        )


def _command(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pausepoint.worker", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_the_worker_command_continues_a_run_answered_for_later(postgres_dsn: str) -> None:
    _empty(postgres_dsn)
    store = PostgresStore(postgres_dsn)
    agent = batch()
    run = agent.new_run("the task", store=store)
    worker = _command(AGENT, "--store", postgres_dsn, "--name", "cmd", "--lease-ttl", "5")
    try:
        await until(lambda: store.summary(run.id).status == "interrupted", within=60)
        loaded = agent.load(run.id, store)
        assert [r.status for r in loaded.prompt.tool_calls()] == ["succeeded", "interrupted"]

        left = await loaded.resume({"token": "t-1"}, continue_run=False)

        assert left.status == "idle"
        await until(lambda: store.summary(run.id).status == "completed", within=60)
    finally:
        worker.send_signal(signal.SIGTERM)
        _, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err
    assert "2 runs claimed, 1 completed, 1 waiting for a person" in err
    prompt, _ = store.load_prompt(run.id)
    records = list(prompt.tool_calls())
    assert [r.status for r in records] == ["succeeded"] * STEPS
    approved = records[APPROVAL - 1]
    assert approved.result["token"] == "t-1"  # type: ignore[index]
    assert approved.result["pid"] == worker.pid  # type: ignore[index]
    assert prompt.output == "all steps done"
    summary = store.summary(run.id)
    assert summary.lease_owner is None
    store.close()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((AGENT,), "Say where the runs are"),
        ((AGENT, "--store", "mysql://db"), "not a store URL"),
        (("tests.workers.batch_agents:nothing", "--store", "sqlite:runs.db"), "no attribute"),
        ((AGENT, "--store", "sqlite:runs.db", "--concurrency", "0"), "concurrency must be"),
    ],
)
def test_the_worker_command_says_what_to_fix(
    args: tuple[str, ...],
    said: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)

    assert main(list(args)) == 2

    assert said in capsys.readouterr().err


def test_the_worker_command_until_idle_returns_once_nothing_is_left_to_claim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.db"
    with SQLiteStore(path) as store:
        for n in range(3):
            batch().new_run(f"task {n}", store=store)

    code = main([AGENT, "--store", f"sqlite:{path}", "--until-idle", "--concurrency", "2"])

    assert code == 0
    assert "3 runs claimed, 0 completed, 3 waiting for a person" in capsys.readouterr().err
    with SQLiteStore(path) as store:
        assert [s.status for s in store.runs()] == ["interrupted"] * 3
        assert all(s.lease_owner is None for s in store.runs())


def test_a_worker_told_to_stop_while_it_starts_claims_nothing_and_exits_cleanly(
    tmp_path: Path,
) -> None:
    """A SIGTERM that comes while the agent's module loads (a deployment stopping workers
    as they start) stops the worker as one later does: nothing claimed, exit 0."""
    loading, release = tmp_path / "loading", tmp_path / "release"
    store = SQLiteStore(tmp_path / "runs.db")
    env = {
        **os.environ,
        "PAUSEPOINT_TEST_LOADING": str(loading),
        "PAUSEPOINT_TEST_RELEASE": str(release),
        "PAUSEPOINT_TEST_DB": str(tmp_path / "runs.db"),
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "pausepoint.worker", "tests.workers.slow_agent:agent"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120  # a budget for a busy machine, not a requirement
        while not loading.exists():
            assert worker.poll() is None, worker.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        worker.send_signal(signal.SIGTERM)  # while the agent is still loading
        release.touch()
        _, err = worker.communicate(timeout=120)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, err
    assert "Stopping: the runs executing finish their stretch" in err
    assert "0 runs claimed" in err
    assert store.runs() == []
