"""The transcript kept current in the front end with small messages.

While a run moves, new items and changed tool calls go out as `{type: "items", start,
items}` and streamed text as `{type: "text", delta}` (js/README.md), each at most
`UPDATE_INTERVAL` apart; the view's `items` trait is kept current in the kernel without
being resent. The traits in `PACED` travel with the next of those flushes. At the end of
each notebook cell, what changed since the last one is synced once more, for clients that
keep only the running cell's messages (nbclient). The whole transcript goes again only
while no front end has said that it follows these messages (a `follow` request): one that
does has it already, and a long run's transcript is megabytes the page would parse and
compare again.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..run import (
    Event,
    InterruptedEvent,
    ItemEditedEvent,
    MessageEvent,
    ResolvedEvent,
    SetAsideEvent,
    TextDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from ..transcript import Item, ToolCall
from ._preview import PREVIEW_LIMIT, bounded_item, ref_of
from ._throttle import Throttle

if TYPE_CHECKING:
    from ._viewed import ViewedRun

__all__ = ["CELL_END", "PACED", "UPDATE_INTERVAL", "ItemSync", "item_json"]

logger = logging.getLogger("pausepoint")

UPDATE_INTERVAL = 1 / 30
"""Transcript changes and streaming text each reach the front end at most this often (s)."""
PACED = ("error", "pending", "started_at", "status")
"""Traits whose changes travel with the next transcript flush while a run moves: a run
answered from code flips status and cards many times a second, and the front end needs
only the latest (the Python side's values are current at once)."""


class _View(Protocol):
    """What the sync needs of the widget it keeps current."""

    items: list[Any]

    def send(self, content: dict[str, Any]) -> None: ...

    def send_state(self, key: str | Sequence[str] | None = None) -> None: ...

    def paced_values(self) -> tuple[Any, ...]: ...


def item_json(item: Item, position: int) -> dict[str, Any]:
    """A transcript item as the front end gets it: large values as previews."""
    return bounded_item(item.model_dump(mode="json"), ref_of("item", str(position)))


class ItemSync:
    """Sends `run`'s transcript changes to `view` as they happen, paced."""

    def __init__(self, view: _View, run: ViewedRun) -> None:
        self._view = view
        self._run = run
        self._positions = {
            item.id: i for i, item in enumerate(run.prompt.items) if isinstance(item, ToolCall)
        }
        self._changed: set[int] = set()
        self._items_dirty = False  # sent as messages since the last cell end
        self._synced_at_cell_end = view.paced_values()
        self._paced: set[str] = set()
        self.pacing = False
        self._items = Throttle(UPDATE_INTERVAL, self._flush_items)
        self._text: list[str] = []
        self._streamed = 0  # characters of this turn's text sent so far
        self._text_throttle = Throttle(UPDATE_INTERVAL, self._flush_text)
        self.followed = False
        """A front end applies the transcript messages (it sent a `follow` request)."""
        self._since_whole = False  # items messages went out since the whole trait did

    def sent_whole(self) -> None:
        """The whole `items` trait went to the front end (its state was sent)."""
        self._since_whole = False

    def follow(self) -> None:
        """A front end follows the messages from now on. When items messages went out
        since the whole `items` trait last did, its copy may be older than they are (a
        host that keeps a widget's state and gives it to a page opened again, as marimo
        does, never sees the messages): the trait goes again, which brings the page and
        the host's copy up to date."""
        if self._since_whole:
            self._view.send_state("items")  # notes that the whole trait went
        self.followed = True

    def holds(self, key: str) -> bool:
        """Whether the change of trait `key` waits for the next flush (and is noted)."""
        if self.pacing and key in PACED:
            self._paced.add(key)
            return True
        return False

    def note(self, event: Event) -> bool:
        """Take in what `event` changes in the transcript; True when it only streamed text
        (nothing else about the run changed)."""
        if isinstance(event, TextDeltaEvent):
            if self._changed or len(self._view.items) != len(self._run.prompt.items):
                # Earlier items first: the front end clears streamed text when an
                # assistant message arrives.
                self._items.now()
            self._text.append(event.text)
            self._text_throttle.poke()
            return True
        if isinstance(event, MessageEvent):
            # The message carries the whole text: what is still buffered is not needed.
            self._text.clear()
            self._text_throttle.cancel()
            self._streamed = 0
        if isinstance(
            event,
            ToolCallStartedEvent | ToolCallFinishedEvent | InterruptedEvent | ResolvedEvent,
        ):
            position = self._positions.get(event.tool_call.id)
            if position is not None:
                self._changed.add(position)
        elif isinstance(event, SetAsideEvent | ItemEditedEvent):
            self._changed.add(event.position)
        return False

    def poke(self, text_only: bool) -> None:
        """After an event: flush soon, unless it only streamed text and nothing waits."""
        if self._paced or not text_only:
            self._items.poke()

    def now(self) -> None:
        """Flush at once, with what was paced before (the end of the run, or of a cell)."""
        self._text_throttle.now()
        self.pacing = False
        self._items.now()

    def cancel(self) -> None:
        self._items.cancel()
        self._text_throttle.cancel()

    def _flush_items(self) -> None:
        """Send what changed since the last flush: new items and changed tool calls, then
        the paced traits that changed."""
        self._send_items()
        if self._paced:
            keys = sorted(self._paced)
            self._paced.clear()
            self._view.send_state(keys)

    def _send_items(self) -> None:
        items = self._run.prompt.items
        mirror = self._view.items
        for position in range(len(mirror), len(items)):
            item = items[position]
            if isinstance(item, ToolCall):
                self._positions[item.id] = position
            mirror.append(None)
            self._changed.add(position)
        if not self._changed:
            return
        positions = sorted(self._changed)
        self._changed.clear()
        self._items_dirty = True
        run_start = previous = positions[0]
        for position in [*positions[1:], -1]:
            if position == previous + 1:
                previous = position
                continue
            dumped = [item_json(items[p], p) for p in range(run_start, previous + 1)]
            mirror[run_start : previous + 1] = dumped
            self._view.send({"type": "items", "start": run_start, "items": dumped})
            self._since_whole = True
            run_start = previous = position

    def _flush_text(self) -> None:
        if not self._text:
            return
        delta = "".join(self._text)
        self._text.clear()
        # Streamed text is a preview too: past the limit it stops, and the message, when
        # it arrives, is shown as a preview with its whole size.
        room = PREVIEW_LIMIT - self._streamed
        if room <= 0:
            return
        if len(delta) > room:
            delta = delta[:room] + " …"
        self._streamed += len(delta)
        self._view.send({"type": "text", "delta": delta})

    def at_cell_end(self) -> None:
        """Send the whole transcript once if it changed since the last time (unless a
        front end follows the messages), and the paced traits again if they changed since
        the last cell ended."""
        if self._items.due or self._text_throttle.due:
            self.now()  # what waits for the end of an interval goes before the cell's end
        if self._items_dirty:
            self._items_dirty = False
            if not self.followed:
                self._view.send_state("items")
        paced = self._view.paced_values()
        if paced != self._synced_at_cell_end:
            self._synced_at_cell_end = paced
            self._view.send_state(list(PACED))


class _Syncs(Protocol):
    def sync_at_cell_end(self) -> None: ...


class _CellEnd:
    """Syncs each live view's changed state once at the end of a notebook cell, so that
    state saved by a headless run (nbclient) holds the run's final state too."""

    def __init__(self) -> None:
        self._views: weakref.WeakSet[Any] = weakref.WeakSet()
        self._hooked = False

    def track(self, view: _Syncs) -> None:
        self._views.add(view)
        if self._hooked:
            return
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
        if shell is not None:
            shell.events.register("post_run_cell", self._flush)
            self._hooked = True

    def _flush(self, *_: Any) -> None:
        for view in list(self._views):
            try:
                view.sync_at_cell_end()
            except Exception:
                logger.exception("pausepoint view: syncing the transcript failed")


CELL_END = _CellEnd()
