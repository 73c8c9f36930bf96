"""The stretch: one execution of a run, from `run()` or an answer until the run stops.

A stretch owns what executes right now: the claim on the run id (one executor per run in
a process), the store's lease for a stored run (renewed while it runs), the task that
`cancel()` stops, and the end of it all: the result, the run's status settled, the last
save, then `run_finished`, exactly once, however the stretch ended.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .._threads import is_alive
from ..errors import RunBusyError, RunStateError
from ..store import StoreError
from ..transcript import Cancellation, Prompt
from ._cancel import cancel_open_calls, run_cancelled_error
from ._claims import claim, held, release
from ._durable import Durable
from ._events import CancelledEvent, Events, RunFinishedEvent, ToolCallFinishedEvent
from ._outcome import Outcomes
from ._result import AgentRunResult, RunStatus
from ._steps import needs_work
from ._turn import Turn

if TYPE_CHECKING:
    from ._agent import Agent

__all__ = ["Stretch"]

logger = logging.getLogger("pausepoint")


class Stretch:
    """Executes one run, a stretch at a time (see the module)."""

    def __init__(
        self,
        *,
        agent: Agent,
        prompt: Prompt,
        durable: Durable | None,
        turn: Turn,
        outcomes: Outcomes,
        events: Events,
    ) -> None:
        self._agent = agent
        self._prompt = prompt
        self.durable = durable
        self._turn = turn
        self._outcomes = outcomes
        self._events = events
        self._busy = False
        self._running = False
        self.loop: asyncio.AbstractEventLoop | None = None
        """The loop the run last executed on; answers from other threads go there."""
        self.result: AgentRunResult | None = None
        # What executes right now (the stretch's task, on its loop), for cancel() from any
        # thread; the lock makes the pair read as one.
        self._lock = threading.Lock()
        self._executing: tuple[asyncio.AbstractEventLoop, asyncio.Task[AgentRunResult]] | None
        self._executing = None
        self._cancel_request: Cancellation | None = None
        self._cancel_waiters: list[Future[AgentRunResult | None]] = []
        # Answers from a person (the view, the inbox) that came while this object held the
        # run: each waits for the call holding it to return, then answers.
        self._free_waiters: list[asyncio.Future[None]] = []

    @property
    def busy(self) -> bool:
        """True from the moment a call claims the run until it has returned."""
        return self._busy

    @property
    def status(self) -> RunStatus:
        """`running` until the stretch's result is settled, then what the run is."""
        prompt = self._prompt
        if self._running or (not self._busy and held(prompt.run_id)):
            return "running"
        if prompt.pending():
            return "interrupted"
        if self.result is not None:
            return self.result.status
        if prompt.model_pause is not None:  # a stepping run loaded while paused
            return "paused"
        return "completed" if prompt.output is not None else "idle"

    def current_result(self) -> AgentRunResult:
        if self.result is not None:
            return self.result
        # A run rebuilt from a saved Prompt: its transcript says where it stands.
        if self._prompt.model_pause is not None:
            return self._outcomes.result("paused")
        if self._prompt.pending():
            return self._outcomes.result("interrupted")
        if self._prompt.output is not None:
            return self._outcomes.result("completed")
        raise RunStateError(
            "This run has not run in this process and waits on nobody: call run() (or "
            "start()) to continue it."
        )

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Claim the run for one call (`RunBusyError` while anything executes it)."""
        run_id = self._prompt.run_id
        claim(run_id, self)
        try:
            self._refuse_live_threads()
            self.loop = asyncio.get_running_loop()
            self._busy = self._running = True
            yield
        finally:
            self._busy = self._running = False
            release(run_id, self)
            # A Stop that came while a refused call held the run: nothing was running.
            self._cancel_request = None
            self._answer_cancel_waiters()
            self._answer_free_waiters()

    async def free(self) -> None:
        """Return once the call holding the run (in this object) has returned."""
        if not self._busy:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._free_waiters.append(waiter)
        await waiter

    def _answer_free_waiters(self) -> None:
        waiters, self._free_waiters = self._free_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.get_loop().call_soon_threadsafe(_settle_waiter, waiter)

    def _refuse_live_threads(self) -> None:
        _, records = self._prompt.current_turn()
        for record in records:
            if needs_work(record) and is_alive((self._prompt.run_id, record.id)):
                raise RunBusyError(
                    f"Tool call {record.id!r} ({record.name}) is still executing in a "
                    "worker thread from an earlier, stopped execution; it is not started "
                    "twice. Wait for it to return, then continue the run."
                )

    async def advance(self, max_turns: int | None = None) -> AgentRunResult:
        """One stretch, in a task of its own so that `cancel()` stops exactly it, holding
        the lease of a stored run while it runs."""
        durable = self.durable
        renewal: asyncio.Task[None] | None = None
        if durable is not None:
            await durable.take()
            renewal = asyncio.get_running_loop().create_task(durable.keep_alive())
        try:
            return await self._execute(max_turns or self._agent.max_turns)
        finally:
            if renewal is not None:
                renewal.cancel()
            if durable is not None:
                durable.let_go()

    async def _execute(self, max_turns: int) -> AgentRunResult:
        loop = asyncio.get_running_loop()
        self.loop = loop
        task = loop.create_task(self._turn.until_stop(max_turns))
        with self._lock:
            self._executing = (loop, task)
        if self._cancel_request is not None:
            task.cancel()  # Stop came between the answer and this stretch
        outer = asyncio.current_task()
        reraise: BaseException | None = None
        try:
            result = await task
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            if isinstance(exc, KeyboardInterrupt) or (outer is not None and outer.cancelling()):
                reraise = exc  # the task (or the kernel) asked to stop: the caller must see it
            cancellation = self._cancel_request or Cancellation(
                by="interrupt",
                reason="KeyboardInterrupt" if isinstance(exc, KeyboardInterrupt) else None,
            )
            result = await self._stop(task, cancellation)
        except Exception as exc:
            logger.error("The run stopped on an internal error", exc_info=exc)
            result = await self._outcomes.fail(exc)
        finally:
            with self._lock:
                self._executing = None
            self._cancel_request = None
        result = await self._settle(result)
        self._answer_cancel_waiters()
        if reraise is not None:
            raise reraise
        return result

    async def _settle(self, result: AgentRunResult) -> AgentRunResult:
        """Make `result` current and the status final, save the outcome, then tell
        `run_finished`. A refused save fails the run: its outcome is not durable
        (another writer took the run over)."""
        self.result = result
        self._running = False
        if self.durable is not None:
            try:
                # The outcome and the end of the lease, in one commit.
                await self.durable.commit(self._prompt, self.status, release=True)
            except StoreError as exc:
                logger.error("Could not save the outcome of run %s: %s", self._prompt.run_id, exc)
                if result.status != "failed":  # a failure is reported once, as it happened
                    result = self.result = await self._outcomes.fail(exc)
        if self._events.heard(RunFinishedEvent.name):
            await self._events.emit(RunFinishedEvent(result))
        return result

    async def _stop(
        self, task: asyncio.Task[AgentRunResult], cancellation: Cancellation
    ) -> AgentRunResult:
        """Record a cancelled stretch: calls in flight (or not yet started) become
        `cancelled`, and are never started again."""
        task.cancel()
        children = self._turn.drop_children()
        for child in children:
            child.cancel()
        await asyncio.gather(task, *children, return_exceptions=True)
        for record in cancel_open_calls(self._prompt, cancellation):
            await self._events.emit(ToolCallFinishedEvent(record))
        result = self._outcomes.result("cancelled", error=run_cancelled_error(cancellation))
        await self._events.emit(CancelledEvent(cancellation, result))
        return result

    def cancel_threadsafe(self, reason: str | None) -> Future[AgentRunResult | None]:
        done: Future[AgentRunResult | None] = Future()
        with self._lock:
            loop = self._executing[0] if self._executing is not None else self.loop
        if loop is None or loop.is_closed() or not loop.is_running():
            done.set_result(self.result)  # nothing can be executing
            return done

        def stop() -> None:  # on the run's loop, between two steps of the run
            if not self._busy:
                done.set_result(self.result)
                return
            if self._cancel_request is None:
                self._cancel_request = Cancellation(by="user", reason=reason)
            self._cancel_waiters.append(done)
            if self._executing is not None:
                self._executing[1].cancel()
            # else: between an answer and its stretch; the stretch stops as it starts.

        try:
            loop.call_soon_threadsafe(stop)
        except RuntimeError:  # the loop closed: nothing executes there any more
            done.set_result(self.result)
        return done

    def _answer_cancel_waiters(self) -> None:
        waiters, self._cancel_waiters = self._cancel_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(self.result)


def _settle_waiter(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
