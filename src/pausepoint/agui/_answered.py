"""What a stateless server remembers: the pauses it has answered lately, in memory.

A stateless server cannot tell a continuation sent again, byte for byte, from the first
one: the conversation and the pause ids are the same. Within one process it remembers
the last pauses it answered, so a replay there (a double click, a client's retry) runs
nothing and is refused as `stale`. Across processes or a restart it cannot: a store is
what makes an answer apply at most once everywhere.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from ..errors import ResumeBatchError, ResumeItemError

__all__ = ["Answered"]

REMEMBERED = 10_000


class Answered:
    """The ids of the pauses this process answered, the newest `limit` of them."""

    def __init__(self, limit: int = REMEMBERED) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._limit = limit

    def claim(self, thread_id: str, interrupt_ids: Iterable[str]) -> list[tuple[str, str]]:
        """Take the pauses a continuation answers; raises `ResumeBatchError` (`stale`)
        when one was answered already, and then takes none. Returns what was taken,
        for `release` when the continuation is refused."""
        keys = [(thread_id, i) for i in interrupt_ids]
        seen = [i for t, i in keys if f"{t}\n{i}" in self._ids]
        if seen:
            raise ResumeBatchError(
                [
                    ResumeItemError(
                        "stale",
                        "That pause was already answered by an earlier continuation to this "
                        "server; nothing was run again.",
                        interrupt_id,
                    )
                    for interrupt_id in seen
                ]
            )
        for thread, interrupt_id in keys:
            self._ids[f"{thread}\n{interrupt_id}"] = None
        while len(self._ids) > self._limit:
            self._ids.popitem(last=False)
        return keys

    def release(self, taken: Iterable[tuple[str, str]]) -> None:
        """Forget pauses taken by a continuation that was refused: they still wait."""
        for thread, interrupt_id in taken:
            self._ids.pop(f"{thread}\n{interrupt_id}", None)
