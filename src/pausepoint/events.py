"""What a run tells its listeners as it goes: one event class per moment.

Subscribe with `run.on(name, handler)`; each handler gets the event as it happens::

    from pausepoint.events import InterruptedEvent

    def ping(event: InterruptedEvent) -> None:
        print("waiting on", event.message)

    run.on("interrupted", ping)

Every stretch of a run ends with a `RunFinishedEvent`, whatever the status (completed,
interrupted, failed or cancelled), carrying the result `run.result` now holds.
"""

from .run import (
    CancelledEvent,
    CompletedEvent,
    Event,
    EventHandler,
    EventName,
    FailedEvent,
    InterruptedEvent,
    ItemEditedEvent,
    MessageEvent,
    ResolvedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    SetAsideEvent,
    TextDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)

__all__ = [
    "CancelledEvent",
    "CompletedEvent",
    "Event",
    "EventHandler",
    "EventName",
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
