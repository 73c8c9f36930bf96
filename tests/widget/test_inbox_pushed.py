"""The inbox follows the store's changes as they come, not on its poll interval: pushed by
PostgreSQL (another kernel's change shows in under a second), a commit counter on SQLite
(no listing while nothing changes). The poll interval is set to 60 s throughout, so only
the changes themselves can make the inbox read the store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.helpers import until
from tests.widget.inbox_agents import ops_agent, waiting
from tests.widget.recording import RecordingComm

from pausepoint import Inbox
from pausepoint.store import PostgresStore, RunChanges, RunStore, SQLiteStore

LONG_POLL = 60.0


@pytest.fixture
def pg_stores(postgres_dsn: str) -> Iterator[Callable[[], PostgresStore]]:
    """Opens PostgresStores on an empty database, as kernels of their own would."""
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS pausepoint_runs, pausepoint_items, pausepoint_schema")
    opened: list[PostgresStore] = []

    def factory() -> PostgresStore:
        opened.append(PostgresStore(postgres_dsn))
        return opened[-1]

    yield factory
    for store in opened:
        store.close()


def count_listings(store: RunStore) -> list[dict[str, Any]]:
    """Records every `store.runs(...)` call's arguments."""
    calls: list[dict[str, Any]] = []
    runs = store.runs

    def counted(**options: Any) -> Any:
        calls.append(options)
        return runs(**options)

    store.runs = counted  # type: ignore[method-assign]
    return calls


async def test_another_kernels_change_reaches_the_inbox_in_under_a_second_on_postgres(
    pg_stores: Callable[[], PostgresStore], comms: list[RecordingComm]
) -> None:
    store = pg_stores()
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=LONG_POLL)
    listings = count_listings(store)
    other_kernel = pg_stores()

    run = await waiting(ops_agent([]), other_kernel, "Delete record 6")
    left_waiting = time.perf_counter()
    await until(lambda: [e["runId"] for e in box.entries] == [run.id])
    shown = time.perf_counter() - left_waiting

    await run.resume(True)
    answered = time.perf_counter()
    await until(lambda: box.entries == [])
    gone = time.perf_counter() - answered

    print(f"\nPostgreSQL: a run left waiting in another kernel showed in "
          f"{shown * 1000:.0f} ms; answered there, it left in {gone * 1000:.0f} ms "
          f"(poll interval {LONG_POLL:.0f} s)")  # fmt: skip
    # Only the notifications can have made it look: the poll interval is a minute away.
    assert listings, "the inbox never read the store"
    assert max(shown, gone) < LONG_POLL / 2
    box.close()


async def test_a_run_created_waiting_elsewhere_shows_and_a_deleted_one_leaves_on_postgres(
    pg_stores: Callable[[], PostgresStore], comms: list[RecordingComm]
) -> None:
    store = pg_stores()
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=LONG_POLL)
    other_kernel = pg_stores()
    run = await waiting(ops_agent([]), other_kernel, "Delete record 7")
    await until(lambda: [e["runId"] for e in box.entries] == [run.id])

    other_kernel.delete(run.id)

    await until(lambda: box.entries == [])
    box.close()


async def test_a_row_changed_outside_pausepoint_shows_at_the_poll_interval_on_postgres(
    pg_stores: Callable[[], PostgresStore], postgres_dsn: str, comms: list[RecordingComm]
) -> None:
    store = pg_stores()
    run = await waiting(ops_agent([]), pg_stores(), "Delete record 8")
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=0.2)
    assert [e["runId"] for e in box.entries] == [run.id]

    with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # no notification
        conn.execute(
            "UPDATE pausepoint_runs SET status = 'cancelled', version = version + 1, "
            "updated_at = now() WHERE run_id = %s",
            (run.id,),
        )

    await until(lambda: box.entries == [])
    box.close()


async def test_on_sqlite_the_inbox_lists_nothing_while_nothing_changes(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=LONG_POLL)
    listings = count_listings(store)

    await asyncio.sleep(1.0)  # ten looks at the counter: none reads a run
    assert listings == []

    other_kernel = SQLiteStore(store.path)
    run = await waiting(ops_agent([]), other_kernel, "Delete record 9")
    left_waiting = time.perf_counter()
    await until(lambda: [e["runId"] for e in box.entries] == [run.id])
    shown = time.perf_counter() - left_waiting
    after_change = len(listings)

    await asyncio.sleep(1.0)
    assert len(listings) == after_change  # still, once the change is listed

    print(f"\nSQLite: another kernel's run showed in {shown * 1000:.0f} ms, with "
          f"{after_change} store.runs calls for that change and none for 2 s of quiet "
          f"(polling for the same latency would list every 0.1 s: 20 calls)")  # fmt: skip
    box.close()
    other_kernel.close()


async def test_stopped_polling_stops_following_changes(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=LONG_POLL)
    box.stop_polling()
    listings = count_listings(store)

    await waiting(ops_agent([]), SQLiteStore(store.path), "Delete record 10")
    await asyncio.sleep(0.5)

    assert listings == []
    assert box.entries == []
    box.poll(LONG_POLL)  # a change the inbox missed while stopped is listed when it starts
    await until(lambda: len(box.entries) == 1)
    box.close()


async def test_a_store_that_cannot_tell_its_changes_is_looked_at_every_poll_interval(
    tmp_path: Path, comms: list[RecordingComm]
) -> None:
    class Refusing(SQLiteStore):
        def changes(self) -> RunChanges:
            raise RuntimeError("no way to watch this store")

    store = Refusing(tmp_path / "runs.db")
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=0.05)

    run = await waiting(ops_agent([]), SQLiteStore(tmp_path / "runs.db"), "Delete record 11")

    await until(lambda: [e["runId"] for e in box.entries] == [run.id])
    box.close()
