"""The activities a Temporal worker runs for pausepoint: a run's stretch (what `run.run()`
does: up to a pause or the end), and the commit of a person's answer. Both load the run
from the store and work through pausepoint's own checks and leases, so a stale attempt
(a worker that died and was retried) cannot commit over a live one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ..errors import InterruptAlreadyResolvedError, InvalidResolutionError, PausepointError
from ..run import Agent, AgentRun
from ..store import RunStore
from ._shared import Answer, AnswerOutcome, Stretch, StretchOutcome

__all__ = ["HEARTBEAT_EVERY", "Activities"]

HEARTBEAT_EVERY = 2.0
"""Seconds between a stretch's heartbeats (its timeout is five times that)."""
LEASE_TTL = 15.0
"""How long a stretch's lease outlives a worker that died: then another attempt goes on."""
WAITING = ("interrupted", "paused")
ENDED = ("completed", "failed", "cancelled")


class Activities:
    """The activities of a worker that executes `agents`' runs stored in `store`."""

    def __init__(
        self, store: RunStore, agents: Agent | Mapping[str, Agent], *, lease_ttl: float = LEASE_TTL
    ) -> None:
        self.store = store
        self.agents: dict[str | None, Agent] = {}
        if isinstance(agents, Agent):
            self.agents[agents.name] = agents
        else:
            self.agents.update(agents.items())
        self.lease_ttl = lease_ttl

    def _agent(self, name: str | None) -> Agent:
        try:
            return self.agents[name]
        except KeyError:
            raise ApplicationError(
                f"This worker runs no agent named {name!r} (it runs: "
                f"{', '.join(repr(n) for n in self.agents)}).",
                type="UsageError",
                non_retryable=True,
            ) from None

    async def _load(self, run_id: str, agent: str | None) -> AgentRun:
        found = self._agent(agent)
        try:
            return await asyncio.to_thread(
                AgentRun.load, self.store, run_id, found, lease_ttl=self.lease_ttl
            )
        except PausepointError as error:
            raise refusal(error) from error

    @activity.defn(name="pausepoint_stretch")
    async def stretch(self, given: Stretch) -> StretchOutcome:
        """Execute the run until it pauses, finishes or fails, heartbeating."""
        run = await self._load(given.run_id, given.agent)
        if run.status in ENDED or (run.status in WAITING and not _all_expired(run)):
            # A worker died after it committed where the run stands: nothing to execute.
            return outcome_of(run)
        beating = asyncio.ensure_future(_heartbeats())
        work = asyncio.ensure_future(run.run())
        try:
            await asyncio.shield(work)
        except asyncio.CancelledError:
            if activity.is_worker_shutdown():
                await self._abandon(run, work)
            else:  # the workflow was cancelled: so is the run, as a Stop would
                work.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await work
            raise
        finally:
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beating
        return outcome_of(run)

    async def _abandon(self, run: AgentRun, work: asyncio.Future[Any]) -> None:
        """This worker shuts down mid-stretch: leave the run as a crash would, for the
        next attempt to go on from its last committed step (an action cut short runs again
        as a new attempt). The lease is released in the store first, so the stopped
        stretch's own last commit (its call "cancelled") is refused."""
        durable = run._stretch.durable
        if durable is not None:
            await asyncio.to_thread(self.store.release, run.id, durable.owner)
        work.cancel()
        with contextlib.suppress(BaseException):
            await work

    @activity.defn(name="pausepoint_answer")
    async def answer(self, run_id: str, agent: str | None, given: Answer) -> AnswerOutcome:
        """Commit one answer through the run's checks, without executing anything."""
        run = await self._load(run_id, agent)
        by: Any = given.by
        try:
            if given.kind == "resume":
                await run.resume(
                    given.data, interrupt=given.interrupt_id, by=by, continue_run=False
                )
            elif given.kind == "reject":
                await run.reject(
                    given.data, interrupt=given.interrupt_id, by=by, continue_run=False
                )
            else:
                await run.respond(
                    str(given.data), interrupt=given.interrupt_id, by=by, continue_run=False
                )
        except InterruptAlreadyResolvedError:
            if activity.info().attempt == 1:
                raise refusal_of_resolved(run_id, given.interrupt_id) from None
            # Committed by an attempt whose worker died before it replied: done already.
        except PausepointError as error:
            raise refusal(error) from error
        return AnswerOutcome(run.status, [p.id for p in run.pending])


def outcome_of(run: AgentRun) -> StretchOutcome:
    error = run.result.error if run.result is not None else None
    return StretchOutcome(
        run.status,
        [p.id for p in run.pending],
        f"{error.name}: {error.message}" if error is not None else None,
        _last_expiry(run),
    )


def _expiries(run: AgentRun) -> list[datetime | None]:
    return [entry.expires_at for _, entry in run.prompt.pending()]


def _last_expiry(run: AgentRun) -> str | None:
    found = _expiries(run)
    if not found or any(when is None for when in found):
        return None
    return max(when for when in found if when is not None).isoformat()


def _all_expired(run: AgentRun) -> bool:
    found = _expiries(run)
    now = datetime.now(UTC)
    return bool(found) and all(when is not None and when <= now for when in found)


def refusal(error: PausepointError) -> ApplicationError:
    """A pausepoint error as Temporal carries it: its class's name as the type, its
    message, and for a refused answer its problems, so the caller raises the same."""
    details: list[Any] = []
    if isinstance(error, InvalidResolutionError):
        details = [[{"path": p.path, "message": p.message, "code": p.code} for p in error.problems]]
    return ApplicationError(str(error), *details, type=type(error).__name__, non_retryable=True)


def refusal_of_resolved(run_id: str, interrupt_id: str) -> ApplicationError:
    return ApplicationError(
        f"Interrupt {interrupt_id!r} of run {run_id!r} was answered already: the first "
        "answer stands.",
        type="InterruptAlreadyResolvedError",
        non_retryable=True,
    )


async def _heartbeats() -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(HEARTBEAT_EVERY)
