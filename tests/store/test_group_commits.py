"""Group commits: several runs' changes in one transaction, each checked on its own, and
the runs of one process sharing their store's commits when they commit at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import Clock, StoreFactory
from tests.store.test_commits_per_step import bump, one_call_per_turn

from pausepoint import Agent, Prompt, ScriptedModel, ToolCall
from pausepoint.store import (
    Change,
    LeaseLostError,
    RunNotFoundError,
    RunStore,
    SQLiteStore,
    StoreConflictError,
    StoreUsageError,
    Write,
)
from pausepoint.transcript import AssistantMessage, UserMessage


def _new(store: RunStore, n: int) -> str:
    run_id = f"run_{n}"
    store.create(Prompt.from_user(f"task {n}", run_id=run_id), status="running", agent="ops")
    return run_id


def _said(n: int) -> Change:
    return Change(appended=[AssistantMessage(text=f"done {n}")], status="completed")


def test_several_runs_are_written_together_and_a_refused_change_is_refused_alone(
    store: RunStore, clock: Clock
) -> None:
    runs = [_new(store, n) for n in range(4)]
    store.acquire(runs[3], "me", 60)
    outcomes = store.write_many(
        [
            Write(runs[0], _said(0), expected_version=1),
            Write(runs[1], _said(1), expected_version=7),  # stale
            Write(runs[2], _said(2), expected_version=1),
            Write(runs[3], _said(3), expected_version=1, owner="someone else"),
            Write("run_missing", _said(9), expected_version=1),
        ]
    )

    assert outcomes[0] == 2
    assert outcomes[2] == 2
    assert isinstance(outcomes[1], StoreConflictError)
    assert isinstance(outcomes[3], LeaseLostError)
    assert isinstance(outcomes[4], RunNotFoundError)
    for n in (0, 2):
        prompt, version = store.load_prompt(runs[n])
        assert version == 2
        assert prompt.items[-1] == AssistantMessage(text=f"done {n}")
        assert store.summary(runs[n]).status == "completed"
    for n in (1, 3):
        prompt, version = store.load_prompt(runs[n])
        assert version == 1
        assert len(prompt.items) == 1
        assert store.summary(runs[n]).status == "running"


def test_two_changes_of_one_run_are_refused_and_nothing_is_written(store: RunStore) -> None:
    run_id = _new(store, 0)
    other = _new(store, 1)
    with pytest.raises(StoreUsageError, match="at most one change per run"):
        store.write_many(
            [
                Write(other, _said(1), expected_version=1),
                Write(run_id, _said(0), expected_version=1),
                Write(run_id, _said(0), expected_version=2),
            ]
        )
    assert store.summary(run_id).version == 1
    assert store.summary(other).version == 1


def test_a_change_the_database_refuses_leaves_the_others_written(
    open_store: StoreFactory,
) -> None:
    store = open_store()
    runs = [_new(store, n) for n in range(3)]
    # A replaced position the run does not have: refused by the same update.
    bad = Change(replaced={5: UserMessage(text="nowhere")})
    outcomes = store.write_many(
        [
            Write(runs[0], _said(0), expected_version=1),
            Write(runs[1], bad, expected_version=1),
            Write(runs[2], _said(2), expected_version=1),
        ]
    )
    assert outcomes[0] == 2
    assert outcomes[2] == 2
    assert isinstance(outcomes[1], StoreUsageError)
    assert store.summary(runs[1]).version == 1


class SlowDiskStore(SQLiteStore):
    """A SQLite store whose every commit takes 5 ms more, as on a slow disk; counts them."""

    commits = 0

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Any]:
        with super()._transaction(write=write) as cur:
            yield cur
            if write:
                time.sleep(0.005)
        if write:
            self.commits += 1


async def test_runs_that_commit_at_once_share_transactions(tmp_path: Path) -> None:
    store = SlowDiskStore(tmp_path / "runs.db")
    runs, calls = 8, 5
    agents = [
        Agent(model=ScriptedModel(one_call_per_turn(calls)), actions=[bump], max_turns=calls + 1)
        for _ in range(runs)
    ]
    started = store.commits
    made = [agent.new_run(f"go {n}", store=store) for n, agent in enumerate(agents)]
    results = await asyncio.gather(*(run.run() for run in made))
    commits = store.commits - started

    assert [result.status for result in results] == ["completed"] * runs
    # One at a time each run commits 2 per step and 3 more (created, lease, end): 104.
    alone = runs * (2 * calls + 3)
    assert commits < alone * 0.7, f"{commits} commits for {alone} changes"
    for run in made:  # each run stored whole, as it ran
        prompt, _ = store.load_prompt(run.id)
        assert prompt == run.prompt
        records = [item for item in prompt.items if isinstance(item, ToolCall)]
        assert [record.result for record in records] == list(range(2, calls + 2))
        assert store.summary(run.id).status == "completed"
        assert store.summary(run.id).lease_owner is None
    store.close()
