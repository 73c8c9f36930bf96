"""Which AG-UI request a pause is raised under, and what it is called there.

A server that drives a run for an AG-UI request says so around the stretch
(`asked_under`): each pause raised in it records the request's `runId`
(`InterruptEntry.agui_run_id`), which its binding names as the interrupted run, and may
take an id the server chooses (a stateless server names a pause by what it needs to
rebuild it later). The stretch's tasks inherit the setting, as asyncio tasks inherit
context variables, so nothing else in the loop has to carry it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from ..transcript import InterruptEntry, ToolCall, set_fields

__all__ = ["AskedUnder", "NamePause", "asked_under", "stamp_pause"]

NamePause = Callable[[ToolCall, InterruptEntry], str]
"""The id a pause takes, from its tool call and the entry (whose id is still the default)."""


@dataclass(frozen=True, slots=True)
class AskedUnder:
    """The AG-UI request a stretch runs for: its `runId`, and how its pauses are named."""

    run_id: str
    name: NamePause | None = None


_ASKED: ContextVar[AskedUnder | None] = ContextVar("pausepoint_asked_under", default=None)


@contextmanager
def asked_under(request: AskedUnder) -> Iterator[None]:
    """Pauses raised by tasks created inside the block belong to `request`."""
    token = _ASKED.set(request)
    try:
        yield
    finally:
        _ASKED.reset(token)


def stamp_pause(record: ToolCall, entry: InterruptEntry) -> None:
    """Give a new entry (not yet appended) the request it is raised under, and its id."""
    asked = _ASKED.get()
    if asked is None:
        return
    if asked.name is not None:
        set_fields(entry, id=asked.name(record, entry), agui_run_id=asked.run_id)
    else:
        set_fields(entry, agui_run_id=asked.run_id)
