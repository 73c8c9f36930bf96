"""The thread that commits to one store for every run of this process: group commits.

Store work never runs on the event loop: runs hand it to their store's committer and await
it. Work is done in the order it was handed over. A run's commits reach the committer one
at a time (the next is prepared once the last is in), but several runs' commits can wait
at once: those at the head of the queue go to the store together, as one transaction
(`RunStore.write_many`), so ten runs that each finished a step cost one commit and one
flush to disk, not ten. Each run still learns its own outcome: a refused change (a stale
version, a lost lease) is refused alone.

The thread ends after a few idle seconds and starts again with the next work; at exit the
interpreter waits for work already handed over.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from ..store import PreparedSave, RunWriter

__all__ = ["Committer"]

T = TypeVar("T")

GROUP = 64
"""The most commits of different runs written in one transaction."""
IDLE = 5.0
"""Seconds the thread waits for more work before it ends."""
EXIT_WAIT = 30.0
"""Seconds the interpreter waits at exit for commits already handed over."""


@dataclass(frozen=True, slots=True)
class _Call:
    future: Future[Any]
    work: Callable[..., Any]
    args: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class _Commit:
    future: Future[int]
    writer: RunWriter
    prepared: PreparedSave


class Committer:
    """One store's commit thread (see the module). It holds no reference to the store:
    the work handed over does, until it is done."""

    def __init__(self) -> None:
        self._jobs: deque[_Call | _Commit] = deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._busy = False
        _committers.add(self)

    def submit(self, work: Callable[..., T], *args: object) -> Future[T]:
        """`work(*args)` on the thread, after everything handed over before it."""
        future: Future[T] = Future()
        self._put(_Call(future, work, args))
        return future

    def commit(self, writer: RunWriter, prepared: PreparedSave) -> Future[int]:
        """`writer.commit(prepared)`, in one transaction with the commits of other runs
        waiting beside it; the future holds the run's new version or why it was refused."""
        future: Future[int] = Future()
        self._put(_Commit(future, writer, prepared))
        return future

    def idle(self, timeout: float) -> bool:
        """Wait until no work is waiting or under way; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._ready:
            while self._jobs or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._ready.wait(min(left, 0.05))
        return True

    def _put(self, job: _Call | _Commit) -> None:
        with self._ready:
            self._jobs.append(job)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="pausepoint-commit", daemon=True
                )
                self._thread.start()
            else:
                self._ready.notify_all()

    def _serve(self) -> None:
        while True:
            with self._ready:
                self._busy = False
                self._ready.notify_all()
                if not self._jobs:
                    self._ready.wait(IDLE)
                    if not self._jobs:
                        self._thread = None
                        return
                group = self._next()
                self._busy = True
            _do(group)
            del group  # the work holds its store: let the store go while idle

    def _next(self) -> list[_Call | _Commit]:
        """The job at the head of the queue, with the commits of other runs right behind
        it when it is a commit."""
        first = self._jobs.popleft()
        group: list[_Call | _Commit] = [first]
        if isinstance(first, _Call):
            return group
        runs = {first.writer.run_id}
        while self._jobs and len(group) < GROUP:
            job = self._jobs[0]
            if not isinstance(job, _Commit) or job.writer.run_id in runs:
                break
            group.append(self._jobs.popleft())
            runs.add(job.writer.run_id)
        return group


def _do(group: list[_Call | _Commit]) -> None:
    # A job whose awaiter was cancelled before it started is dropped: its run's next
    # save writes what it held.
    live = [job for job in group if job.future.set_running_or_notify_cancel()]
    if not live:
        return
    first = live[0]
    if isinstance(first, _Call):
        _settle(first.future, lambda: first.work(*first.args))
        return
    commits = [job for job in live if isinstance(job, _Commit)]
    if len(commits) == 1:
        _settle(first.future, lambda: first.writer.commit(first.prepared))
        return
    try:
        outcomes = first.writer.store.write_many(
            [job.writer.write_of(job.prepared) for job in commits]
        )
    except BaseException as exc:  # handed to every run that waits for it
        for job in commits:
            job.future.set_exception(exc)
        return
    for job, outcome in zip(commits, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            job.future.set_exception(outcome)
        else:
            _settle(job.future, partial(job.writer.committed, job.prepared, outcome))


def _settle(future: Future[Any], work: Callable[[], Any]) -> None:
    try:
        value = work()
    except BaseException as exc:  # handed to the awaiting task, whatever it is
        future.set_exception(exc)
    else:
        future.set_result(value)


_committers: weakref.WeakSet[Committer] = weakref.WeakSet()


@atexit.register
def _wait_for_commits() -> None:
    """At exit, let the commits already handed over reach the store (daemon threads
    would otherwise be stopped in the middle of one)."""
    deadline = time.monotonic() + EXIT_WAIT
    for committer in list(_committers):
        committer.idle(max(0.0, deadline - time.monotonic()))
