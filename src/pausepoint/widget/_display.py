"""How a run appears in a notebook's outputs: its live view, and beside it a static HTML
snapshot that is brought up to date whenever the run stops.

`show` makes two outputs. The first is the live view (and a short `text/plain`); it is
never sent again, so updating the snapshot never redraws the view a person is using. The
second is the snapshot (`text/html`, and the run's summary as `text/plain`) with a display
id. They are apart because viewers pick one representation per output: nbconvert's HTML
export picks the widget view whenever the notebook holds its saved state, and that view
needs scripts from the network, so an export would show nothing of the run offline. With
the snapshot in an output of its own, the export shows the run offline; where the live
view is drawn, its style sheet hides the snapshot beside it.

The snapshot is updated (`update_display_data`) when the run stops (paused, interrupted,
completed, failed, cancelled), from the run's own loop, so a run that pauses or ends after
its cell did is saved as it is; JupyterLab routes such an update to the output by its
display id, whichever request it came from. A run that pauses and is answered from code
many times a second updates it at most once per `SNAPSHOT_INTERVAL` (a pause that came
sooner is shown as the run is at the end of the interval): each update is some 40 KB of
HTML the page draws again, and a thousand of them would keep the live view waiting behind
them. An end (completed, failed,
cancelled) is sent at once. It is also updated at the end of each cell, for nbclient
(`jupyter execute`, `nbconvert --execute`), which keeps only the messages of the running
cell. Either way it is sent only when what it shows changed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
import weakref
from typing import TYPE_CHECKING, Any, cast

from ..run import Event
from ._snapshot import TWIN_CLASS, snapshot_body, snapshot_html

if TYPE_CHECKING:
    from ._view import RunView
    from ._viewed import ViewedRun

__all__ = [
    "SNAPSHOT_INTERVAL",
    "TWIN_CLASS",
    "display_bundle",
    "show",
    "snapshot_bundle",
    "view_bundle",
]

logger = logging.getLogger("pausepoint")

VIEW_MIMETYPE = "application/vnd.jupyter.widget-view+json"
SNAPSHOT_INTERVAL = 1.0
"""A run's pauses update its snapshot at most this often (s); its end, at once."""
_ENDED = frozenset({"completed", "failed", "cancelled"})


