"""The one request path of the views (js/src/kernel/protocol.ts): a request from a front end is
checked, served by the widget's handler for its type, and answered exactly once.

A front end sends `{type, requestId, ...}` and waits for the `response` with that id, so
a request that gets no reply hangs until the browser gives up. Here every message gets
one: a value, an acknowledgement, or an error with a `code` (`protocol.ErrorCode`). A
message is first bounded in size and depth, then validated against the widget's union of
request models (`protocol.ViewRequest`, `protocol.InboxRequest`): a handler gets the
checked model, and a message of another shape is refused as `bad-request` with the path
of its first problem ("interrupt: Field required"). A message without a usable
`requestId` is answered with `requestId: null`.

Handlers may run on any thread (ipykernel 7 handles widget messages on subshells). They
only read and validate; work for a run is handed to the run's own loop once
(`asyncio.run_coroutine_threadsafe`) and replied to when the answer is recorded.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..actions import Rejection
from ..errors import PausepointError
from ..transcript import AnsweredBy
from ._preview import is_preview
from ._responses import failure, failure_of, success
from ._viewed import ViewedRun
from .protocol import MAX_REQUEST_ID, ErrorCode, Reject, Resume

__all__ = [
    "ANSWERS",
    "ANSWER_ENVELOPE",
    "MAX_DEPTH",
    "MAX_REQUEST_BYTES",
    "Deferred",
    "HandOver",
    "Handler",
    "RequestPath",
    "RequestRefused",
    "Served",
    "answer_start",
    "running_loop",
]

logger = logging.getLogger("pausepoint")

MAX_REQUEST_BYTES = 64 * 1024
"""The largest request that is not an answer (a value reference, a fork, a refresh)."""
ANSWER_ENVELOPE = 4 * 1024
"""Room for an answer's request id, type and interrupt id beside the answer itself."""
MAX_DEPTH = 128
"""The deepest request served. Above the deepest answer a run accepts (100 levels), so an
answer just past that gets the run's own error with its path; below what recursive code
(previews, schema checks) can walk on any thread's stack."""
ANSWERS = frozenset({"resume", "reject"})
"""The request types that carry a person's answer (limited by the agent's answer size)."""

OnRecorded = Callable[[], object]
StartAnswer = Callable[[OnRecorded], Coroutine[Any, Any, Any]]


class RequestRefused(PausepointError):
    """A request this widget cannot serve: why, and the code of its error reply."""

    def __init__(self, code: ErrorCode, message: str, *, name: str = "BadRequest") -> None:
        self.code = code
        self.name = name
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Served:
    """Answered at once; `value` travels with the reply (`...`: none)."""

    value: Any = ...


@dataclass(frozen=True, slots=True)
class HandOver:
    """Work for a run's loop: `start(on_recorded)` makes the coroutine, whose reply goes
    out once `on_recorded` is called (or the coroutine ends); `stopped` runs on that loop
    when the coroutine has ended, however it ended."""

    loop: asyncio.AbstractEventLoop | None
    start: StartAnswer
    stopped: Callable[[], None] | None = None


@dataclass(frozen=True, slots=True)
class Deferred:
    """Answered when `future` completes (it may complete on any thread)."""

    future: Future[Any]


Outcome = Served | HandOver | Deferred
Handler = Callable[[Any], Outcome]
"""Serves one type of request: called with its checked model (of `protocol`)."""


def running_loop(*loops: asyncio.AbstractEventLoop | None) -> asyncio.AbstractEventLoop | None:
    """The first of `loops` that is running: where handed-over work can go."""
    for loop in loops:
        if loop is not None and not loop.is_closed() and loop.is_running():
            return loop
    return None


def answer_start(run: ViewedRun, request: Resume | Reject, by: AnsweredBy) -> StartAnswer:
    """The start of a `resume` or `reject` request's answer to `run`, checked: a resume
    holds no preview. `by` is who answers (the view, the inbox), recorded with the
    answer."""
    interrupt = request.interrupt
    if isinstance(request, Resume):
        data = request.data
        if is_preview(data):
            raise RequestRefused(
                "invalid-answer",
                "The answer holds a preview of a large value, not the value itself. Show the "
                "whole value first, or answer from code with `await run.resume(...)`.",
                name="InvalidResolutionError",
            )
        return lambda recorded: run.resume(data, interrupt=interrupt, on_recorded=recorded, by=by)
    reason = request.reason
    # A blank reason is no reason: the model then sees the default rejection message.
    rejection = Rejection(message=reason) if reason is not None and reason.strip() else None
    return lambda recorded: run.reject(rejection, interrupt=interrupt, on_recorded=recorded, by=by)


