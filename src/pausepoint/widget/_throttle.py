"""Calling a flush at most once per interval, on the loop of whoever asks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

__all__ = ["Throttle"]


class Throttle:
    """Runs `flush` at once when it has been quiet for `interval` seconds, else once at
    the end of the interval, however many times `poke` is called meanwhile."""

    def __init__(self, interval: float, flush: Callable[[], None]) -> None:
        self._interval = interval
        self._flush = flush
        self._last = -interval
        self._timer: asyncio.TimerHandle | None = None

    def poke(self) -> None:
        if self._timer is not None:
            return
        wait = self._last + self._interval - time.monotonic()
        if wait <= 0:
            self.now()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self.now)

    @property
    def due(self) -> bool:
        """Whether a flush is waiting for the end of the interval."""
        return self._timer is not None

    def now(self) -> None:
        """Flush at once, and cancel the one that was due."""
        self.cancel()
        self._last = time.monotonic()
        self._flush()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
