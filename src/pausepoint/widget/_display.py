"""How a run appears in a notebook's outputs: one display bundle (live view, static HTML
snapshot, plain text), and outputs that are brought up to date as the run moves on.

Every display of a run carries one display id. At the end of each notebook cell, a run
whose snapshot changed since it was last sent has all its outputs updated in place
(`update_display_data`), so a notebook saved after a headless run (nbclient, `jupyter
execute`, `nbconvert --execute`) holds the run's final state, not the state it had when
it was first shown. The update is sent from the cell that just ended because front ends
route output messages by the request that caused them: a message from a background task
names a cell that finished long ago, and nbclient ignores it.
"""

from __future__ import annotations

import logging
import uuid
import weakref
from typing import TYPE_CHECKING, Any

from ._snapshot import snapshot_body, snapshot_html

if TYPE_CHECKING:
    from ..run import AgentRun

__all__ = ["display_bundle", "show"]

logger = logging.getLogger("pausepoint")


def display_bundle(run: AgentRun, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's mime bundle and metadata: its live view, `text/html`, `text/plain`."""
    bundle = run.view._repr_mimebundle_(**kwargs)
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    data = dict(data or {})
    data["text/plain"] = _summary(run)
    data["text/html"] = snapshot_html(run)
    return data, dict(metadata or {})


def show(run: AgentRun) -> None:
    """Display the run in the current cell, as an output that later updates reach."""
    from IPython.display import display

    data, metadata = display_bundle(run)
    display(data, metadata=metadata, raw=True, display_id=_DISPLAYED.display_id(run))  # type: ignore[no-untyped-call]


def _summary(run: AgentRun) -> str:
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
        self._ids: weakref.WeakKeyDictionary[AgentRun, str] = weakref.WeakKeyDictionary()
        self._sent: weakref.WeakKeyDictionary[AgentRun, str] = weakref.WeakKeyDictionary()
        self._hooked = False

    def display_id(self, run: AgentRun) -> str:
        self._hook()
        self._sent[run] = snapshot_body(run)
        if run not in self._ids:
            self._ids[run] = f"pausepoint-{run.id}-{uuid.uuid4().hex[:8]}"
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
        """Update the outputs of every run whose snapshot changed since it was sent."""
        from IPython.display import update_display

        for run, display_id in list(self._ids.items()):
            try:
                body = snapshot_body(run)
                if self._sent.get(run) == body:
                    continue
                self._sent[run] = body
                data, metadata = display_bundle(run)
                update_display(  # type: ignore[no-untyped-call]
                    data, metadata=metadata, raw=True, display_id=display_id
                )
            except Exception:
                logger.exception("pausepoint: updating the output of run %s failed", run.id)


_DISPLAYED = _Displayed()
