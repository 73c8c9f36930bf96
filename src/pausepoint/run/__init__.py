"""Running agents: `Agent`, `AgentRun`, the derived state, results and events."""

from ._accept import DEFAULT_MAX_ANSWER_BYTES, accept_answer, as_error_info
from ._agent import Agent
from ._answering import response_to, response_words
from ._asked import AskedUnder, NamePause, asked_under
from ._debug import Breakpoint, BreakpointAction, Debugger
from ._display import (
    LiveView,
    RunDisplay,
    register_display,
    register_display_loader,
    run_display,
)
from ._durable import DEFAULT_LEASE_TTL
from ._events import (
    CancelledEvent,
    CompletedEvent,
    Event,
    EventHandler,
    EventName,
    Events,
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
from ._forks import ModelTurn, edits_said, fork_name
from ._notebook import blocking
from ._result import AgentRunResult, EndStatus, RunStatus
from ._run import AgentRun, OnRecorded
from ._state import Interrupted, PendingInterrupt, Ready, RunState, derive_state
from ._worker import Worker, WorkerTally

__all__ = [
    "DEFAULT_LEASE_TTL",
    "DEFAULT_MAX_ANSWER_BYTES",
    "Agent",
    "AgentRun",
    "AgentRunResult",
    "AskedUnder",
    "Breakpoint",
    "BreakpointAction",
    "CancelledEvent",
    "CompletedEvent",
    "Debugger",
    "EndStatus",
    "Event",
    "EventHandler",
    "EventName",
    "Events",
    "FailedEvent",
    "Interrupted",
    "InterruptedEvent",
    "ItemEditedEvent",
    "LiveView",
    "MessageEvent",
    "ModelTurn",
    "NamePause",
    "OnRecorded",
    "PendingInterrupt",
    "Ready",
    "ResolvedEvent",
    "RunDisplay",
    "RunFinishedEvent",
    "RunStartedEvent",
    "RunState",
    "RunStatus",
    "SetAsideEvent",
    "TextDeltaEvent",
    "ToolCallFinishedEvent",
    "ToolCallStartedEvent",
    "Worker",
    "WorkerTally",
    "accept_answer",
    "as_error_info",
    "asked_under",
    "blocking",
    "derive_state",
    "edits_said",
    "fork_name",
    "register_display",
    "register_display_loader",
    "response_to",
    "response_words",
    "run_display",
]
