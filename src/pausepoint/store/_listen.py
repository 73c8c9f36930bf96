"""`ListenedChanges`: a PostgreSQL store's changes, pushed by `LISTEN/NOTIFY`.

Every transaction that creates, writes or deletes a run also sends `NOTIFY` on `CHANNEL`
with the run id; PostgreSQL delivers it to every listener when (and only if) it commits,
so a notification costs no commit of its own. A thread holds one connection that listens
and hands each notification to the waiting event loops, so no loop ever blocks on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from typing import Any

from ._changes import RunChanges

__all__ = ["CHANNEL", "ListenedChanges", "payload_of"]

logger = logging.getLogger("pausepoint")

CHANNEL = "pausepoint_runs"
# PostgreSQL refuses a payload of 8,000 bytes or more (and the whole write with it).
_MAX_PAYLOAD = 7999
# How long the thread waits for notifications before it looks whether it should stop.
_TURN = 0.2
_RECENT = 1024


def payload_of(run_id: str) -> str:
    """The notification's payload for `run_id`: the id, or "" ("some run") when too long."""
    return run_id if len(run_id.encode()) <= _MAX_PAYLOAD else ""


class ListenedChanges(RunChanges):
    """Counts the notifications a listening connection receives; `wait()` wakes as each
    one arrives. A lost connection is opened again and counted as a change (notifications
    sent meanwhile are lost), so readers look at the store once more."""

    pushed = True

    def __init__(self, psycopg: Any, dsn: str) -> None:
        self._psycopg = psycopg
        self._dsn = dsn
        self._lock = threading.Lock()
        self._version = 0
        # (version, run id or None for "some run"), to answer `changed_runs`.
        self._recent: deque[tuple[int, str | None]] = deque(maxlen=_RECENT)
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = set()
        self._stopping = threading.Event()
        # Listening before returning: no change committed after `changes()` goes unseen.
        self._conn = self._listen()
        self._thread = threading.Thread(target=self._receive, name="pausepoint-listen", daemon=True)
        self._thread.start()

    def _listen(self) -> Any:
        conn = self._psycopg.connect(self._dsn, autocommit=True)
        conn.execute(f"LISTEN {CHANNEL}")
        return conn

    def version(self) -> int:
        with self._lock:
            return self._version

    async def wait(self, seen: int, within: float) -> int:
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[None] = loop.create_future()
        waiter = (loop, woken)
        with self._lock:
            if self._version != seen:
                return self._version
            self._waiters.add(waiter)
        try:
            await asyncio.wait({woken}, timeout=max(within, 0.0))
        finally:
            with self._lock:
                self._waiters.discard(waiter)
            woken.cancel()
        return self.version()

    def changed_runs(self, since: int) -> frozenset[str] | None:
        with self._lock:
            if since >= self._version:
                return frozenset()
            if not self._recent or self._recent[0][0] > since + 1:
                return None  # the oldest changes asked about are forgotten
            ids = [run_id for version, run_id in self._recent if version > since]
        return None if None in ids else frozenset(i for i in ids if i is not None)

    def _changed(self, run_id: str | None) -> None:
        with self._lock:
            self._version += 1
            self._recent.append((self._version, run_id))
            waiters, self._waiters = self._waiters, set()
        for loop, woken in waiters:
            # A closed loop refuses the call: nobody waits there any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_wake, woken)

    def _receive(self) -> None:
        conn = self._conn
        pause = _TURN
        while not self._stopping.is_set():
            try:
                if conn is None:
                    conn = self._conn = self._listen()
                    self._changed(None)
                    pause = _TURN
                for note in conn.notifies(timeout=_TURN):
                    self._changed(note.payload or None)
            except self._psycopg.Error:
                if self._stopping.is_set():
                    break
                logger.warning("pausepoint: listening for run changes failed", exc_info=True)
                if conn is not None:
                    conn.close()
                conn = self._conn = None
                self._stopping.wait(pause)
                pause = min(pause * 2, 5.0)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        self._stopping.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5 * _TURN)


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)
