"""The event loop a widget was made on: where its work goes when a run has none yet."""

from __future__ import annotations

import asyncio

__all__ = ["current_loop"]


def current_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop, or None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
