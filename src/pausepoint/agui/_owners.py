"""Who may read or continue which thread of a served agent.

A caller's identity comes from the server's `authorize` hook: returning a string admits
the request as that caller (returning True admits it unnamed). A thread started by a
named caller records them as its run's `Prompt.owner`; the thread hook (by default
`owner_only`) then decides, for every later request, before the thread's conversation
is read out or any pause is answered. A refused request is told nothing of the thread.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.requests import Request

__all__ = ["AuthorizeThread", "ThreadAccess", "ThreadRefused", "owner_only", "verdict_of"]


@dataclass(frozen=True)
class ThreadAccess:
    """What one request asks of one thread, as an `authorize_thread` hook sees it."""

    thread_id: str
    caller: str | None
    """The identity `authorize` gave the request; None: admitted unnamed."""
    owner: str | None
    """Who started the thread (its run's `Prompt.owner`); None: nobody named."""
    new: bool
    """The request starts the thread (nothing of it exists yet)."""
    answers: bool
    """The request answers the thread's pauses (it carries resume entries)."""


AuthorizeThread = Callable[["Request", ThreadAccess], bool | Awaitable[bool]]
"""Decides whether a request may use a thread (sync or async)."""


def owner_only(request: Request, access: ThreadAccess) -> bool:
    """The default: a thread whose run has an owner is for that caller alone; a new thread,
    or one nobody owns, is for anyone the endpoint admits."""
    return access.new or access.owner is None or access.owner == access.caller


class ThreadRefused(Exception):
    """The caller may not use this thread: RUN_ERROR `forbidden`, and nothing was read."""

    def __init__(self) -> None:
        super().__init__(
            "This thread is not yours to read or continue; nothing was run. Start a new "
            "thread, or send the credentials of the caller who started it."
        )


async def verdict_of(decided: bool | Awaitable[bool] | Any) -> bool:
    """A hook's answer, awaited when it is awaitable: True admits, anything else refuses."""
    if inspect.isawaitable(decided):
        decided = await decided
    return decided is True
