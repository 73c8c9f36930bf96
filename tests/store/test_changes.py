"""A store tells its readers that runs changed (`store.changes()`), on SQLite and PostgreSQL,
whichever process made the change, without them listing runs."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import psycopg
import pytest
from tests.helpers import StoreFactory

from pausepoint import Prompt
from pausepoint.store import (
    PostgresStore,
    RunChanges,
    RunStore,
    SQLiteStore,
    StoreConflictError,
    StoreUsageError,
)
from pausepoint.transcript import AssistantMessage

# A budget for a busy machine, not a speed requirement: waits end as soon as a change shows.
WITHIN = 30.0


async def moved(changes: RunChanges, seen: int) -> int:
    """The version once it moved past `seen` (PostgreSQL delivers notifications a moment
    after the commit; SQLite's counter moves with it)."""
    version = await changes.wait(seen, WITHIN)
    assert version != seen, "no change was told within the budget"
    return version


async def test_writes_by_another_process_move_the_version_this_store_sees(
    open_store: StoreFactory,
) -> None:
    changes = open_store().changes()
    other = open_store()  # as another process would: its own connections
    seen = changes.version()

    other.create(Prompt.from_user("go", run_id="run_a"), status="running", agent="ops")
    seen = await moved(changes, seen)
    other.append("run_a", [AssistantMessage(text="asked")], expected_version=1,
                 status="interrupted")  # fmt: skip
    seen = await moved(changes, seen)
    other.delete("run_a")
    await moved(changes, seen)


async def test_wait_returns_when_another_connection_writes(open_store: StoreFactory) -> None:
    changes = open_store().changes()
    other = open_store()
    seen = changes.version()
    waiting = asyncio.create_task(changes.wait(seen, WITHIN))
    await asyncio.sleep(0)  # the wait has begun before the write
    assert not waiting.done()

    started = time.perf_counter()
    await asyncio.to_thread(
        other.create, Prompt.from_user("go", run_id="run_w"), status="interrupted"
    )
    version = await waiting

    assert version != seen
    print(f"\n{type(other).__name__}: a write woke the wait after "
          f"{(time.perf_counter() - started) * 1000:.0f} ms")  # fmt: skip


async def test_wait_times_out_with_the_same_version_when_nothing_changes(
    open_store: StoreFactory,
) -> None:
    store = open_store()
    store.create(Prompt.from_user("go", run_id="run_q"), status="interrupted")
    changes = store.changes()
    seen = await changes.wait(changes.version(), 0.2)  # the create may still be on its way
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    started = time.perf_counter()
    version = await changes.wait(seen, 0.3)
    ticker.cancel()

    assert version == seen
    assert time.perf_counter() - started >= 0.29
    assert ticks > 3  # the event loop went on while waiting


async def test_a_wait_for_an_old_version_returns_at_once(open_store: StoreFactory) -> None:
    changes = open_store().changes()
    seen = changes.version()
    open_store().create(Prompt.from_user("go", run_id="run_o"), status="interrupted")
    now = await moved(changes, seen)

    started = time.perf_counter()
    assert await changes.wait(seen, WITHIN) == now
    assert time.perf_counter() - started < WITHIN / 2


def test_a_store_has_one_watcher_and_none_once_closed(open_store: StoreFactory) -> None:
    store = open_store()
    assert store.changes() is store.changes()
    store.close()
    with pytest.raises(StoreUsageError, match="closed"):
        store.changes()


async def test_an_in_memory_store_counts_its_own_commits() -> None:
    store = SQLiteStore(":memory:")
    changes = store.changes()
    seen = changes.version()
    waiting = asyncio.create_task(changes.wait(seen, WITHIN))
    await asyncio.sleep(0)

    store.create(Prompt.from_user("go", run_id="run_m"), status="interrupted")

    assert await waiting != seen
    assert changes.exact
    assert not changes.pushed
    store.close()


def test_sqlite_counts_every_commit_to_the_file_exactly(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    changes = store.changes()
    assert changes.exact
    assert not changes.pushed
    seen = changes.version()
    other = SQLiteStore(tmp_path / "runs.db")
    other.create(Prompt.from_user("go", run_id="run_s"), status="interrupted")
    assert changes.version() != seen  # no wait: the counter moves with the commit
    seen = changes.version()

    with pytest.raises(StoreConflictError):
        other.append("run_s", [AssistantMessage(text="late")], expected_version=7)
    assert changes.version() == seen  # a refused write changed nothing
    store.close()
    other.close()


# -- PostgreSQL: notifications -------------------------------------------------------------


async def test_notifications_name_the_runs_that_changed(postgres_dsn: str) -> None:
    _empty(postgres_dsn)
    with PostgresStore(postgres_dsn) as store, PostgresStore(postgres_dsn) as other:
        changes = store.changes()
        assert changes.pushed
        assert not changes.exact
        start = changes.version()
        other.create(Prompt.from_user("go", run_id="run_1"), status="running")
        other.create(Prompt.from_user("go", run_id="run_2"), status="running")
        with pytest.raises(StoreConflictError):  # refused: no notification
            other.append("run_1", [AssistantMessage(text="late")], expected_version=5)
        other.append("run_2", [AssistantMessage(text="asked")], expected_version=1,
                     status="interrupted")  # fmt: skip

        seen = start
        while seen - start < 3:
            seen = await moved(changes, seen)

        assert changes.changed_runs(start) == {"run_1", "run_2"}
        assert changes.changed_runs(start + 2) == {"run_2"}
        assert changes.changed_runs(seen) == frozenset()
        await asyncio.sleep(0.2)  # a notification of the refused write would be here by now
        assert changes.version() == seen


async def test_a_run_id_too_long_for_a_notification_still_writes_and_notifies(
    postgres_dsn: str,
) -> None:
    _empty(postgres_dsn)
    long_id = "run_" + "x" * 9000  # PostgreSQL refuses payloads of 8,000 bytes or more
    with PostgresStore(postgres_dsn) as store, PostgresStore(postgres_dsn) as other:
        changes = store.changes()
        seen = changes.version()
        other.create(Prompt.from_user("go", run_id=long_id), status="running")
        other.append(long_id, [AssistantMessage(text="asked")], expected_version=1)

        seen_now = await moved(changes, seen)

        assert changes.changed_runs(seen) is None  # "some run": readers look at them all
        assert other.summary(long_id).version == 2
        assert seen_now != seen


async def test_a_lost_listening_connection_is_opened_again_and_counts_as_a_change(
    postgres_dsn: str,
) -> None:
    _empty(postgres_dsn)
    with PostgresStore(postgres_dsn) as store, PostgresStore(postgres_dsn) as other:
        changes = store.changes()
        seen = changes.version()
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE query = 'LISTEN pausepoint_runs'"
            )
        seen = await moved(changes, seen)  # notifications may have been lost meanwhile
        assert changes.changed_runs(seen - 1) is None

        # Listening again (the change is counted once it listens): later writes are told.
        other.create(Prompt.from_user("go", run_id="run_after"), status="running")
        await moved(changes, seen)
        assert changes.changed_runs(seen) == {"run_after"}


def test_a_store_that_cannot_tell_its_changes_never_moves() -> None:
    class Listing(SQLiteStore):
        def changes(self) -> RunChanges:
            return RunStore.changes(self)

    store = Listing(":memory:")
    changes = store.changes()
    store.create(Prompt.from_user("go", run_id="run_u"), status="interrupted")
    assert changes.version() == 0
    assert not changes.exact
    assert changes.changed_runs(0) is None
    store.close()


def _empty(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE IF EXISTS pausepoint_runs, pausepoint_items, pausepoint_schema, "
            "executed_actions"
        )
