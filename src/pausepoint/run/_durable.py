"""A run attached to a store: its lease, and committing each transcript change in time.

The loop commits where a promise needs it: an answer before the action re-runs; the
model's turn with its calls marked running before an action starts; outcomes before the
model is asked again; the run's status, with the end of its lease, when a stretch ends.
Only what changed is written (`RunWriter`). While a stretch executes, the run holds the
store's lease on it, so no other process executes it at the same time.

Commits run on one thread per store, never on the event loop: the loop serializes what
changed (so the Prompt may move on at once), hands the commit to that thread and awaits
it. One run's commits go one at a time, in order; a save prepared while another of the
same run is in flight waits for it, then writes everything that moved since. Commits of
several runs waiting at once go in one transaction (`_committer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys
import threading
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import TypeVar

from ..errors import RunBusyError
from ..store import LeaseHeldError, RunStore, RunWriter
from ..transcript import Prompt
from ._committer import Committer
from ._result import RunStatus

__all__ = ["DEFAULT_LEASE_TTL", "Durable", "owner_name"]

logger = logging.getLogger("pausepoint")

T = TypeVar("T")

# One thread per store commits for every run of this process on it, in the order given,
# several runs' commits together when they wait at once (`Committer`).
_committers: weakref.WeakKeyDictionary[RunStore, Committer] = weakref.WeakKeyDictionary()
_committers_lock = threading.Lock()


def committer(store: RunStore) -> Committer:
    """The thread that commits to `store` (made on first use; it ends with the store)."""
    with _committers_lock:
        found = _committers.get(store)
        if found is None:
            found = _committers[store] = Committer()
        return found


DEFAULT_LEASE_TTL = 30.0
"""Seconds a run's lease lasts unless renewed; a crashed process blocks a run this long."""


def owner_name(run: object) -> str:
    """Who holds a lease: this host, this process and the run object."""
    return f"{socket.gethostname()}:{os.getpid()}:{id(run):x}"


