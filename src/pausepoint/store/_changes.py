"""`RunChanges`: how a reader learns that a store's runs changed, without listing them.

A store's `changes()` gives a number that moves whenever a run is created, written or
deleted, by this process or any other (`version()`), and a way to wait for it to move
(`wait()`). A reader lists runs again only when it did, instead of on a timer:

    changes = store.changes()
    seen = changes.version()
    while True:
        seen = await changes.wait(seen, within=30)    # returns early on a change
        ...                                           # read what changed

SQLite counts commits to the file (`PRAGMA data_version`, a few microseconds, no table
read); PostgreSQL pushes them (`LISTEN/NOTIFY`, see `postgres`).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable

__all__ = ["CHECK_INTERVAL", "CountedChanges", "RunChanges", "UnwatchedChanges"]

CHECK_INTERVAL = 0.1
"""Seconds between two looks at a counter while waiting for it to move."""


class RunChanges(ABC):
    """Tells that a store's runs changed: `version()` moves, and `wait()` returns.

    `exact` says whether every change moves `version()`. When it is False some changes may
    go unseen (PostgreSQL: a row edited by hand sends no notification), so a reader should
    still look at the store now and then. `pushed` says whether changes arrive as they
    commit (PostgreSQL) or are looked for every `CHECK_INTERVAL` (SQLite).
    """

    exact: bool = False
    pushed: bool = False

    @abstractmethod
    def version(self) -> int:
        """A number that moves (up) whenever a run changed; cheap enough to call often."""

    async def wait(self, seen: int, within: float) -> int:
        """`version()` as soon as it differs from `seen`, or after `within` seconds (then
        it may equal `seen`). Returns at once when it already differs."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(within, 0.0)
        while (now := self.version()) == seen:
            left = deadline - loop.time()
            if left <= 0:
                break
            await asyncio.sleep(min(CHECK_INTERVAL, left))
        return now

    def changed_runs(self, since: int) -> frozenset[str] | None:
        """The ids of the runs changed after version `since`, or None when this store
        cannot tell (then any run may have changed)."""
        return None

    @abstractmethod
    def close(self) -> None:
        """Stop watching (the store closes it with itself)."""


class UnwatchedChanges(RunChanges):
    """For a store that cannot tell its changes: the version never moves, so readers keep
    looking at the store on their own timer."""

    def version(self) -> int:
        return 0

    async def wait(self, seen: int, within: float) -> int:
        await asyncio.sleep(max(within, 0.0))
        return self.version()

    def close(self) -> None:
        pass  # nothing was opened


class CountedChanges(RunChanges):
    """A SQLite file's changes: `PRAGMA data_version` on a connection of its own, which
    moves on every commit by any other connection, in this process or another, plus
    `own()`, the commits of connections the counter cannot see (an in-memory database)."""

    exact = True

    def __init__(self, path: str | None, own: Callable[[], int]) -> None:
        self._own = own
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        if path is not None:
            # Never waits on a lock: a busy file reads as "unchanged" until the next look.
            self._conn = sqlite3.connect(
                path, timeout=0.0, isolation_level=None, check_same_thread=False
            )
        self._data_version: int | None = None
        self._moves = 0

    def version(self) -> int:
        with self._lock:
            if self._conn is not None:
                try:
                    row = self._conn.execute("PRAGMA data_version").fetchone()
                except sqlite3.Error:
                    row = None
                if row is not None:
                    if self._data_version is not None and row[0] != self._data_version:
                        self._moves += 1
                    self._data_version = row[0]
            return self._moves + self._own()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
