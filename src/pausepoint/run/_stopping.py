"""Stopping a run and waiting for it: `cancel()` from anywhere, `wait()` until it rests."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._result import AgentRunResult
    from ._stretch import Stretch

__all__ = ["Stopping"]


class Stopping:
    """How `AgentRun` stops and is waited on (its `_stretch` does the work)."""

    _stretch: Stretch
    _task: asyncio.Task[AgentRunResult] | None

    async def cancel(self, reason: str | None = None) -> AgentRunResult | None:
        """Stop the run: from its own loop, another loop, or (awaited there) any thread.

        The run ends with status `cancelled`; calls that were in flight are recorded as
        `cancelled` (with who and why) and are never started again: continuing the run
        shows the model they were cancelled. `run_finished` fires and `result` / `wait()`
        report the cancelled result, which this returns once the run has stopped. A run
        that is not executing is left as it is (this returns its latest result).
        """
        return await asyncio.wrap_future(self.cancel_threadsafe(reason))

    def cancel_threadsafe(self, reason: str | None = None) -> Future[AgentRunResult | None]:
        """`cancel()` for code without a loop of its own (widget handlers, other threads):
        asks the run's loop to stop the run and returns at once. The returned
        `concurrent.futures.Future` completes with the run's result once it has stopped.
        """
        return self._stretch.cancel_threadsafe(reason)

    async def wait(self) -> AgentRunResult:
        """Wait until the run stops executing (a background start, or an answer given in
        the view), then return its latest result::

            run = agent.start("Refund order 42")
            result = await run.wait()     # e.g. status "interrupted"
        """
        # Polling, not an asyncio.Event: a run may move between loops (run_sync).
        while self._stretch.busy or (self._task is not None and not self._task.done()):  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        return self._stretch.current_result()
