"""The run view's requests (js/src/kernel/protocol.ts): answers, Stop, stepping, whole values
behind previews, the debugging requests, and a front end's word that it follows the
transcript's messages; served through the one `RequestPath`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import UsageError
from ._debug_view import answer_debug_request, branches
from ._find import find_handler
from ._preview import bounded, bounded_item, index_of, is_preview, ref_of, resolve
from ._requests import (
    ANSWER_ENVELOPE,
    ANSWERS,
    MAX_REQUEST_BYTES,
    Deferred,
    Handler,
    HandOver,
    Request,
    RequestRefused,
    Served,
    answer_start,
    running_loop,
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

    def answer(request: Request) -> HandOver:
        return HandOver(loop(), answer_start(view.run, request, "view"))

    def go_on(request: Request) -> HandOver:
        action = request.content.get("action")
        if action not in ("step", "continue"):
            raise RequestRefused("bad-request", "Expected {type: debug, action: step|continue}.")
        debug = view.run.debug
        return HandOver(loop(), lambda recorded: debug.go_on(action, on_recorded=recorded))

    def say(request: Request) -> HandOver:
        # The message box: the next user message of a run that waits on nobody, or
        # (without text) Continue after a stop or a failure.
        text = request.optional_text("text", "{type: say, text: <message> or null}")
        if text is not None and not text.strip():
            raise RequestRefused("bad-request", "The message is empty; write something first.")
        run = view.run
        return HandOver(loop(), lambda recorded: run.run(text, on_recorded=recorded))

    def retry(_: Request) -> HandOver:
        # Retry after a stop or a failure: ask the model again without the turn that ended it.
        run = view.run
        return HandOver(loop(), lambda recorded: run.retry(on_recorded=recorded, by="view"))

    def cancel(_: Request) -> Deferred:
        return Deferred(view.run.cancel_threadsafe("Stopped from the view."))

    def value(request: Request) -> Served:
        return Served(view_value(view, request.text("ref", "{type: value, ref: <str>}")))

    def debug(request: Request) -> Served:
        served = _debug_value(view.run, request)
        if request.type == "fork":
            view.refresh_forks()
            if request.content.get("open") is True:  # Go back here: the fork opens in place
                view.show_fork(served["runId"])
        return Served(served)

    def edit_item(request: Request) -> HandOver:
        # An item of a fork made at a model turn, before the model is asked again.
        shape = "{type: edit_item, position: <int>, text: <str>} or {..., result: <JSON>}"
        content = request.content
        position = content.get("position")
        if isinstance(position, bool) or not isinstance(position, int):
            raise RequestRefused("bad-request", f"Expected {shape}.")
        if ("text" in content) == ("result" in content):
            raise RequestRefused("bad-request", f"Expected {shape}: one of text or result.")
        if "text" in content:
            changes: dict[str, Any] = {"text": request.text("text", shape)}
        elif is_preview(content["result"]):
            raise RequestRefused(
                "bad-request",
                "The result holds a preview of a large value, not the value itself. Show the "
                "whole value first, or edit it from code with `fork.edit_item(...)`.",
            )
        else:
            changes = {"result": content["result"]}
        run = view.run

        async def start(recorded: Callable[[], object]) -> None:
            run.edit_item(position, **changes)
            recorded()

        return HandOver(loop(), start)

    def show_fork(request: Request) -> Served:
        view.show_fork(request.optional_text("fork", "{type: show_fork, fork: <run id> or null}"))
        return Served()

    def follow(_: Request) -> Served:
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
            return answer_debug_request(run, {"type": "model_request", "turn": position})
        raise UsageError(f"The view has no value at {kind}/{name[:200]} any more.")

    try:
        return resolve(ref, root)
    except UsageError as exc:
        raise RequestRefused("not-found", str(exc), name="UsageError") from None


def _debug_value(run: ViewedRun, request: Request) -> Any:
    """A debugging request's value, with large values as previews."""
    value = answer_debug_request(run, dict(request.content))
    if request.type == "model_request":
        ref = ref_of("request", str(value["turn"]))
        value = {
            **value,
            "items": [
                bounded_item(item, f"{ref}/items/{i}") for i, item in enumerate(value["items"])
            ],
        }
        value["instructions"] = bounded(value["instructions"], f"{ref}/instructions")
    elif request.type == "branches":
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
