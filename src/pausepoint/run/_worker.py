"""`Worker`: executes a store's runs, claimed through their leases, in as many processes
and machines as share the store.

A worker claims runs that can go on (`RunStore.claim`: runs never run, runs whose answers
were recorded with `continue_run=False`, runs whose executor stopped), executes each until
it pauses, finishes or fails, and claims more. The store's leases and the database's row
locks decide who executes what, so each run has one executor at a time. A worker that dies
loses nothing committed: its leases run out and another worker takes its runs over from
their last committed step (an action cut short runs again, with a higher `ctx.attempt`)::

    worker = Worker(store, agent, concurrency=4)
    tally = await worker.work(until_idle=True)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..actions import count_setting, seconds_setting
from ..errors import PausepointError, RunBusyError, UsageError
from ..store import Lease, RunChanges, RunNotFoundError, RunStore, RunWriter, StoreError
from ..transcript import AssistantMessage, Prompt
from ._agent import Agent
from ._durable import DEFAULT_LEASE_TTL, Durable
from ._result import AgentRunResult
from ._run import AgentRun

__all__ = ["Worker", "WorkerTally"]

logger = logging.getLogger("pausepoint")

# After a claim found nothing, the store's change notices wake the worker; this is the
# least time between two claims then, so a busy store's stream of notices (every step of
# every run sends one) costs a claim per this much time at most.
_CLAIM_GAP = 0.05


@dataclass
class WorkerTally:
    """What a worker did: the runs it claimed and how their stretches ended."""

    claimed: int = 0
    """Runs claimed (a run paused and answered is claimed again)."""
    finished: int = 0
    """Stretches that completed their run."""
    paused: int = 0
    """Stretches that stopped to wait for a person (an interrupt, a debugger pause)."""
    failed: int = 0
    """Stretches that ended failed or cancelled (the run ends so, as it would anywhere)."""
    lost: int = 0
    """Runs this worker could not finish its stretch of: taken over by another worker
    after its lease lapsed, or not loadable (see the log). Nothing of them is lost."""
    steps: int = 0
    """Model turns taken in the stretches this worker executed."""


class Worker:
    """Claims and executes the runs of `store` that `agents` run, until stopped.

    `agents` is an `Agent` (it runs the runs stored under its `name`) or a mapping of
    stored agent names to agents. `concurrency` runs execute at once on this worker's
    event loop; each holds its lease for `lease_ttl` seconds (`DEFAULT_LEASE_TTL` unless
    given), renewed while it executes: a worker that dies blocks its runs that long.
    With nothing to claim, the worker waits for the store's change notices (PostgreSQL
    pushes them; SQLite is looked at every 0.1 s) and at most `poll` seconds, since an
    expired lease sends no notice. `name` shows in the lease owner and the log.

    Start as many workers as you like, in any processes and machines that reach the
    store; ``python -m pausepoint.worker module:agent --store URL`` is one from a shell.
    """

    def __init__(
        self,
        store: RunStore,
        agents: Agent | Mapping[str, Agent],
        *,
        name: str | None = None,
        lease_ttl: float | None = None,
        poll: float = 0.5,
        concurrency: int = 1,
    ) -> None:
        if not isinstance(store, RunStore):
            raise UsageError(
                f"A worker needs a RunStore (SQLiteStore, PostgresStore), not {store!r}."
            )
        self._agents = _by_name(agents)
        if name is not None and (not isinstance(name, str) or not name):
            raise UsageError(f"A worker's name is a non-empty str, not {name!r}.")
        self.store = store
        self.name = name or f"worker-{os.getpid()}"
        self.lease_ttl = seconds_setting(lease_ttl, "lease_ttl") or DEFAULT_LEASE_TTL
        poll_seconds = seconds_setting(poll, "poll")
        if poll_seconds is None:
            raise UsageError("poll must be a finite number of seconds > 0, not None.")
        self.poll = poll_seconds
        self.concurrency = count_setting(concurrency, "concurrency")
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{self.name}:{id(self):x}"
        """The lease owner this worker claims runs as (host, process, name)."""
        self.tally = WorkerTally()
        self._stopping = False
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.RLock()

    # -- driving it --------------------------------------------------------------------

    async def work(self, *, until_idle: bool = False) -> WorkerTally:
        """Claim and execute runs until `stop()` (then the runs executing finish their
        stretch first) or, with `until_idle`, until nothing is claimable and nothing
        executes here. Returns the tally of this call. Cancelling it cancels the runs it
        executes, as `run.cancel()` would: they end `cancelled`."""
        with self._lock:
            if self._loop is not None:
                raise UsageError(
                    f"Worker {self.name!r} is already working; start another Worker to work "
                    "in parallel."
                )
            self._loop = asyncio.get_running_loop()
            self._wake = asyncio.Event()
            self._stopping = False
        self.tally = WorkerTally()
        active: set[asyncio.Task[None]] = set()
        loop = asyncio.get_running_loop()
        last_claim = -_CLAIM_GAP
        try:
            changes = self.store.changes()
            seen = changes.version()
            while True:
                claimed: list[Lease] = []
                room = self.concurrency - len(active)
                if room > 0 and not self._stopping:
                    seen = changes.version()
                    claimed = await self._claim(room)
                    last_claim = loop.time()
                    for lease in claimed:
                        self.tally.claimed += 1
                        active.add(loop.create_task(self._execute(lease)))
                if not active and (self._stopping or (until_idle and not claimed)):
                    return self.tally
                await self._wait(active, changes, seen, last_claim)
                active = {task for task in active if not task.done()}
        except BaseException:  # cancelled, or the store refuses claims: stop the runs too
            for task in active:
                task.cancel()
            await asyncio.gather(*active, return_exceptions=True)
            raise
        finally:
            with self._lock:
                self._loop = self._wake = None

    def stop(self) -> None:
        """Claim nothing more: the current `work()` returns once the runs it executes
        have paused, finished or failed. Safe from any thread and from a signal handler."""
        with self._lock:
            self._stopping = True
            loop, wake = self._loop, self._wake
        if loop is None or wake is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: nothing to wake
            loop.call_soon_threadsafe(wake.set)

    async def _claim(self, room: int) -> list[Lease]:
        """Up to `room` runs claimed; none when the store cannot be reached now (a
        database restarting): the worker tries again after `poll` seconds."""
        try:
            return await asyncio.to_thread(
                self.store.claim,
                self.owner,
                self.lease_ttl,
                agents=list(self._agents),
                limit=room,
            )
        except PausepointError:
            raise  # a store used wrongly (closed, too old a schema): no use trying again
        except Exception:
            logger.warning("Worker %s could not claim runs", self.name, exc_info=True)
            return []

    async def _wait(
        self,
        active: set[asyncio.Task[None]],
        changes: RunChanges,
        seen: int,
        last_claim: float,
    ) -> None:
        """Until a run of this worker ends, `stop()`, or (with room for more runs) the
        store changes or `poll` seconds pass."""
        assert self._wake is not None
        waiters: set[asyncio.Future[Any]] = {*active}
        helpers: list[asyncio.Future[Any]] = []
        if not self._stopping:
            helpers.append(asyncio.ensure_future(self._wake.wait()))
            if len(active) < self.concurrency:
                helpers.append(asyncio.ensure_future(self._notice(changes, seen, last_claim)))
        try:
            await asyncio.wait({*waiters, *helpers}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for helper in helpers:
                helper.cancel()

    async def _notice(self, changes: RunChanges, seen: int, last_claim: float) -> None:
        loop = asyncio.get_running_loop()
        await changes.wait(seen, within=self.poll)
        gap = last_claim + _CLAIM_GAP - loop.time()
        if gap > 0:
            await asyncio.sleep(gap)

    # -- one run -----------------------------------------------------------------------

    async def _execute(self, lease: Lease) -> None:
        """Execute a claimed run's stretch under the claimed lease, and tally it. Nothing
        escapes: whatever happens to one run, the worker goes on with the others."""
        run_id = lease.run_id
        try:
            await self._execute_one(lease)
        except RunNotFoundError:
            pass  # deleted since it was claimed
        except (RunBusyError, StoreError) as exc:
            # Damaged, written by a newer pausepoint, or taken over: left as it is.
            logger.warning("Worker %s left run %s: %s", self.name, run_id, exc)
            self.tally.lost += 1
        except Exception:
            logger.exception("Worker %s: run %s stopped on an error", self.name, run_id)
            self.tally.failed += 1

    async def _execute_one(self, lease: Lease) -> None:
        agent, writer, prompt = await asyncio.to_thread(self._load, lease.run_id)
        run = AgentRun(agent, prompt, lease_ttl=self.lease_ttl, _writer=writer)
        durable = _durable(run)
        durable.adopt(lease.owner)  # it executes under the lease claimed for it
        try:
            if run.status != "idle":
                # It waits for a person, or has completed, after all: a process stopped
                # before it saved that. Save where the run stands and let it go.
                await asyncio.to_thread(self._hand_back, run)
                return
            before = len(run.prompt.items)
            result = await run.run()
        finally:
            await asyncio.to_thread(durable.let_go)  # a no-op once the stretch let go
        self.tally.steps += sum(
            1 for item in run.prompt.items[before:] if isinstance(item, AssistantMessage)
        )
        self._count(run_id=lease.run_id, result=result)

    def _load(self, run_id: str) -> tuple[Agent, RunWriter, Prompt]:
        """The run's agent and its stored copy (read off the event loop)."""
        agent = self._agents[self.store.summary(run_id).agent]
        writer, prompt = RunWriter.load(self.store, run_id)
        return agent, writer, prompt

    def _hand_back(self, run: AgentRun) -> None:
        durable = _durable(run)
        durable.hold()
        durable.save(run.prompt, run.status, release=True)

    def _count(self, run_id: str, result: AgentRunResult) -> None:
        if isinstance(result.exception, StoreError):
            logger.warning("Worker %s lost run %s: %s", self.name, run_id, result.exception)
            self.tally.lost += 1
        elif result.status == "completed":
            self.tally.finished += 1
        elif result.status in ("interrupted", "paused"):
            self.tally.paused += 1
        else:
            self.tally.failed += 1

    def __repr__(self) -> str:
        return f"<Worker {self.name} on {self.store!r}, {self.concurrency} at a time>"


def _durable(run: AgentRun) -> Durable:
    durable = run._stretch.durable
    assert durable is not None  # a loaded run is stored
    return durable


def _by_name(agents: Agent | Mapping[str, Agent]) -> dict[str | None, Agent]:
    if isinstance(agents, Agent):
        return {agents.name: agents}
    if not isinstance(agents, Mapping) or not agents:
        raise UsageError(
            "A worker needs an Agent or a mapping of stored agent names to agents "
            f"({{'support': support_agent}}), not {agents!r}."
        )
    found: dict[str | None, Agent] = {}
    for key, agent in agents.items():
        if not isinstance(key, str) or not isinstance(agent, Agent):
            raise UsageError(
                f"A worker's agents map agent names (str) to Agents; {key!r}: {agent!r} is not one."
            )
        found[key] = agent
    return found
