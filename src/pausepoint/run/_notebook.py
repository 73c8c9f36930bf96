"""What a run offers in a notebook: its live view, and blocking forms of its async calls
for code that does not `await`.

`blocking(method)` makes the blocking form of an async method from the method itself, so
the two always take the same arguments::

    class AgentRun:
        async def resume(self, data=None, *, interrupt=None, on_recorded=None): ...
        resume_sync = blocking(resume, "...")
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, Self, TypeVar, cast

from ..errors import UsageError
from ._display import LiveView, run_display

if TYPE_CHECKING:
    from ._result import AgentRunResult
    from ._run import AgentRun

__all__ = [
    "REJECT_SYNC",
    "RESPOND_SYNC",
    "RESUME_SYNC",
    "RETRY_SYNC",
    "RUN_SYNC",
    "InNotebook",
    "blocking",
]

logger = logging.getLogger("pausepoint")

RUN_SYNC = """`run()` for code that does not `await`: scripts and notebook cells alike.

Interrupting the kernel (or Ctrl-C) while it blocks cancels the run, exactly as
`run.cancel()` would, and then raises `KeyboardInterrupt`."""
RESUME_SYNC = """`resume()` for code that does not `await`. Safe from any thread: while the
run's loop is running elsewhere (a notebook kernel), the work is handed to that loop and
this thread waits for the result."""
RETRY_SYNC = """`retry()` for code that does not `await`; interrupting the kernel while it
blocks cancels the run, as for `run_sync`."""
REJECT_SYNC = """`reject()` for code that does not `await`; safe from any thread, as
`resume_sync`."""
RESPOND_SYNC = """`respond()` for code that does not `await`; safe from any thread, as
`resume_sync()` is."""


P = ParamSpec("P")
R = TypeVar("R")


class HasLoop(Protocol):
    @property
    def loop(self) -> asyncio.AbstractEventLoop | None: ...


S = TypeVar("S", bound=HasLoop)


def blocking(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, R]], doc: str
) -> Callable[Concatenate[S, P], R]:
    """The blocking form of the async `method`: same signature, documented by `doc`."""

    @functools.wraps(method)
    def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return block_on(self.loop, method(self, *args, **kwargs))

    call.__doc__ = doc
    call.__name__ = call.__qualname__ = f"{method.__name__}_sync"
    return call


def block_on(home: asyncio.AbstractEventLoop | None, coro: Coroutine[Any, Any, R]) -> R:
    """Run `coro` to its end from code that does not await: on `home` (the run's loop)
    when that loop runs in another thread, else on this thread."""
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


class InNotebook:
    """The notebook face of `AgentRun`: its view, how it displays, a background start."""

    _view: LiveView | None = None
    _task: asyncio.Task[AgentRunResult] | None = None

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
        self._task = loop.create_task(cast("AgentRun", self).run())
        self._task.add_done_callback(_report_background_failure)
        return self

    @property
    def view(self) -> LiveView:
        """The live notebook view of this run (one per run, shared by every display): a
        `pausepoint.widget.RunView`."""
        if self._view is None or self._view.comm is None:  # none yet, or closed
            self._view = run_display().view(self)
        return self._view

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The live view, with a static `text/html` snapshot and `text/plain` for viewers
        that cannot show it (a saved notebook reopened, nbconvert, GitHub, a terminal)."""
        return run_display().bundle(self, **kwargs)

    def _ipython_display_(self) -> None:
        # Displayed with a display id, so that the output can follow the run (see
        # pausepoint.widget.show).
        run_display().show(self)


def _report_background_failure(task: asyncio.Task[AgentRunResult]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("A background run raised", exc_info=task.exception())