class _Reply:
    """The one reply of one request: whichever of its senders comes first sends it."""

    __slots__ = ("_lock", "_send", "_sent", "request_id")

    def __init__(self, send: Callable[[dict[str, Any]], None], request_id: str | None) -> None:
        self._send = send
        self._lock = threading.Lock()
        self._sent = False
        self.request_id = request_id

    def __call__(self, message: dict[str, Any]) -> None:
        with self._lock:
            if self._sent:
                return
            self._sent = True
        self._send(message)

    def ok(self, value: Any = ...) -> None:
        self(success(self.request_id, value))

    def refuse(self, exc: BaseException) -> None:
        if isinstance(exc, RequestRefused):
            self(failure(self.request_id, exc.name, str(exc), code=exc.code))
            return
        if not isinstance(exc, PausepointError):
            logger.error("pausepoint view: a request failed", exc_info=exc)
        self(failure_of(self.request_id, exc))


class RequestPath:
    """A widget's requests: `requests` validates a message into its model (a union of
    `protocol`), `handlers` serve each type of it; `limit(type)` is the largest request of
    that type in bytes. Use it as the widget's `on_msg` callback."""

    def __init__(
        self,
        send: Callable[[dict[str, Any]], None],
        requests: TypeAdapter[Any],
        handlers: Mapping[str, Handler],
        *,
        limit: Callable[[str], int] = lambda _: MAX_REQUEST_BYTES,
    ) -> None:
        self._send = send
        self._requests = requests
        self._handlers = dict(handlers)
        self._limit = limit
        self._lock = threading.Lock()
        self._running: set[Future[None]] = set()
        self._tasks: set[asyncio.Future[Any]] = set()

    def __call__(self, _widget: Any, content: Any, _buffers: Any = None) -> None:
        """Serve one message from the front end. Never raises; replies exactly once."""
        request_id = _request_id(content)
        reply = _Reply(self._send, request_id)
        try:
            request = self._check(content)
            outcome = self._handlers[request.type](request)
            self._finish(reply, outcome)
        except Exception as exc:
            reply.refuse(exc)

    def _check(self, content: Any) -> Any:
        """The model of `content`, bounded first: validation never walks a value too large
        or too deep to serve."""
        kind = content.get("type") if isinstance(content, dict) else None
        served = kind if isinstance(kind, str) and kind in self._handlers else None
        limit = MAX_REQUEST_BYTES if served is None else self._limit(served)
        refused = _too_big(content, limit, answer=served in ANSWERS)
        if refused is not None:
            raise refused
        try:
            return self._requests.validate_python(content)
        except ValidationError as exc:
            raise RequestRefused("bad-request", refusal_of(exc, self._handlers)) from None

    def _finish(self, reply: _Reply, outcome: Outcome) -> None:
        if isinstance(outcome, Served):
            reply.ok(outcome.value)
        elif isinstance(outcome, Deferred):
            outcome.future.add_done_callback(lambda done: _settle(reply, done))
        else:
            self._hand_over(reply, outcome)

    def _hand_over(self, reply: _Reply, work: HandOver) -> None:
        loop = work.loop
        if loop is None:
            raise RequestRefused(
                "no-loop",
                "The kernel has no running event loop for this run. Answer from code with "
                "`await run.resume(...)`, or run the cell that shows the run again.",
                name="NoEventLoop",
            )
        stopped: Future[None] = Future()
        with self._lock:
            self._running.add(stopped)
        stopped.add_done_callback(self._forget)
        try:
            handed = asyncio.run_coroutine_threadsafe(self._answer(reply, work, stopped), loop)
        except RuntimeError:  # the loop closed after it was picked
            stopped.set_result(None)
            raise RequestRefused(
                "no-loop", "The run's event loop has closed.", name="NoEventLoop"
            ) from None
        # The coroutine may never run (its loop stopped first) or fail outside the reply.
        handed.add_done_callback(lambda done: _after_hand_over(reply, stopped, done))

    async def _answer(self, reply: _Reply, work: HandOver, stopped: Future[None]) -> None:
        """On the run's loop: reply once the answer is recorded, or with why it was not."""
        accepted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def recorded() -> None:
            if not accepted.done():
                accepted.set_result(None)

        task: asyncio.Future[Any] = asyncio.ensure_future(work.start(recorded))
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._ended(done, work, stopped))
        await asyncio.wait({task, accepted}, return_when=asyncio.FIRST_COMPLETED)
        if accepted.done():
            reply.ok()
        elif task.cancelled():
            reply(
                failure(
                    reply.request_id,
                    "CancelledError",
                    "The answer was cancelled before it was recorded; answer again.",
                    code="cancelled",
                )
            )
        elif (exc := task.exception()) is not None:
            reply.refuse(exc)
        else:
            reply.ok()

    def _ended(self, task: asyncio.Future[Any], work: HandOver, stopped: Future[None]) -> None:
        self._tasks.discard(task)
        exc = None if task.cancelled() else task.exception()
        if exc is not None and not isinstance(exc, PausepointError):
            logger.error("pausepoint view: the run raised after an answer", exc_info=exc)
        try:
            if work.stopped is not None:
                work.stopped()
        except Exception:
            logger.exception("pausepoint view: updating the view after an answer failed")
        finally:
            if not stopped.done():
                stopped.set_result(None)

    def _forget(self, stopped: Future[None]) -> None:
        with self._lock:
            self._running.discard(stopped)

    async def settled(self) -> None:
        """Wait until every answer handed over from here (up to now, and any that arrive
        while waiting) has stopped executing: its run paused again, finished, failed or
        was cancelled, and the widget was updated."""
        while True:
            with self._lock:
                running = list(self._running)
            if not running:
                return
            await asyncio.gather(*(asyncio.wrap_future(f) for f in running))


