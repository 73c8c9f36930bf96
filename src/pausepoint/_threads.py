"""Threads of synchronous actions, tracked per tool call.

A thread cannot be stopped. When the run that started one is cancelled, or the call times
out, the thread goes on until the function returns. The registry remembers which calls
still have a live thread, so that nothing starts the same call a second time meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import Any

from .errors import RunBusyError

__all__ = ["is_alive", "run_in_thread", "wait_idle"]

CallKey = tuple[str, str]
"""(run id, tool call id)"""

_lock = threading.Lock()
_live: dict[CallKey, threading.Event] = {}


def is_alive(key: CallKey) -> bool:
    """True while a worker thread started for this call is still running."""
    with _lock:
        return key in _live


def wait_idle(key: CallKey, timeout: float | None = None) -> bool:
    """Block until the call's worker thread (if any) has returned; False on timeout."""
    with _lock:
        done = _live.get(key)
    return done is None or done.wait(timeout)


async def run_in_thread(key: CallKey, fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """`fn(**kwargs)` in a new thread; cancelling the await leaves the thread running
    (and registered) until it returns. Refuses with `RunBusyError` while one lives."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()
    done = threading.Event()
    with _lock:
        if key in _live:
            raise RunBusyError(
                f"Tool call {key[1]!r} of run {key[0]!r} is still executing in a worker "
                "thread from an earlier, stopped execution; it is not started twice. Wait "
                "for it to return, then continue the run."
            )
        _live[key] = done

    def work() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = context.run(fn, **kwargs)
        except BaseException as exc:  # handed to the awaiting task, whatever it is
            error = exc
        # Released before the outcome is delivered: whoever acts on it (a resume after an
        # interrupt) may start the call again at once.
        with _lock:
            _live.pop(key, None)
        done.set()
        _deliver(loop, future, value, error)

    thread = threading.Thread(target=work, name=f"pausepoint-action-{key[1]}", daemon=True)
    try:
        thread.start()
    except BaseException:
        with _lock:
            _live.pop(key, None)
        raise
    return await future


def _deliver(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    value: Any,
    exc: BaseException | None,
) -> None:
    def settle() -> None:
        if future.done():  # the awaiting task was cancelled meanwhile
            return
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(value)

    # A closed loop: nobody waits for this value any more.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(settle)
