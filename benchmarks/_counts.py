"""How the benchmarks count what durable steps cost: commits (on SQLite by the store, on
PostgreSQL by the transaction ids the server gave out) and disk flushes (fdatasync and
fsync calls, counted with strace when it is installed)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pausepoint.store import SQLiteStore

_STRACE_TOTAL = re.compile(r"^\S+\s+\S+\s+\S+\s+(\d+)\s+(?:\d+\s+)?total$", re.M)


class CountingSQLiteStore(SQLiteStore):
    """Counts the write transactions it commits."""

    commits = 0

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Any]:
        with super()._transaction(write=write) as cur:
            yield cur
        if write:
            self.commits += 1


def next_xid(dsn: str) -> int:
    """The transaction id the server gives out next: the difference between two readings
    is how many writing transactions committed (or aborted) between them, server-wide."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT pg_snapshot_xmax(pg_current_snapshot())::text").fetchone()
    assert row is not None
    return int(row[0])


@contextmanager
def fresh_database(dsn: str, name: str) -> Iterator[str]:
    """A new, empty database `name` on the server of `dsn` (dropped at the end, whoever is
    still connected); yields its DSN."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield dsn.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def strace_missing() -> str | None:
    """Why flushes cannot be counted here, or None when they can."""
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace to count them)"
    return None


def count_fsyncs(command: Sequence[str], out: Path, **run: Any) -> int:
    """Runs `command` (and the processes it starts) under strace; returns how many
    fdatasync and fsync calls they made. `run` goes to subprocess.run."""
    strace = shutil.which("strace")
    assert strace is not None, strace_missing()
    subprocess.run(
        [strace, "-f", "-c", "-e", "trace=fdatasync,fsync", "-o", str(out), *command],
        check=True,
        **run,
    )
    found = _STRACE_TOTAL.search(out.read_text())
    return int(found.group(1)) if found else 0
