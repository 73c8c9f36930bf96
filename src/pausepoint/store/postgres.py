"""`PostgresStore`: runs shared by many kernels, processes or machines.

Needs the optional extra: ``pip install "pausepoint[postgres]"`` (psycopg 3). Each thread
gets its own connection. Writes are version-checked updates of the run's header row, so
two writers on one version cannot both commit, whichever machine they run on. Each write
also notifies its readers (`changes()`), in the same transaction.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import PostgresMissingError, StoreUsageError
from ._changes import RunChanges
from ._listen import CHANNEL, ListenedChanges, payload_of
from ._rows import aware
from ._sql import Clock, Cursor, SQLStore, WritePlan, iter_statements

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresStore"]

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
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    lease_owner TEXT,
    lease_expires_at TIMESTAMPTZ,
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
) WITH (fillfactor = 50);
CREATE INDEX IF NOT EXISTS pausepoint_runs_by_status ON pausepoint_runs (status);
CREATE TABLE IF NOT EXISTS pausepoint_items (
    run_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    item TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
)
"""

# Every write updates its run's header row. Only columns no index covers change on most
# writes (updated_at is deliberately not indexed) and pages keep free room (fillfactor),
# so PostgreSQL updates the row in place (HOT) instead of leaving one dead version per
# write in every index, which would make each write slower than the one before.

# Serializes creating the tables when several processes open a new database at once.
_SCHEMA_LOCK = 0x70617573


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise PostgresMissingError(
            'PostgresStore needs psycopg 3: pip install "pausepoint[postgres]".'
        ) from exc
    return psycopg


class PostgresStore(SQLStore):
    """Runs in a PostgreSQL database; the tables are created on first use.

    `dsn` is a libpq connection string or URL, e.g. ``"postgresql://me@db/runs"``.
    `clock` returns the current time (injected by tests for leases); lease expiry is
    judged by the writers' clocks, so keep the machines' clocks in sync (NTP).
    """

    _skip_locked = True

    def __init__(self, dsn: str, *, clock: Clock | None = None) -> None:
        super().__init__(clock=clock)
        self._psycopg = _psycopg()
        self.dsn = dsn
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[psycopg.Connection[Any]] = []
        self._closed = False
        self._changes: ListenedChanges | None = None
        with self._transaction(write=True) as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in iter_statements(_SCHEMA):
                cur.execute(statement)
            self._check_schema(cur)

    def _connection(self) -> psycopg.Connection[Any]:
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is not None and not conn.closed:
            return conn
        if self._closed:
            raise StoreUsageError("This PostgresStore is closed; open a new one.")
        conn = self._psycopg.connect(self.dsn, autocommit=True)
        conn.execute("SET TIME ZONE 'UTC'")
        # Plan each write for its own values: a generic plan made while the tables were
        # small keeps scanning the items table and makes every write slower than the last.
        conn.execute("SET plan_cache_mode = force_custom_plan")
        self._local.conn = conn
        with self._lock:
            self._connections.append(conn)
        return conn

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        conn = self._connection()
        with conn.transaction(), conn.cursor() as cur:
            if not write:
                # Header and items read in one snapshot, even while writers commit.
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield cur

    def _apply(self, run_id: str, plan: WritePlan) -> bool:
        # One statement (one round trip, atomic on its own): the items are written, and
        # the readers notified, only if the version-checked header update matched.
        statement, values = self._write_statement(run_id, plan)
        return self._connection().execute(statement, values).fetchone() is not None

    def _apply_in(self, cur: Cursor, run_id: str, plan: WritePlan) -> bool:
        statement, values = self._write_statement(run_id, plan)
        return cur.execute(statement, values).fetchone() is not None

    def _write_statement(self, run_id: str, plan: WritePlan) -> tuple[str, list[Any]]:
        header, appended, replaced = plan.header, plan.appended, plan.replaced
        statement = self._sql(
            f"WITH h AS ({header} RETURNING item_count - ? AS start), "
            "ins AS (INSERT INTO pausepoint_items (run_id, position, item) "
            "SELECT ?, h.start + a.ord - 1, a.item "
            "FROM h, unnest(?::text[]) WITH ORDINALITY AS a(item, ord)), "
            "rep AS (UPDATE pausepoint_items AS i SET item = r.item "
            "FROM h, unnest(?::int[], ?::text[]) AS r(position, item) "
            "WHERE i.run_id = ? AND i.position = r.position) "
            f"SELECT start, pg_notify('{CHANNEL}', ?) FROM h"
        )
        values = [
            *plan.params,
            len(appended),
            run_id,
            list(appended),
            [position for position, _ in replaced],
            [text for _, text in replaced],
            run_id,
            payload_of(run_id),
        ]
        return statement, values

    def _announce(self, cur: Cursor, run_id: str) -> None:
        cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload_of(run_id)))

    def changes(self) -> RunChanges:
        """Pushed by PostgreSQL: every write notifies `pausepoint_runs` with its run id,
        in its own transaction, and a connection of this store listens (on a thread of
        its own, so no event loop waits on it). A change committed by any process shows
        within milliseconds. Rows changed outside pausepoint notify nobody (`exact` is
        False)."""
        with self._lock:
            if self._closed:
                raise StoreUsageError("This PostgresStore is closed; open a new one.")
            if self._changes is None:
                self._changes = ListenedChanges(self._psycopg, self.dsn)
            return self._changes

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s")

    def _argument(self, key: str) -> str:
        return f"(pause_args::jsonb -> '{key}')"

    def _pause_message(self) -> str:
        return "(pending::jsonb -> 0 ->> 'message')"

    def _to_db_time(self, moment: datetime) -> Any:
        return moment

    def _from_db_time(self, value: Any) -> datetime:
        return aware(value)

    def _is_duplicate(self, exc: Exception) -> bool:
        return isinstance(exc, self._psycopg.errors.UniqueViolation)

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

    def __repr__(self) -> str:
        return "PostgresStore(...)"