def _holder_gone(owner: str) -> bool:
    """True when the lease's owner was a process on this host that no longer runs
    (False when that cannot be told: another host, another naming)."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit() or sys.platform == "win32":
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)  # signal 0 only asks whether the process exists
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _held(run_id: str, exc: LeaseHeldError, ttl: float) -> str:
    until = exc.expires_at.isoformat(timespec="seconds")
    lasts = f"a lease lasts {ttl:g} s unless its holder renews it"
    if _holder_gone(exc.owner):
        return (
            f"Run {run_id!r} is still leased by a process that has stopped ({exc.owner}). "
            f"Its lease expires at {until} ({lasts}); answer again after that, here or "
            "after agent.load(run_id). Nothing was recorded."
        )
    return (
        f"Run {run_id!r} is executing elsewhere ({exc.owner}). Wait until it pauses, then "
        "load it again (agent.load(run_id)) and answer there. If that process has stopped, "
        f"its lease expires at {until} ({lasts}); answer again after that."
    )


class Durable:
    """One run's link to its store: the writer, the lease it holds while executing."""

    def __init__(self, writer: RunWriter, *, owner: str, ttl: float) -> None:
        self.writer = writer
        self.owner = owner
        self.ttl = ttl
        self._holding = False
        self._inflight: Future[object] | None = None

    @property
    def store(self) -> RunStore:
        return self.writer.store

    @property
    def holding(self) -> bool:
        """True while this run holds the lease."""
        return self._holding

    def hold(self) -> None:
        """Take the lease before a stretch (a no-op while held). Raises `RunBusyError`
        when another process executes the run, with nothing changed."""
        if self._holding:
            return
        try:
            self.store.acquire(self.writer.run_id, self.owner, self.ttl)
        except LeaseHeldError as exc:
            raise RunBusyError(_held(self.writer.run_id, exc, self.ttl)) from exc
        self.writer.owner = self.owner
        self._holding = True

    def adopt(self, owner: str) -> None:
        """Hold the lease `owner` already took (a worker's claim): the stretch that follows
        takes it over without a commit of its own."""
        self.owner = owner
        self.writer.owner = owner
        self._holding = True

    async def take(self) -> None:
        """`hold`, with the store's work on its commit thread."""
        if self._holding:
            return
        try:
            await self._on_thread(self.store.acquire, self.writer.run_id, self.owner, self.ttl)
        except LeaseHeldError as exc:
            raise RunBusyError(_held(self.writer.run_id, exc, self.ttl)) from exc
        self.writer.owner = self.owner
        self._holding = True

    async def commit(
        self,
        prompt: Prompt,
        status: RunStatus,
        changed: Iterable[int] = (),
        *,
        release: bool = False,
    ) -> None:
        """`save`, off the event loop: what changed is serialized here, at once, and
        committed on the store's thread; returns once it is durable. Cancelled while the
        commit runs, the commit still completes (and the writer knows it)."""
        await self._settled()
        changed = tuple(changed)
        if self._starts_alone(prompt, status, changed, release):
            return
        prepared = self.writer.prepare(
            prompt, status=status, changed=changed, release=release and self._holding
        )
        if prepared is None:
            return
        future = committer(self.store).commit(self.writer, prepared)
        self._inflight = future  # type: ignore[assignment]
        await asyncio.wrap_future(future)
        if release and self.writer.owner is None:
            self._holding = False

    def _starts_alone(
        self, prompt: Prompt, status: RunStatus, changed: Iterable[int], release: bool
    ) -> bool:
        """True for a commit that would only mark a run stored as `idle` (new, or answered
        for a worker) as running: that mark goes with the stretch's first real commit. A
        process that stops before then leaves the run `idle` under its lease, which is
        claimed again once the lease runs out, as a `running` one would be."""
        return (
            status == "running"
            and self.writer.status == "idle"
            and not release
            and not tuple(changed)
            and self.writer.change(prompt) is None
        )

    async def _settled(self) -> None:
        """Wait until no commit of this run is in flight."""
        while (inflight := self._inflight) is not None and not inflight.done():
            await asyncio.wait([asyncio.wrap_future(inflight)])

    def _settled_sync(self) -> None:
        inflight = self._inflight
        if inflight is not None and not inflight.done():
            # Its awaiter was told how it ended; this save starts from what is stored.
            with contextlib.suppress(BaseException):
                inflight.result()

    async def _on_thread(self, work: Callable[..., T], *args: object) -> T:
        """Run `work(*args)` on the store's commit thread, after the work handed there
        before it, and await it."""
        future: Future[T] = committer(self.store).submit(work, *args)
        self._inflight = future  # type: ignore[assignment]
        return await asyncio.wrap_future(future)

    def moved_on(self) -> bool:
        """True when the stored run has changed since this run last saved or loaded it."""
        return self.store.summary(self.writer.run_id).version != self.writer.version

    def save(
        self,
        prompt: Prompt,
        status: RunStatus,
        changed: Iterable[int] = (),
        *,
        release: bool = False,
    ) -> None:
        """Commit what changed since the last save (`StoreConflictError` or
        `LeaseLostError` when another writer got there first; nothing written then).
        `changed` names stored items changed in place other than open tool call records
        (a turn set aside by Retry). `release` lets the lease go in the same commit.
        Blocking: the loop uses `commit`."""
        self._settled_sync()
        self.writer.save(prompt, status=status, changed=changed, release=release and self._holding)
        if release and self.writer.owner is None:
            self._holding = False

    def let_go(self) -> None:
        """Release the lease (after the stretch's last save, or a refused start)."""
        if not self._holding:
            return
        self._settled_sync()
        self._holding = False
        self.writer.owner = None
        try:
            self.store.release(self.writer.run_id, self.owner)
        except Exception:  # the run's outcome is saved; an unreleased lease only expires
            logger.warning("Could not release the lease on %s", self.writer.run_id, exc_info=True)

    async def keep_alive(self) -> None:
        """Renew the lease every third of its lifetime, until cancelled. A lost lease is
        left to the next save, which is then refused and stops the run."""
        while True:
            await asyncio.sleep(self.ttl / 3)
            if not self._holding:
                return  # let go with the stretch's last save
            try:
                await self._on_thread(self.writer.renew, self.ttl)
            except Exception:
                logger.warning("Lost the lease on %s", self.writer.run_id, exc_info=True)
                return

    def reload(self, prompt: Prompt) -> None:
        """Replace `prompt`'s content in place with the stored copy (after a conflict)."""
        writer, stored = RunWriter.load(self.store, self.writer.run_id)
        prompt.instructions = stored.instructions
        prompt.model_pause = stored.model_pause
        prompt.parent = stored.parent
        prompt.items[:] = stored.items
        writer.owner = self.writer.owner
        self.writer = writer
