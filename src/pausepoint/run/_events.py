"""Typed run events and the registry that delivers them to handlers."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias

from ..errors import UsageError
from ..transcript import (
    AssistantMessage,
    Cancellation,
    ErrorInfo,
    InterruptEntry,
    Resolution,
    ToolCall,
    UserMessage,
)

if TYPE_CHECKING:
    from ._result import AgentRunResult

__all__ = [
    "CancelledEvent",
    "CompletedEvent",
    "Event",
    "EventHandler",
    "EventName",
    "Events",
    "FailedEvent",
    "InterruptedEvent",
    "ItemEditedEvent",
    "MessageEvent",
    "ResolvedEvent",
    "RunFinishedEvent",
    "RunStartedEvent",
    "SetAsideEvent",
    "TextDeltaEvent",
    "ToolCallFinishedEvent",
    "ToolCallStartedEvent",
]

logger = logging.getLogger("pausepoint")

EventName = Literal[
    "run_started",
    "text_delta",
    "message",
    "tool_call_started",
    "tool_call_finished",
    "interrupted",
    "resolved",
    "set_aside",
    "item_edited",
    "completed",
    "failed",
    "cancelled",
    "run_finished",
    "*",
]


@dataclass(frozen=True, slots=True)
class RunStartedEvent:
    name: ClassVar[str] = "run_started"
    run_id: str


@dataclass(frozen=True, slots=True)
class TextDeltaEvent:
    name: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True, slots=True)
class MessageEvent:
    name: ClassVar[str] = "message"
    message: AssistantMessage


@dataclass(frozen=True, slots=True)
class ToolCallStartedEvent:
    name: ClassVar[str] = "tool_call_started"
    tool_call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolCallFinishedEvent:
    name: ClassVar[str] = "tool_call_finished"
    tool_call: ToolCall


@dataclass(frozen=True, slots=True)
class InterruptedEvent:
    name: ClassVar[str] = "interrupted"
    tool_call: ToolCall
    interrupt: InterruptEntry

    @property
    def message(self) -> str:
        return self.interrupt.message

    @property
    def data(self) -> Any:
        return self.interrupt.data


@dataclass(frozen=True, slots=True)
class ResolvedEvent:
    name: ClassVar[str] = "resolved"
    tool_call: ToolCall
    interrupt: InterruptEntry
    resolution: Resolution


@dataclass(frozen=True, slots=True)
class SetAsideEvent:
    """Retry set the turn of `message` (at `position` in the transcript) aside; the model
    is asked again next."""

    name: ClassVar[str] = "set_aside"
    message: AssistantMessage
    position: int


@dataclass(frozen=True, slots=True)
class ItemEditedEvent:
    """`AgentRun.edit_item` changed `item`, at `position` in the transcript, of a fork
    made at a model turn, before the model is asked again."""

    name: ClassVar[str] = "item_edited"
    item: UserMessage | ToolCall
    position: int


@dataclass(frozen=True, slots=True)
class CompletedEvent:
    name: ClassVar[str] = "completed"
    result: AgentRunResult


@dataclass(frozen=True, slots=True)
class FailedEvent:
    name: ClassVar[str] = "failed"
    error: ErrorInfo
    exception: BaseException | None


@dataclass(frozen=True, slots=True)
class CancelledEvent:
    """The run was stopped: by `cancel()` (`by="user"`), or its task was cancelled or
    the kernel interrupted (`by="interrupt"`). `run_finished` follows."""

    name: ClassVar[str] = "cancelled"
    cancellation: Cancellation
    result: AgentRunResult


@dataclass(frozen=True, slots=True)
class RunFinishedEvent:
    """Fires whenever a stretch of the run ends, whatever the status (completed,
    interrupted, failed, cancelled), with the result `run.result` now holds."""

    name: ClassVar[str] = "run_finished"
    result: AgentRunResult


Event: TypeAlias = (
    RunStartedEvent
    | TextDeltaEvent
    | MessageEvent
    | ToolCallStartedEvent
    | ToolCallFinishedEvent
    | InterruptedEvent
    | ResolvedEvent
    | SetAsideEvent
    | ItemEditedEvent
    | CompletedEvent
    | FailedEvent
    | CancelledEvent
    | RunFinishedEvent
)
EventHandler: TypeAlias = Callable[[Any], Awaitable[None] | None]

_NAMES = frozenset(EventName.__args__)  # type: ignore[attr-defined]


class Events:
    """Handlers by event name; `"*"` receives every event."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[EventHandler]] = {}

    def on(self, name: EventName, handler: EventHandler) -> Callable[[], None]:
        if name not in _NAMES:
            raise UsageError(f"Unknown event {name!r}; choose one of {', '.join(sorted(_NAMES))}.")
        handlers = self._handlers.setdefault(name, [])
        handlers.append(handler)

        def off() -> None:
            if handler in handlers:
                handlers.remove(handler)

        return off

    def heard(self, name: str) -> bool:
        """Whether an event called `name` has a handler: the loop builds the events of
        each step only when someone listens."""
        handlers = self._handlers
        return bool(handlers.get(name) or handlers.get("*"))

    def _listeners(self, name: str) -> list[EventHandler]:
        """The handlers of event `name`, then those of every event; a copy, since a handler
        may unsubscribe itself (or another) while the event is delivered."""
        named = self._handlers.get(name)
        every = self._handlers.get("*")
        return named + every if named and every else list(named or every or ())

    def emit_now(self, event: Event) -> None:
        """Deliver `event` from code that cannot wait (an edit between stretches): a
        coroutine handler runs as a task of the running loop, or is dropped with a warning
        when none runs."""
        for handler in self._listeners(event.name):
            try:
                outcome = handler(event)
                if outcome is not None and inspect.isawaitable(outcome):
                    _schedule(outcome, event.name)
            except Exception as exc:
                _log_failure(event.name, exc)

    async def emit(self, event: Event) -> None:
        for handler in self._listeners(event.name):
            try:
                outcome = handler(event)
                if outcome is not None and inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:
                _log_failure(event.name, exc)


def _log_failure(name: str, exc: Exception) -> None:
    """One line by default; the traceback when debugging (logging level DEBUG)."""
    logger.error(
        "A %r event handler raised %s: %s; the run goes on.",
        name,
        type(exc).__name__,
        exc,
        exc_info=logger.isEnabledFor(logging.DEBUG),
    )


_SCHEDULED: set[asyncio.Future[None]] = set()
"""Handlers `emit_now` started, kept until they end."""


def _schedule(outcome: Awaitable[None], name: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        if inspect.iscoroutine(outcome):
            outcome.close()
        logger.warning("A coroutine handler of %r was not run: no event loop is running.", name)
        return
    task = asyncio.ensure_future(outcome)
    _SCHEDULED.add(task)
    task.add_done_callback(_SCHEDULED.discard)
