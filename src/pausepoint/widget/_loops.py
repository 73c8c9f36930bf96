"""The event loops a view works across: the one it was made on, and answers handed over."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future
from typing import Any

__all__ = ["current_loop", "log_failure"]

logger = logging.getLogger("pausepoint")


def current_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop, or None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def log_failure(future: Future[Any]) -> None:
    """Logs an answer handed to a run's loop that failed outside the reply path."""
    if not future.cancelled() and future.exception() is not None:
        logger.error("pausepoint view: answering failed", exc_info=future.exception())