def refusal_of(exc: ValidationError, served: Iterable[str]) -> str:
    """What a refused shape says: the path of its first problem and what is wrong there,
    never the whole of what was sent. Of a union's problems (each of its members refused
    the value), the one that got furthest into the value says most."""
    problem = max(exc.errors(include_url=False), key=lambda error: len(error["loc"]))
    kind = problem["type"]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return f"type: unknown request type; this view serves {', '.join(sorted(served))}."
    if kind == "model_attributes_type" and not problem["loc"]:
        return "A request is a JSON object {type, requestId, ...}."
    if kind == "value_error":
        return _cut(str(problem["ctx"]["error"]))
    # The first key is the request's type; union members' labels name no place in it.
    path = ".".join(_cut(str(key), 40) for key in problem["loc"][1:] if not _label(key))
    return f"{path}: {problem['msg']}" if path else str(problem["msg"])


def _label(key: int | str) -> bool:
    """Whether a key of an error's location is a union member's label (`JumpCall`,
    `literal['first-pause','last-failure']`), not a key of the request: the protocol's
    keys are lower camel case."""
    return isinstance(key, str) and (key[:1].isupper() or "[" in key)


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _request_id(content: Any) -> str | None:
    if not isinstance(content, dict):
        return None
    request_id = content.get("requestId")
    if isinstance(request_id, str) and len(request_id) <= MAX_REQUEST_ID:
        return request_id
    return None


def _settle(reply: _Reply, done: Future[Any]) -> None:
    if done.cancelled():
        reply(failure(reply.request_id, "CancelledError", "The request was cancelled."))
    elif (exc := done.exception()) is not None:
        reply.refuse(exc)
    else:
        reply.ok()


def _after_hand_over(reply: _Reply, stopped: Future[None], done: Future[None]) -> None:
    """Reply if the handed-over coroutine ended without replying: its loop stopped before
    running it, or it failed outside the reply path (a bug)."""
    if done.cancelled():
        reply(
            failure(
                reply.request_id,
                "NoEventLoop",
                "The run's event loop stopped before it could take the answer; answer again.",
                code="no-loop",
            )
        )
    elif (exc := done.exception()) is not None:
        reply.refuse(exc)
    else:
        return
    if not stopped.done():
        stopped.set_result(None)


def _too_big(content: Any, limit: int, *, answer: bool) -> RequestRefused | None:
    """Why `content` is too large or too deep to serve, without recursion and stopping as
    soon as it knows: strings count their UTF-8 bytes, other values a few bytes each."""
    size = 0
    stack: list[tuple[Any, int]] = [(content, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            size += len(value) if len(value) > limit or value.isascii() else _utf8(value)
        elif isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                return RequestRefused(
                    "too-deep",
                    f"The request is nested more than {MAX_DEPTH} levels deep; send a flatter "
                    "value.",
                )
            size += 2 + len(value)
            if size <= limit:
                children: Iterable[Any] = value.values() if isinstance(value, dict) else value
                stack.extend((child, depth + 1) for child in children)
                if isinstance(value, dict):
                    size += sum(len(str(key)) + 3 for key in value)
        else:
            size += 8
        if size > limit:
            return RequestRefused(
                "too-large",
                f"The request is larger than the {limit:,} bytes this view accepts. Send a "
                "smaller answer, or answer from code (e.g. `await run.resume(...)`).",
                name="AnswerTooLargeError" if answer else "BadRequest",
            )
    return None


def _utf8(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
