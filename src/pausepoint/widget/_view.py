"""`RunView`: the live view of an `AgentRun` in a notebook.

The durable state (status, transcript items, pending cards) lives in traits, so a view
opened later, or a saved notebook, shows the run as it is. While the run moves, changes
travel as small custom messages (`_item_sync`); requests from the front end take the one
request path both widgets share (`_requests`, `_view_requests`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import anywidget
import ipywidgets  # type: ignore[import-untyped]
import traitlets
from pydantic import BaseModel

from ..errors import UsageError
from ..interrupts import ClassifiedInterrupt, classify
from ..run import Event
from ._bundle import LOADER, FrontEnd, shared_front_end
from ._cards import foreign_card, with_unique_keys
from ._debug_view import ForkFollower, forks_of
from ._item_sync import CELL_END, UPDATE_INTERVAL, ItemSync, item_json
from ._loops import current_loop
from ._preview import bounded_card, ref_of
from ._requests import RequestPath, running_loop
from ._status import status_of
from ._view_requests import view_handlers, view_limit, view_value
from ._view_state import (
    edited_items,
    hosted_by,
    load_line,
    own_cards,
    served_from,
    show_event,
)
from ._viewed import ViewedRun
from .protocol import VIEW_REQUESTS

__all__ = ["UPDATE_INTERVAL", "RunView"]

_STATIC = Path(__file__).parent / "static"


class RunView(anywidget.AnyWidget):
    """A live view of one run: transcript, status and answerable interrupt cards.

    You rarely build one yourself: a run shown as a cell's last expression (or passed to
    `display`) becomes one. All views of a run share one `RunView`::

        run = agent.start("Refund order 42")
        run            # the live view; clicking Approve calls run.resume(True)
    """

    # The bundle travels once per kernel in `_front_end`, not in every view (`_bundle`).
    _esm = LOADER
    _front_end = traitlets.Instance(FrontEnd).tag(sync=True, **ipywidgets.widget_serialization)

    run_id = traitlets.Unicode("").tag(sync=True)
    meta = traitlets.Dict().tag(sync=True)
    status = traitlets.Unicode("idle").tag(sync=True)
    error = traitlets.Any(None).tag(sync=True)
    started_at = traitlets.Float(allow_none=True, default_value=None).tag(sync=True)
    items: traitlets.List[Any] = traitlets.List().tag(sync=True)
    pending: traitlets.List[Any] = traitlets.List().tag(sync=True)
    forks: traitlets.List[Any] = traitlets.List().tag(sync=True)
    fork_view = traitlets.Any(None).tag(sync=True, **ipywidgets.widget_serialization)
    """The view of the fork shown in place below this one (None: none is)."""
    editable: traitlets.List[Any] = traitlets.List().tag(sync=True)
    """The positions of the items a person can edit now (`AgentRun.editable_items`: a
    fork made at a model turn, before it asks the model again)."""
    edited: traitlets.List[Any] = traitlets.List().tag(sync=True)
    """The positions of the items a person edited in this fork (`ForkOrigin.edited`)."""
    load_line = traitlets.Unicode("").tag(sync=True)
    """For a stored run, the line that rebuilds it after a restart; empty otherwise."""

    def __init__(self, run: ViewedRun) -> None:
        prompt = run.prompt
        remote = served_from(run)
        self._run = run
        self._foreign: list[dict[str, Any]] = []
        self._open_fork: str | None = None  # the fork shown in place below (`fork_view`)
        self._sync: ItemSync | None = None  # traits set before it exists go out at once
        status, error = status_of(run)
        super().__init__(
            status=status,
            error=error,
            pending=self.cards(),
            run_id=prompt.run_id,
            meta={
                "schema_version": prompt.schema_version,
                "thread_id": prompt.thread_id,
                "run_id": prompt.run_id,
                "instructions": prompt.instructions,
                **({"remote": remote} if remote is not None else {}),
                **({"hosted": hosted} if (hosted := hosted_by(run)) is not None else {}),
            },
            items=[item_json(item, i) for i, item in enumerate(prompt.items)],
            forks=[{**f, "open": False} for f in forks_of(run)],
            editable=run.editable_items,
            edited=edited_items(run),
            load_line=load_line(run),
            _front_end=shared_front_end(_STATIC),
        )
        self._sync = ItemSync(self, run)
        self._home_loop = current_loop()
        self._off = run.on("*", self._on_event)
        self._forks = ForkFollower(run, self._show_forks)
        self._forks.refresh()
        requests = RequestPath(self.send, VIEW_REQUESTS, view_handlers(self), limit=view_limit(run))
        self.on_msg(requests)
        CELL_END.track(self)

    @property
    def run(self) -> ViewedRun:
        return self._run

    @property
    def home_loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop the view was made on: answers go there when the run has none yet."""
        return self._home_loop

    def show_interrupt(self, interrupt: Mapping[str, Any] | BaseModel) -> ClassifiedInterrupt:
        """Show an interrupt from another producer (any AG-UI `Interrupt`) beside this
        run's own. It is read-only here: this view can answer only its own run's pauses.
        """
        classified = classify(interrupt)
        self._foreign = [c for c in self._foreign if c["id"] != classified.id]
        self._foreign.append(foreign_card(classified, self._run.id))
        self.pending = self.cards()
        return classified

    def show_interrupts(
        self, interrupts: Iterable[Mapping[str, Any] | BaseModel], *, how: str | None = None
    ) -> list[ClassifiedInterrupt]:
        """Show these interrupts from another producer in place of those shown before
        (a remote run's open interrupts that this view cannot answer); `how` tells the
        reader how to answer them instead."""
        classified = [classify(i) for i in interrupts]
        self._foreign = [foreign_card(c, self._run.id, how) for c in classified]
        cards = self.cards()
        if cards != self.pending:
            self.pending = cards
        return classified

    def full_cards(self) -> list[dict[str, Any]]:
        """Every card, whole, each with a `key` unique in this view: the run's own by
        their interrupt id, another producer's namespaced (its id may repeat one of ours)."""
        return with_unique_keys([*own_cards(self._run), *self._foreign])

    def cards(self) -> list[dict[str, Any]]:
        """The cards as the front end gets them: large values as previews."""
        return [bounded_card(c, ref_of("card", c["key"])) for c in self.full_cards()]

    def full_value(self, ref: str) -> Any:
        """The whole value behind a preview's reference (what "Show all" shows)."""
        return view_value(self, ref)

    def refresh_forks(self) -> None:
        """Follow forks made since the last call (from code or the view) and list them."""
        self._forks.refresh()

    def show_fork(self, run_id: str | None) -> None:
        """Show the fork `run_id` in place below this view, as its own live view (None:
        show none). Its view is made on this view's loop, where its answers then go."""
        if run_id is None:
            self._open_fork = None
            self.fork_view = None
            self._forks.refresh()
            return
        fork = next((f for f in self._run.forks if f.id == run_id), None)
        if fork is None:
            known = [f.id for f in self._run.forks]
            raise UsageError(
                f"Run {self._run.id} has no fork {run_id!r} in this kernel; its forks: "
                f"{known or 'none'}."
            )

        def show() -> None:
            self._open_fork = fork.id
            self.fork_view = cast(RunView, fork.view)
            self._forks.refresh()

        loop = running_loop(self._run.loop, self._home_loop)
        if loop is None or loop is current_loop():
            show()
        else:
            loop.call_soon_threadsafe(show)

    def _show_forks(self, forks: list[dict[str, Any]]) -> None:
        forks = [{**f, "open": f["runId"] == self._open_fork} for f in forks]
        if forks != self.forks:
            self.forks = forks

    def follow(self) -> None:
        """A front end applies this view's transcript messages as they come: the end of a
        cell need not send the whole transcript again."""
        if self._sync is not None:
            self._sync.follow()

    def send_state(self, key: str | Sequence[str] | None = None) -> None:
        """As the widget's, noting when the whole transcript went (a page that asked for
        the state has it)."""
        super().send_state(key)
        whole = key is None or key == "items" or (not isinstance(key, str) and "items" in key)
        sync = getattr(self, "_sync", None)  # None while the widget is being made
        if whole and sync is not None:
            sync.sent_whole()

    def paced_values(self) -> tuple[Any, ...]:
        """The traits that travel with transcript flushes, as they are now."""
        return (self.error, self.pending, self.started_at, self.status)

    def close(self) -> None:
        self._off()
        self._forks.close()
        if self._sync is not None:
            self._sync.cancel()
        super().close()

    def _should_send_property(self, key: str, value: Any) -> bool:
        if self._sync is not None and self._sync.holds(key):
            return False
        return bool(super()._should_send_property(key, value))

    def _on_event(self, event: Event) -> None:
        sync = self._sync
        assert sync is not None
        sync.pacing = True
        try:
            text_only = sync.note(event)
            stopped = not text_only and show_event(self, event)
        finally:
            sync.pacing = False
        if stopped:
            sync.now()
        else:
            sync.poke(text_only)

    def sync_at_cell_end(self) -> None:
        """Send the whole transcript once if it changed since the last time, and the small
        traits again if they changed since the last cell ended."""
        if self.comm is None or self._sync is None:
            return
        self._forks.refresh()  # forked from code in this cell
        self._sync.at_cell_end()
