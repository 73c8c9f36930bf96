"""Stores under test: every contract test runs on SQLite and on a throw-away PostgreSQL.

The PostgreSQL server is started once per session by `postgres_dsn` (tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers import Clock, StoreFactory

from pausepoint.store import PostgresStore, RunStore, SQLiteStore


def _empty(dsn: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE IF EXISTS pausepoint_runs, pausepoint_items, pausepoint_schema, "
            "executed_actions"
        )


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["sqlite", "postgres"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """Opens stores on one fresh database: call it again for a second connection, as a
    second process would. `clock=` injects the time."""
    opened: list[RunStore] = []
    if request.param == "sqlite":
        path = tmp_path / "runs.db"

        def factory(**options: object) -> RunStore:
            store = SQLiteStore(path, **options)  # type: ignore[arg-type]
            opened.append(store)
            return store
    else:
        dsn: str = request.getfixturevalue("postgres_dsn")
        _empty(dsn)

        def factory(**options: object) -> RunStore:
            store = PostgresStore(dsn, **options)  # type: ignore[arg-type]
            opened.append(store)
            return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: StoreFactory, clock: Clock) -> RunStore:
    return open_store(clock=clock)
