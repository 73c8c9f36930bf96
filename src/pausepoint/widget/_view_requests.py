"""The run view's requests (js/src/kernel/protocol.ts): answers, Stop, stepping, whole values
behind previews, the debugging requests, and a front end's word that it follows the
transcript's messages; served through the one `RequestPath`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import UsageError
from ._debug_view import answer_debug_request, branches, model_request_value
from ._find import find_handler
from ._preview import bounded, bounded_item, index_of, is_preview, ref_of, resolve
from ._requests import (
    ANSWER_ENVELOPE,
    ANSWERS,
    MAX_REQUEST_BYTES,
    Deferred,
    Handler,
    HandOver,
    RequestRefused,
    Served,
    answer_start,
    running_loop,
)
from .protocol import (
    Branches,
    Cancel,
    Debug,
    EditItem,
    Follow,
    Fork,
    ModelRequest,
    Reject,
    Resume,
    Retry,
    Say,
    ShowFork,
    Value,
)

if TYPE_CHECKING:
    import asyncio

    from ._viewed import ViewedRun

__all__ = ["view_handlers", "view_limit", "view_value"]


class _View(Protocol):
    @property
    def run(self) -> ViewedRun: ...

    @property
    def home_loop(self) -> asyncio.AbstractEventLoop | None: ...

    def full_cards(self) -> list[dict[str, Any]]: ...

    def refresh_forks(self) -> None: ...

    def show_fork(self, run_id: str | None) -> None: ...

    def follow(self) -> None: ...


def view_handlers(view: _View) -> dict[str, Handler]:
    """The handler of each request type a run view serves."""

    def loop() -> asyncio.AbstractEventLoop | None:
        return running_loop(view.run.loop, view.home_loop)

    def answer(request: Resume | Reject) -> HandOver:
        return HandOver(loop(), answer_start(view.run, request, "view"))

    def go_on(request: Debug) -> HandOver:
        debug = view.run.debug
        return HandOver(loop(), lambda recorded: debug.go_on(request.action, on_recorded=recorded))

    def say(request: Say) -> HandOver:
        # The message box: the next user message of a run that waits on nobody, or
        # (without text) Continue after a stop or a failure.
        run = view.run
        return HandOver(loop(), lambda recorded: run.run(request.text, on_recorded=recorded))

    def retry(_: Retry) -> HandOver:
        # Retry after a stop or a failure: ask the model again without the turn that ended it.
        run = view.run
        return HandOver(loop(), lambda recorded: run.retry(on_recorded=recorded, by="view"))

    def cancel(_: Cancel) -> Deferred:
        return Deferred(view.run.cancel_threadsafe("Stopped from the view."))

    def value(request: Value) -> Served:
        return Served(view_value(view, request.ref))

    def debug(request: ModelRequest | Fork | Branches) -> Served:
        served = _debug_value(view.run, request)
        if isinstance(request, Fork):
            view.refresh_forks()
            if request.open:  # Go back here: the fork opens in place
                view.show_fork(served["runId"])
        return Served(served)

    def edit_item(request: EditItem) -> HandOver:
        # An item of a fork made at a model turn, before the model is asked again.
        if "text" in request.model_fields_set:
            changes: dict[str, Any] = {"text": request.text}
        elif is_preview(request.result):
            raise RequestRefused(
                "bad-request",
                "The result holds a preview of a large value, not the value itself. Show the "
                "whole value first, or edit it from code with `fork.edit_item(...)`.",
            )
        else:
            changes = {"result": request.result}
        run = view.run

        async def start(recorded: Callable[[], object]) -> None:
            run.edit_item(request.position, **changes)
            recorded()

        return HandOver(loop(), start)

    def show_fork(request: ShowFork) -> Served:
        view.show_fork(request.fork)
        return Served()

    def follow(_: Follow) -> Served:
        view.follow()
        return Served()

    return {
        "resume": answer,
        "reject": answer,
        "debug": go_on,
        "say": say,
        "retry": retry,
        "cancel": cancel,
        "value": value,
        "model_request": debug,
        "fork": debug,
        "branches": debug,
        "show_fork": show_fork,
        "edit_item": edit_item,
        "find": find_handler(view.run),
        "follow": follow,
    }


def view_limit(run: ViewedRun) -> Callable[[str], int]:
    """The largest request of each type: an answer may be as large as the agent accepts."""

    def limit(kind: str) -> int:
        if kind in ANSWERS:
            return run.agent.max_answer_bytes + ANSWER_ENVELOPE
        return MAX_REQUEST_BYTES

    return limit


def view_value(view: _View, ref: str) -> Any:
    """The whole value behind a preview's reference (what "Show all" shows)."""
    run = view.run

    def root(kind: str, name: str) -> Any:
        position = index_of(name)
        if kind == "item" and position is not None and position < len(run.prompt.items):
            return run.prompt.items[position].model_dump(mode="json")
        if kind == "card":
            for card in view.full_cards():
                if card["key"] == name:
                    return card
        if kind == "prompt":  # the whole transcript, for "Copy JSON"
            return run.prompt.model_dump(mode="json")
        if kind == "branches":
            return branches(run, name)
        if kind == "request" and position is not None:
            return model_request_value(run, position)
        raise UsageError(f"The view has no value at {kind}/{name[:200]} any more.")

    try:
        return resolve(ref, root)
    except UsageError as exc:
        raise RequestRefused("not-found", str(exc), name="UsageError") from None


def _debug_value(run: ViewedRun, request: ModelRequest | Fork | Branches) -> Any:
    """A debugging request's value, with large values as previews."""
    value = answer_debug_request(run, request)
    if isinstance(request, ModelRequest):
        ref = ref_of("request", str(value["turn"]))
        value = {
            **value,
            "items": [
                bounded_item(item, f"{ref}/items/{i}") for i, item in enumerate(value["items"])
            ],
        }
        value["instructions"] = bounded(value["instructions"], f"{ref}/instructions")
    elif isinstance(request, Branches):
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
    return value
