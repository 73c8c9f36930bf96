"""Running agents: `Agent`, `AgentRun`, the derived state, results and events."""

from ._accept import DEFAULT_MAX_ANSWER_BYTES
from ._agent import Agent
from ._debug import Breakpoint, BreakpointAction, Debugger
from ._durable import DEFAULT_LEASE_TTL
from ._events import (
    CancelledEvent,
    CompletedEvent,
    Event,
    EventName,
    FailedEvent,
    InterruptedEvent,
    MessageEvent,
    ResolvedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    SetAsideEvent,
    TextDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from ._result import AgentRunResult, EndStatus, RunStatus
from ._run import AgentRun, OnRecorded
from ._state import Interrupted, PendingInterrupt, Ready, RunState

__all__ = [
    "DEFAULT_LEASE_TTL",
    "DEFAULT_MAX_ANSWER_BYTES",
    "Agent",
    "AgentRun",
    "AgentRunResult",
    "Breakpoint",
    "BreakpointAction",
    "CancelledEvent",
    "CompletedEvent",
    "Debugger",
    "EndStatus",
    "Event",
    "EventName",
    "FailedEvent",
    "Interrupted",
    "InterruptedEvent",
    "MessageEvent",
    "OnRecorded",
    "PendingInterrupt",
    "Ready",
    "ResolvedEvent",
    "RunFinishedEvent",
    "RunStartedEvent",
    "RunState",
    "RunStatus",
    "SetAsideEvent",
    "TextDeltaEvent",
    "ToolCallFinishedEvent",
    "ToolCallStartedEvent",
]
