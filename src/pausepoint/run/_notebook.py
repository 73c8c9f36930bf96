"""What a run offers in a notebook: its live view, a background start, and blocking calls
for code that does not `await`. Mixed into `AgentRun`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Self, cast

from ..actions import Rejection
from ..errors import UsageError
from ..transcript import ErrorInfo, Prompt
from ._result import AgentRunResult

if TYPE_CHECKING:
    from ..widget import RunView
    from ._run import AgentRun

__all__ = ["InNotebook"]

logger = logging.getLogger("pausepoint")


class InNotebook:
    """The notebook face of `AgentRun` (see there)."""

    _view: RunView | None = None
    _task: asyncio.Task[AgentRunResult] | None = None

    if TYPE_CHECKING:

        @property
        def prompt(self) -> Prompt: ...

        @property
        def loop(self) -> asyncio.AbstractEventLoop | None: ...

        async def run(
            self, message: str | None = None, *, max_turns: int | None = None
        ) -> AgentRunResult: ...

        async def resume(
            self, data: Any = None, *, interrupt: str | None = None
        ) -> AgentRunResult: ...

        async def reject(
            self,
            error: Rejection | ErrorInfo | str | dict[str, Any] | None = None,
            *,
            interrupt: str | None = None,
        ) -> AgentRunResult: ...

    @property
    def view(self) -> RunView:
        """The live notebook view of this run (one per run, shared by every display)."""
        if self._view is None or self._view.comm is None:  # none yet, or closed
            from ..widget import RunView

            self._view = RunView(cast("AgentRun", self))
        return self._view

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The live view, with a static `text/html` snapshot and `text/plain` for viewers
        that cannot show it (a saved notebook reopened, nbconvert, GitHub, a terminal)."""
        from ..widget._display import display_bundle

        return display_bundle(cast("AgentRun", self), **kwargs)

    def _ipython_display_(self) -> None:
        # Displayed with a display id, so that the output can follow the run (see
        # pausepoint.widget._display).
        from ..widget._display import show

        show(cast("AgentRun", self))

    @property
    def task(self) -> asyncio.Task[AgentRunResult] | None:
        """The background task started by `start()`, if any."""
        return self._task

    def start(self) -> Self:
        """Run in the background on the current event loop; returns at once.

        In a notebook the cell finishes while the run goes on, and its view updates live.
        Needs a running loop (a notebook cell, or async code).
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise UsageError(
                "start() needs a running event loop, as in a notebook cell or async code. "
                "In a plain script use `await run.run()` or `run.run_sync()`."
            ) from None
        self._task = loop.create_task(self.run())
        self._task.add_done_callback(_report_background_failure)
        return self

    def run_sync(
        self, message: str | None = None, *, max_turns: int | None = None
    ) -> AgentRunResult:
        """`run()` for code that does not `await`: scripts and notebook cells alike.

        Interrupting the kernel (or Ctrl-C) while it blocks cancels the run, exactly as
        `run.cancel()` would, and then raises `KeyboardInterrupt`.
        """
        return self._block_on(self.run(message, max_turns=max_turns))

    def resume_sync(self, data: Any = None, *, interrupt: str | None = None) -> AgentRunResult:
        """`resume()` for code that does not `await`. Safe from any thread: while the run's
        loop is running elsewhere (a notebook kernel), the work is handed to that loop and
        this thread waits for the result."""
        return self._block_on(self.resume(data, interrupt=interrupt))

    def reject_sync(
        self,
        error: Rejection | ErrorInfo | str | dict[str, Any] | None = None,
        *,
        interrupt: str | None = None,
    ) -> AgentRunResult:
        """`reject()` for code that does not `await`; safe from any thread, as `resume_sync`."""
        return self._block_on(self.reject(error, interrupt=interrupt))

    def _block_on(self, coro: Coroutine[Any, Any, AgentRunResult]) -> AgentRunResult:
        home = self.loop
        try:
            current: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        if home is not None and home is not current and home.is_running():
            # Another thread's loop runs this run (a kernel, a server): work there only.
            future = asyncio.run_coroutine_threadsafe(coro, home)
            try:
                return future.result()
            except KeyboardInterrupt:
                future.cancel()
                raise
        if current is None:
            # asyncio.run turns Ctrl-C into cancelling the run's task, then re-raises it.
            return asyncio.run(coro)
        # Inside a running loop (a notebook cell): let this one call nest, on this loop only.
        # Never reached from widget handlers, which hand work to the loop instead.
        import nest_asyncio2

        nest_asyncio2.apply(current)
        task = current.create_task(coro)
        try:
            return current.run_until_complete(task)
        except KeyboardInterrupt:
            # The kernel was interrupted while the run worked: stop it the same way a
            # cancelled task stops (calls in flight recorded as cancelled), then say so.
            task.cancel()
            for _ in range(3):  # the cancellation, or a repeated interrupt meanwhile
                with contextlib.suppress(BaseException):
                    current.run_until_complete(task)
                if task.done():
                    break
            raise


def _report_background_failure(task: asyncio.Task[AgentRunResult]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("A background run raised", exc_info=task.exception())
