"""`SQLiteStore`: durable runs in one file, with nothing to set up.

WAL mode lets readers go on while one writer commits; writes take the write lock first
(`BEGIN IMMEDIATE`) and wait for it up to `timeout`, so threads and processes can share
one file. Each thread gets its own connection.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import datetime
from os import PathLike
from typing import Any, Literal

from ..errors import StoreUsageError
from ._changes import CountedChanges, RunChanges
from ._rows import aware
from ._sql import Clock, Cursor, SQLStore, iter_statements

__all__ = ["SQLiteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pausepoint_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS pausepoint_runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    agent TEXT,
    status TEXT NOT NULL,
    pending TEXT NOT NULL,
    version INTEGER NOT NULL,
    item_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    lease_owner TEXT,
    lease_expires_at TEXT,
    schema_version INTEGER NOT NULL,
    instructions TEXT,
    parent_run_id TEXT,
    parent_interrupt_id TEXT,
    model_pause TEXT,
    title TEXT,
    pause_kind TEXT,
    pause_args TEXT,
    ignored_by TEXT,
    ignored_at TEXT,
    fork_origin TEXT,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS pausepoint_runs_by_update ON pausepoint_runs (updated_at);
CREATE INDEX IF NOT EXISTS pausepoint_runs_by_status ON pausepoint_runs (status, updated_at);
CREATE TABLE IF NOT EXISTS pausepoint_items (
    run_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    item TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
) WITHOUT ROWID
"""

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]


class SQLiteStore(SQLStore):
    """Runs in a SQLite file (or `":memory:"`, shared by this store's threads).

    `synchronous="NORMAL"` (the default) survives any crash of the process; pass
    `"FULL"` to also survive the machine losing power, at the cost of a flush per write.
    `clock` returns the current time (injected by tests for leases).

    >>> store = SQLiteStore("runs.db")      # doctest: +SKIP
    """

    def __init__(
        self,
        path: str | PathLike[str],
        *,
        timeout: float = 30.0,
        synchronous: Synchronous = "NORMAL",
        clock: Clock | None = None,
    ) -> None:
        super().__init__(clock=clock)
        self.path = str(path)
        self._timeout = timeout
        self._synchronous = synchronous
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        # An in-memory database lives in one connection: its threads take turns on it.
        self._shared: sqlite3.Connection | None = None
        self._shared_lock = threading.RLock()
        self._commits = 0
        self._changes: CountedChanges | None = None
        conn = self._connection()
        conn.execute("PRAGMA journal_mode=WAL")
        with self._transaction(write=True) as cur:
            for statement in iter_statements(_SCHEMA):
                cur.execute(statement)
            self._check_schema(cur)

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if self._closed:
            raise StoreUsageError("This SQLiteStore is closed; open a new one.")
        if self.path == ":memory:" and self._shared is not None:
            return self._shared
        conn = sqlite3.connect(
            self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
        )
        if self.path == ":memory:":
            self._shared = conn
        conn.execute(f"PRAGMA busy_timeout={int(self._timeout * 1000)}")
        conn.execute(f"PRAGMA synchronous={self._synchronous}")
        self._local.conn = conn
        with self._lock:
            self._connections.append(conn)
        return conn

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        conn = self._connection()
        with self._shared_lock if conn is self._shared else nullcontext():
            cur = conn.cursor()
            cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield cur
            except BaseException:
                conn.rollback()
                raise
            else:
                conn.commit()
                if write and conn is self._shared:
                    # No other connection sees an in-memory database: count its commits.
                    self._commits += 1
            finally:
                cur.close()

    def changes(self) -> RunChanges:
        """Counts commits to the file by any connection (`PRAGMA data_version` on a
        connection of its own): looking costs a few microseconds and reads no table."""
        with self._lock:
            if self._closed:
                raise StoreUsageError("This SQLiteStore is closed; open a new one.")
            if self._changes is None:
                path = None if self.path == ":memory:" else self.path
                self._changes = CountedChanges(path, lambda: self._commits)
            return self._changes

    def _sql(self, statement: str) -> str:
        return statement

    def _to_db_time(self, moment: datetime) -> Any:
        return moment.isoformat(timespec="microseconds")

    def _from_db_time(self, value: Any) -> datetime:
        # Every time is written in UTC with its offset; a row edited by hand may lack it.
        return aware(datetime.fromisoformat(value))

    def _is_duplicate(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
            changes, self._changes = self._changes, None
        if changes is not None:
            changes.close()
        for conn in connections:
            conn.close()
        self._local = threading.local()
        self._shared = None

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"