def display_bundle(run: ViewedRun, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run in one mime bundle: its live view, `text/html`, `text/plain` (what a
    viewer that asks for one representation gets, e.g. `_repr_mimebundle_`)."""
    data, metadata = view_bundle(run, **kwargs)
    data["text/plain"] = _summary(run)
    data["text/html"] = snapshot_html(run)
    return data, metadata


def view_bundle(run: ViewedRun, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The output of the live view alone: the widget view and an empty `text/plain` (a
    viewer without widgets shows the snapshot output beside it instead)."""
    bundle = cast("RunView", run.view)._repr_mimebundle_(**kwargs)
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    data = {key: value for key, value in (data or {}).items() if key == VIEW_MIMETYPE}
    data["text/plain"] = ""
    return data, dict(metadata or {})


def snapshot_bundle(run: ViewedRun) -> dict[str, Any]:
    """The output of the snapshot: static `text/html` and the run's summary as text."""
    return {"text/html": snapshot_html(run, beside_view=True), "text/plain": _summary(run)}


def show(run: ViewedRun) -> None:
    """Display the run in the current cell: its live view, then its snapshot, an output
    that later updates reach."""
    from IPython.display import display

    data, metadata = view_bundle(run)
    display(data, metadata=metadata, raw=True)  # type: ignore[no-untyped-call]
    display_id = _DISPLAYED.display_id(run)
    display(snapshot_bundle(run), raw=True, display_id=display_id)  # type: ignore[no-untyped-call]


def _summary(run: ViewedRun) -> str:
    prompt = run.prompt
    pending = prompt.pending()
    lines = [repr(run)]
    lines += [f"  waiting on {e.id}: {e.message}" for _, e in pending]
    if not pending and prompt.output is not None:
        lines.append(f"  output: {prompt.output}")
    return "\n".join(lines)


class _Displayed:
    """The runs shown in this kernel, their display ids, and what their outputs show."""

    def __init__(self) -> None:
        self._ids: weakref.WeakKeyDictionary[ViewedRun, str] = weakref.WeakKeyDictionary()
        # What each way of updating last sent: nbclient drops an update sent between
        # cells (it names an earlier request), so the end of a cell compares with what
        # the last cell end (or the display) sent, not with what a stop sent.
        self._sent: weakref.WeakKeyDictionary[ViewedRun, str] = weakref.WeakKeyDictionary()
        self._sent_at_cell_end: weakref.WeakKeyDictionary[ViewedRun, str] = (
            weakref.WeakKeyDictionary()
        )
        # When a stop last sent each run's snapshot, and the update due at the end of
        # the interval for a pause that came sooner.
        self._stopped_at: weakref.WeakKeyDictionary[ViewedRun, float] = weakref.WeakKeyDictionary()
        self._due: weakref.WeakKeyDictionary[ViewedRun, asyncio.TimerHandle] = (
            weakref.WeakKeyDictionary()
        )
        # The run's loop and the kernel's main thread may both update an output.
        self._lock = threading.RLock()
        self._hooked = False

    def display_id(self, run: ViewedRun) -> str:
        self._hook()
        with self._lock:
            self._sent[run] = self._sent_at_cell_end[run] = snapshot_body(run)
            if run not in self._ids:
                self._ids[run] = f"pausepoint-{run.id}-{uuid.uuid4().hex[:8]}"
                run.on("run_finished", _on_stop(self, run))
            return self._ids[run]

    def _hook(self) -> None:
        if self._hooked:
            return
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None:
            shell.events.register("post_run_cell", self.refresh)
            self._hooked = True

    def refresh(self, *_: Any) -> None:
        """At the end of a cell: update the outputs of every run whose snapshot changed
        since the last cell ended."""
        for run in list(self._ids.keys()):
            self.refresh_run(run, at_cell_end=True)

    def refresh_run(self, run: ViewedRun, *, at_cell_end: bool = False) -> None:
        """Update the snapshot output of `run` if what it shows changed since it was sent."""
        from IPython.display import update_display

        try:
            with self._lock:
                display_id = self._ids.get(run)
                if display_id is None:
                    return
                body = snapshot_body(run)
                last = self._sent_at_cell_end if at_cell_end else self._sent
                if last.get(run) == body:
                    return
                self._sent[run] = body
                if at_cell_end:
                    self._sent_at_cell_end[run] = body
                update_display(  # type: ignore[no-untyped-call]
                    snapshot_bundle(run), raw=True, display_id=display_id
                )
        except Exception:
            logger.exception("pausepoint: updating the output of run %s failed", run.id)

    def stopped(self, run: ViewedRun) -> None:
        """The run stopped: update its snapshot now, or, for a pause within
        `SNAPSHOT_INTERVAL` of the last update, once at the end of the interval."""
        with self._lock:
            due = self._due.pop(run, None)
            wait = self._stopped_at.get(run, -SNAPSHOT_INTERVAL) + SNAPSHOT_INTERVAL
            wait -= time.monotonic()
            if run.status not in _ENDED and wait > 0:
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:
                    loop = None
                if loop is not None:
                    self._due[run] = due or loop.call_later(
                        wait, self._stopped_later, weakref.ref(run)
                    )
                    return
            if due is not None:
                due.cancel()
            self._stopped_at[run] = time.monotonic()
        self.refresh_run(run)

    def _stopped_later(self, ref: weakref.ref[ViewedRun]) -> None:
        run = ref()
        if run is None:
            return
        with self._lock:
            self._due.pop(run, None)
            self._stopped_at[run] = time.monotonic()
        self.refresh_run(run)


def _on_stop(displayed: _Displayed, run: ViewedRun) -> Any:
    """A `run_finished` handler that updates the run's snapshot; it holds the run weakly."""
    ref = weakref.ref(run)

    def stopped(_: Event) -> None:
        shown = ref()
        if shown is not None:
            displayed.stopped(shown)

    return stopped


_DISPLAYED = _Displayed()
