"""What a run view's traits hold: the run's status and error, and its cards, as the run's
events change them."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..run import (
    Event,
    InterruptedEvent,
    ItemEditedEvent,
    ResolvedEvent,
    RunFinishedEvent,
    RunStartedEvent,
)
from ._cards import card_for
from ._status import status_of

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ._viewed import ViewedRun

__all__ = ["edited_items", "hosted_by", "load_line", "own_cards", "served_from", "show_event"]


class _View(Protocol):
    @property
    def run(self) -> ViewedRun: ...

    status: str
    error: Any
    started_at: float | None
    pending: list[Any]
    editable: list[Any]
    edited: list[Any]

    def hold_sync(self) -> AbstractContextManager[Any]: ...

    def cards(self) -> list[dict[str, Any]]: ...


def served_from(run: ViewedRun) -> str | None:
    """The address of the AG-UI server a run is served from (a `RemoteRun`'s `url`); None
    for a run in this kernel."""
    url = getattr(run, "url", None)
    return url if isinstance(url, str) else None


def hosted_by(run: ViewedRun) -> str | None:
    """The framework a hosted run is executed by (a `HostedRun`'s `framework`); None for
    a run of this package or one followed over HTTP."""
    framework = getattr(run, "framework", None)
    return framework if isinstance(framework, str) else None


def load_line(run: ViewedRun) -> str:
    """For a stored run, the line that rebuilds it in a new kernel, live and answerable
    (`agent.load("run_…")`); empty for a run that lives only in this kernel's memory."""
    store = run.store
    if store is None:
        return ""
    run_id = json.dumps(run.id)
    if store is run.agent.store:
        return f"agent.load({run_id})"
    return f"agent.load({run_id}, store=store)"


def own_cards(run: ViewedRun) -> list[dict[str, Any]]:
    """The cards of the run's own pending interrupts, whole."""
    actions = run.agent.actions
    # A remote run says which of its pauses it read from another producer's shape.
    read_from: Callable[[str], str | None] = getattr(run, "read_from", lambda _: None)
    decisions: Callable[[str], tuple[str, ...] | None] = getattr(
        run, "decisions_for", lambda _: None
    )
    return [
        card_for(p, actions.get(p.tool_call.name), read_from(p.id), decisions(p.id))
        for p in run.pending
    ]


def edited_items(run: ViewedRun) -> list[int]:
    """The positions of the items a person edited in a fork made at a model turn."""
    origin = run.prompt.parent
    return sorted(origin.edited) if origin is not None else []


def show_event(view: _View, event: Event) -> bool:
    """Set the traits `event` changes; True when the run ended (completed, failed or
    cancelled) or a person edited an item, the moments to send everything at once. A
    stretch that ends at a pause is sent paced like any change: a run answered from code
    pauses hundreds of times a second, and the front end needs only the latest state
    (within one interval)."""
    if isinstance(event, RunStartedEvent):
        with view.hold_sync():
            view.status, view.error = status_of(view.run)
            view.started_at = time.time() * 1000
            if view.editable:
                view.editable = []
    elif isinstance(event, InterruptedEvent | ResolvedEvent):
        view.pending = view.cards()
    elif isinstance(event, ItemEditedEvent):
        # A person's edit between stretches: sent at once (no loop need be running).
        with view.hold_sync():
            view.editable = view.run.editable_items
            view.edited = edited_items(view.run)
        return True
    elif isinstance(event, RunFinishedEvent):
        view.pending = view.cards()
        view.status, view.error = status_of(view.run)  # settled before run_finished
        editable = view.run.editable_items
        if editable != view.editable:
            view.editable = editable
        return view.status not in ("interrupted", "paused")
    return False
