"""`RunView`: the live view of an `AgentRun` in a notebook.

The durable state (status, transcript items, pending cards) lives in traits, so a view
opened later, or a saved notebook, shows the run as it is. While the run moves, changes
travel as small custom messages (js/README.md); the `items` trait is kept current in the
kernel without resending it. At the end of each notebook cell, what changed since the
last one (the transcript whole, status, cards) is synced once more, for clients that keep
only the running cell's messages (nbclient).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import anywidget
import traitlets
from pydantic import BaseModel

from ..actions import Rejection
from ..errors import PausepointError, UsageError
from ..interrupts import ClassifiedInterrupt, classify
from ..run import (
    AgentRun,
    Event,
    InterruptedEvent,
    MessageEvent,
    OnRecorded,
    ResolvedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from ..transcript import Item, ToolCall
from ._bundle import front_end
from ._cards import card_for, foreign_card, with_unique_keys
from ._debug_view import DEBUG_REQUESTS, ForkFollower, answer_debug_request, branches, forks_of
from ._loops import current_loop, log_failure
from ._preview import (
    PREVIEW_LIMIT,
    bounded,
    bounded_card,
    bounded_item,
    is_preview,
    ref_of,
    resolve,
)
from ._responses import failure, failure_of
from ._status import status_of
from ._throttle import Throttle

__all__ = ["RunView"]

logger = logging.getLogger("pausepoint")

_STATIC = Path(__file__).parent / "static"
UPDATE_INTERVAL = 1 / 30
"""Transcript changes and streaming text each reach the front end at most this often (s)."""
_PACED = frozenset({"status", "error", "pending", "started_at"})
"""Traits whose changes travel with the next transcript flush while a run moves: a run
answered from code flips status and cards many times a second, and the front end needs
only the latest (the Python side's values are current at once)."""


class RunView(anywidget.AnyWidget):
    """A live view of one run: transcript, status and answerable interrupt cards.

    You rarely build one yourself: a run shown as a cell's last expression (or passed to
    `display`) becomes one. All views of a run share one `RunView`::

        run = agent.start("Refund order 42")
        run            # the live view; clicking Approve calls run.resume(True)
    """

    _esm, _css = front_end(_STATIC)

    run_id = traitlets.Unicode("").tag(sync=True)
    meta = traitlets.Dict().tag(sync=True)
    status = traitlets.Unicode("idle").tag(sync=True)
    error = traitlets.Any(None).tag(sync=True)
    started_at = traitlets.Float(allow_none=True, default_value=None).tag(sync=True)
    items: traitlets.List[Any] = traitlets.List().tag(sync=True)
    pending: traitlets.List[Any] = traitlets.List().tag(sync=True)
    forks: traitlets.List[Any] = traitlets.List().tag(sync=True)

    def __init__(self, run: AgentRun) -> None:
        prompt = run.prompt
        self._run = run
        self._foreign: list[dict[str, Any]] = []
        pending = self._all_cards()
        status, error = status_of(run)
        super().__init__(
            status=status,
            error=error,
            pending=pending,
            run_id=prompt.run_id,
            meta={
                "schema_version": prompt.schema_version,
                "thread_id": prompt.thread_id,
                "run_id": prompt.run_id,
                "instructions": prompt.instructions,
            },
            items=[_item_json(item, i) for i, item in enumerate(prompt.items)],
            forks=forks_of(run),
        )
        self._positions = {
            item.id: i for i, item in enumerate(prompt.items) if isinstance(item, ToolCall)
        }
        self._items_dirty = False
        # What the last cell end sent: a headless client (nbclient) keeps only the messages
        # of the cell that runs, so changes made by a background run reach its saved state
        # when a later cell ends.
        self._synced_at_cell_end: tuple[Any, ...] = (
            self.status,
            self.error,
            self.pending,
            self.started_at,
        )
        self._changed: set[int] = set()
        self._paced: set[str] = set()
        self._pacing = False
        self._items_throttle = Throttle(UPDATE_INTERVAL, self._flush_items)
        self._text: list[str] = []
        self._streamed = 0  # characters of this turn's text sent so far
        self._text_throttle = Throttle(UPDATE_INTERVAL, self._flush_text)
        self._tasks: set[asyncio.Future[Any]] = set()
        self._home_loop = current_loop()
        self._off = run.on("*", self._on_event)
        self._forks = ForkFollower(run, self._show_forks)
        self._forks.refresh()
        self.on_msg(self._on_msg)
        _DIRTY_FLUSH.track(self)

    @property
    def run(self) -> AgentRun:
        return self._run

    def show_interrupt(self, interrupt: Mapping[str, Any] | BaseModel) -> ClassifiedInterrupt:
        """Show an interrupt from another producer (any AG-UI `Interrupt`) beside this
        run's own. It is read-only here: this view can answer only its own run's pauses.
        """
        classified = classify(interrupt)
        self._foreign = [c for c in self._foreign if c["id"] != classified.id]
        self._foreign.append(foreign_card(classified, self._run.id))
        self.pending = self._all_cards()
        return classified

    def _full_cards(self) -> list[dict[str, Any]]:
        """Every card, whole, each with a `key` unique in this view: the run's own by
        their interrupt id, another producer's namespaced (its id may repeat one of ours)."""
        return with_unique_keys([*_cards(self._run), *self._foreign])

    def _all_cards(self) -> list[dict[str, Any]]:
        """The cards as the front end gets them: large values as previews."""
        return [bounded_card(c, ref_of("card", c["key"])) for c in self._full_cards()]

    def full_value(self, ref: str) -> Any:
        """The whole value behind a preview's reference (what "Show all" shows)."""
        return resolve(ref, self._value_root)

    def _value_root(self, kind: str, name: str) -> Any:
        if kind == "item" and name.isdigit() and int(name) < len(self._run.prompt.items):
            return self._run.prompt.items[int(name)].model_dump(mode="json")
        if kind == "card":
            for card in self._full_cards():
                if card["key"] == name:
                    return card
        if kind == "prompt":  # the whole transcript, for "Copy JSON"
            return self._run.prompt.model_dump(mode="json")
        if kind == "branches":
            return branches(self._run, name)
        if kind == "request" and name.isdigit():
            return answer_debug_request(self._run, {"type": "model_request", "turn": int(name)})
        raise UsageError(f"The view has no value at {kind}/{name} any more.")

    def _show_forks(self, forks: list[dict[str, Any]]) -> None:
        if forks != self.forks:
            self.forks = forks

    def close(self) -> None:
        self._off()
        self._forks.close()
        self._items_throttle.cancel()
        self._text_throttle.cancel()
        super().close()

    # -- run events -> front end -----------------------------------------------------

    def _should_send_property(self, key: str, value: Any) -> bool:
        if self._pacing and key in _PACED:
            self._paced.add(key)
            return False
        return bool(super()._should_send_property(key, value))

    def _on_event(self, event: Event) -> None:
        self._pacing = True
        try:
            self._apply_event(event)
        finally:
            self._pacing = False
        if self._paced or not isinstance(event, TextDeltaEvent):
            self._items_throttle.poke()

    def _apply_event(self, event: Event) -> None:
        if isinstance(event, TextDeltaEvent):
            if self._changed or len(self.items) != len(self._run.prompt.items):
                # Earlier items first: the front end clears streamed text when an
                # assistant message arrives.
                self._items_throttle.now()
            self._text.append(event.text)
            self._text_throttle.poke()
            return
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
        if isinstance(event, RunStartedEvent):
            with self.hold_sync():
                self.status, self.error, self.started_at = "running", None, time.time() * 1000
        elif isinstance(event, InterruptedEvent | ResolvedEvent):
            self.pending = self._all_cards()
        elif isinstance(event, RunFinishedEvent):
            self._text_throttle.now()
            result = event.result
            self.pending = self._all_cards()
            self.status = result.status
            self.error = result.error.model_dump() if result.error else None
            # A pause or the end goes out at once, with what was paced before it (a run
            # answered at once from code never sends the "running" in between).
            self._pacing = False
            self._items_throttle.now()

    def _flush_items(self) -> None:
        """Send what changed since the last flush: new items and changed tool calls, then
        the paced traits that changed."""
        self._send_items()
        if self._paced:
            keys = sorted(self._paced)
            self._paced.clear()
            self.send_state(keys)

    def _send_items(self) -> None:
        items = self._run.prompt.items
        mirror = self.items
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
            dumped = [_item_json(items[p], p) for p in range(run_start, previous + 1)]
            mirror[run_start : previous + 1] = dumped
            self.send({"type": "items", "start": run_start, "items": dumped})
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
        self.send({"type": "text", "delta": delta})

    def sync_at_cell_end(self) -> None:
        """Send the whole transcript once if it changed since the last time, and the small
        traits again if they changed since the last cell ended."""
        if self.comm is None:
            return
        self._forks.refresh()  # forked from code in this cell
        if self._items_dirty:
            self._items_dirty = False
            self.send_state("items")
        small = (self.status, self.error, self.pending, self.started_at)
        if small != self._synced_at_cell_end:
            self._synced_at_cell_end = small
            self.send_state(["status", "error", "pending", "started_at"])

    # -- front end requests -> run ---------------------------------------------------

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """Validate a request and hand it to the run's loop. May run on any thread."""
        if not isinstance(content, dict):
            return
        request_id = content.get("requestId")
        kind = content.get("type")
        interrupt = content.get("interrupt")
        if not isinstance(request_id, str):
            logger.warning("pausepoint view: ignored a message without requestId: %r", content)
            return
        if kind == "cancel":
            self._cancel(request_id)
            return
        if kind in DEBUG_REQUESTS:
            self._debug_request(request_id, content)
            return
        if kind == "value":
            self._value_request(request_id, content.get("ref"))
            return
        action = content.get("action")
        if kind == "debug" and action in ("step", "continue"):
            debug = self._run.debug
            self._hand_over(request_id, lambda recorded: debug.go_on(action, on_recorded=recorded))
            return
        if kind not in ("resume", "reject") or not isinstance(interrupt, str):
            self._respond_error(
                request_id, "BadRequest", "Expected {type: resume|reject, interrupt: <id>}."
            )
            return
        run = self._run
        start: Callable[[OnRecorded], Coroutine[Any, Any, Any]]
        if kind == "resume":
            data = content.get("data")
            if is_preview(data):
                self._respond_error(request_id, *_PREVIEW_ANSWER)
                return

            def start(recorded: OnRecorded) -> Coroutine[Any, Any, Any]:
                return run.resume(data, interrupt=interrupt, on_recorded=recorded)
        else:
            reason = content.get("reason")
            rejection = (
                Rejection(message=reason) if isinstance(reason, str) and reason.strip() else None
            )

            def start(recorded: OnRecorded) -> Coroutine[Any, Any, Any]:
                return run.reject(rejection, interrupt=interrupt, on_recorded=recorded)

        self._hand_over(request_id, start)

    def _hand_over(
        self, request_id: str, start: Callable[[OnRecorded], Coroutine[Any, Any, Any]]
    ) -> None:
        loop = self._target_loop()
        if loop is None:
            self._respond_error(
                request_id,
                "NoEventLoop",
                "The kernel has no running event loop for this run. Answer from code with "
                "`await run.resume(...)`, or run the cell that shows the run again.",
            )
            return
        future = asyncio.run_coroutine_threadsafe(self._answer(request_id, start), loop)
        future.add_done_callback(log_failure)

    def _target_loop(self) -> asyncio.AbstractEventLoop | None:
        for loop in (self._run.loop, self._home_loop):
            if loop is not None and not loop.is_closed() and loop.is_running():
                return loop
        return None

    def _cancel(self, request_id: str) -> None:
        """Stop: ask the run's loop to cancel the run; reply once it has stopped."""
        stopped = self._run.cancel_threadsafe("Stopped from the view.")

        def reply(_: Future[Any]) -> None:
            self.send({"type": "response", "requestId": request_id, "ok": True})

        stopped.add_done_callback(reply)

    async def _answer(
        self,
        request_id: str,
        start: Callable[[OnRecorded], Coroutine[Any, Any, Any]],
    ) -> None:
        """Runs on the run's loop: reply ok once the answer is recorded, or the error."""
        accepted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def recorded() -> None:
            if not accepted.done():
                accepted.set_result(None)

        task = asyncio.ensure_future(start(recorded))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_log_task_failure)
        await asyncio.wait({task, accepted}, return_when=asyncio.FIRST_COMPLETED)
        if accepted.done():
            self.send({"type": "response", "requestId": request_id, "ok": True})
            return
        exc = task.exception()
        if exc is None:
            self.send({"type": "response", "requestId": request_id, "ok": True})
        else:
            self._respond_exception(request_id, exc)

    def _respond_exception(self, request_id: str, exc: BaseException) -> None:
        self.send(failure_of(request_id, exc))

    def _value_request(self, request_id: str, ref: Any) -> None:
        if not isinstance(ref, str):
            self._respond_error(request_id, "BadRequest", "Expected {type: value, ref: <str>}.")
            return
        try:
            value = self.full_value(ref)
        except PausepointError as exc:
            self._respond_exception(request_id, exc)
            return
        self.send({"type": "response", "requestId": request_id, "ok": True, "value": value})

    def _debug_request(self, request_id: str, content: dict[str, Any]) -> None:
        try:
            value = answer_debug_request(self._run, content)
        except PausepointError as exc:
            self._respond_exception(request_id, exc)
            return
        if content.get("type") == "fork":
            self._forks.refresh()
        elif content.get("type") == "model_request":
            ref = ref_of("request", str(value["turn"]))
            value = {
                **value,
                "items": [
                    bounded_item(item, f"{ref}/items/{i}") for i, item in enumerate(value["items"])
                ],
            }
            value["instructions"] = bounded(value["instructions"], f"{ref}/instructions")
        elif content.get("type") == "branches":
            ref = ref_of("branches", value["fork"]["runId"])
            for side in ("parent", "fork"):
                value[side] = {
                    **value[side],
                    "answer": bounded(value[side]["answer"], f"{ref}/{side}/answer"),
                    "items": [
                        bounded_item(item, f"{ref}/{side}/items/{i}")
                        for i, item in enumerate(value[side]["items"])
                    ],
                }
        self.send({"type": "response", "requestId": request_id, "ok": True, "value": value})

    def _respond_error(
        self,
        request_id: str,
        name: str,
        message: str,
        problems: list[dict[str, str]] | None = None,
    ) -> None:
        self.send(failure(request_id, name, message, problems))


_PREVIEW_ANSWER = (
    "InvalidResolutionError",
    "The answer holds a preview of a large value, not the value itself. Show the whole "
    "value first, or answer from code with `await run.resume(...)`.",
)


def _item_json(item: Item, position: int) -> dict[str, Any]:
    """A transcript item as the front end gets it: large values as previews."""
    return bounded_item(item.model_dump(mode="json"), ref_of("item", str(position)))


def _cards(run: AgentRun) -> list[dict[str, Any]]:
    actions = run.agent.actions
    return [card_for(p, actions.get(p.tool_call.name)) for p in run.pending]


def _log_task_failure(task: asyncio.Future[Any]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None and not isinstance(exc, PausepointError):
        logger.error("pausepoint view: the run raised after an answer", exc_info=exc)


class _CellEndSync:
    """Syncs each live view's changed state once at the end of a notebook cell, so that
    state saved by a headless run (nbclient) holds the run's final state too."""

    def __init__(self) -> None:
        self._views: weakref.WeakSet[RunView] = weakref.WeakSet()
        self._hooked = False

    def track(self, view: RunView) -> None:
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


_DIRTY_FLUSH = _CellEndSync()
