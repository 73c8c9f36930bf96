"""pausepoint: agent runs that pause for a person, native to Jupyter.

>>> from pausepoint import Agent, ScriptedModel, action, call
"""

from importlib import metadata as _metadata
from typing import TYPE_CHECKING, Any

from . import humans
from ._json import MAX_INT_DIGITS, MAX_JSON_DEPTH
from ._versions import SCHEMA_VERSION, SUPPORTED_SCHEMA_VERSIONS
from .actions import Action, ActionContext, ActionInterrupt, Rejection, Resumption, action
from .errors import (
    ActionTimeoutError,
    AnswerTooLargeError,
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    InterruptWireError,
    InvalidRejectionError,
    InvalidResolutionError,
    InvalidResponseSchemaError,
    InvalidTranscriptError,
    MaxTurnsExceededError,
    MissingDependencyError,
    NoPendingInterruptError,
    NotJSONError,
    PausepointError,
    ResolutionProblem,
    ResumeBatchError,
    ResumeItemError,
    RunBusyError,
    RunStateError,
    RunSuspendedError,
    TranscriptProblem,
    UnknownInterruptError,
    UnsupportedSchemaVersionError,
    UsageError,
)
from .interrupts._answers import DEFAULT_MAX_ANSWER_BYTES
from .models import (
    ActionSpec,
    DemoModel,
    Model,
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelConfigurationError,
    ModelConnectionError,
    ModelError,
    ModelRateLimitError,
    ModelRequest,
    ModelResponse,
    ModelServerError,
    ModelTimeoutError,
    ReplayDivergedError,
    ReplayModel,
    ScriptedModel,
    ScriptExhaustedError,
    StreamingModel,
    TextDelta,
    ToolCallDelta,
    call,
)
from .run import (
    DEFAULT_LEASE_TTL,
    Agent,
    AgentRun,
    AgentRunResult,
    Breakpoint,
    CancelledEvent,
    CompletedEvent,
    Debugger,
    FailedEvent,
    Interrupted,
    InterruptedEvent,
    MessageEvent,
    PendingInterrupt,
    Ready,
    ResolvedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    RunState,
    RunStatus,
    TextDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from .store import (
    LeaseHeldError,
    LeaseLostError,
    PostgresStore,
    RunNotFoundError,
    RunStore,
    RunSummary,
    RunWriter,
    SQLiteStore,
    StoreConflictError,
    StoreError,
)
from .transcript import (
    AssistantMessage,
    Cancellation,
    ErrorInfo,
    ForkOrigin,
    InterruptEntry,
    ModelCall,
    Prompt,
    RejectResolution,
    ResumeResolution,
    ToolCall,
    ToolCallRequest,
    UserMessage,
)

if TYPE_CHECKING:
    from .models.openai import OpenAIChatModel
    from .widget._inbox import Inbox, inbox

try:
    __version__ = _metadata.version("pausepoint")
except _metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "DEFAULT_LEASE_TTL",
    "DEFAULT_MAX_ANSWER_BYTES",
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "SCHEMA_VERSION",
    "SUPPORTED_SCHEMA_VERSIONS",
    "Action",
    "ActionContext",
    "ActionInterrupt",
    "ActionSpec",
    "ActionTimeoutError",
    "Agent",
    "AgentRun",
    "AgentRunResult",
    "AnswerTooLargeError",
    "AssistantMessage",
    "Breakpoint",
    "Cancellation",
    "CancelledEvent",
    "CompletedEvent",
    "Debugger",
    "DemoModel",
    "ErrorInfo",
    "FailedEvent",
    "ForkOrigin",
    "Inbox",
    "InterruptAlreadyResolvedError",
    "InterruptEntry",
    "InterruptExpiredError",
    "InterruptWireError",
    "Interrupted",
    "InterruptedEvent",
    "InvalidRejectionError",
    "InvalidResolutionError",
    "InvalidResponseSchemaError",
    "InvalidTranscriptError",
    "LeaseHeldError",
    "LeaseLostError",
    "MaxTurnsExceededError",
    "MessageEvent",
    "MissingDependencyError",
    "Model",
    "ModelAuthenticationError",
    "ModelBadRequestError",
    "ModelCall",
    "ModelConfigurationError",
    "ModelConnectionError",
    "ModelError",
    "ModelRateLimitError",
    "ModelRequest",
    "ModelResponse",
    "ModelServerError",
    "ModelTimeoutError",
    "NoPendingInterruptError",
    "NotJSONError",
    "OpenAIChatModel",
    "PausepointError",
    "PendingInterrupt",
    "PostgresStore",
    "Prompt",
    "Ready",
    "RejectResolution",
    "Rejection",
    "ReplayDivergedError",
    "ReplayModel",
    "ResolutionProblem",
    "ResolvedEvent",
    "ResumeBatchError",
    "ResumeItemError",
    "ResumeResolution",
    "Resumption",
    "RunBusyError",
    "RunFinishedEvent",
    "RunNotFoundError",
    "RunStartedEvent",
    "RunState",
    "RunStateError",
    "RunStatus",
    "RunStore",
    "RunSummary",
    "RunSuspendedError",
    "RunWriter",
    "SQLiteStore",
    "ScriptExhaustedError",
    "ScriptedModel",
    "StoreConflictError",
    "StoreError",
    "StreamingModel",
    "TextDelta",
    "TextDeltaEvent",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallFinishedEvent",
    "ToolCallRequest",
    "ToolCallStartedEvent",
    "TranscriptProblem",
    "UnknownInterruptError",
    "UnsupportedSchemaVersionError",
    "UsageError",
    "UserMessage",
    "__version__",
    "action",
    "call",
    "humans",
    "inbox",
]


def __getattr__(name: str) -> Any:
    # The OpenAI adapter loads on first use: `openai` is an optional dependency.
    if name == "OpenAIChatModel":
        from .models.openai import OpenAIChatModel

        return OpenAIChatModel
    if name in ("Inbox", "inbox"):  # the notebook view loads anywidget: on first use
        from .widget import _inbox

        return getattr(_inbox, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
