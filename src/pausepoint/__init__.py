"""pausepoint: agent runs that pause for a person, native to Jupyter.

>>> from pausepoint import Agent, ScriptedModel, action, call
"""

from importlib import metadata as _metadata
from typing import TYPE_CHECKING, Any

from .actions import Action, ActionContext, ActionInterrupt, Rejection, Resumption, action
from .errors import (
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    InterruptWireError,
    InvalidRejectionError,
    InvalidResolutionError,
    NoPendingInterruptError,
    NotJSONError,
    PausepointError,
    ResolutionProblem,
    ResumeBatchError,
    ResumeItemError,
    RunBusyError,
    RunStateError,
    RunSuspendedError,
    UnknownInterruptError,
)
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
    ScriptedModel,
    ScriptExhaustedError,
    StreamingModel,
    TextDelta,
    ToolCallDelta,
    call,
)
from .run import (
    Agent,
    AgentRun,
    AgentRunResult,
    CompletedEvent,
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
    ErrorInfo,
    InterruptEntry,
    Prompt,
    RejectResolution,
    ResumeResolution,
    ToolCall,
    ToolCallRequest,
    UserMessage,
)

if TYPE_CHECKING:
    from .models.openai import OpenAIChatModel

try:
    __version__ = _metadata.version("pausepoint")
except _metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Action",
    "ActionContext",
    "ActionInterrupt",
    "ActionSpec",
    "Agent",
    "AgentRun",
    "AgentRunResult",
    "AssistantMessage",
    "CompletedEvent",
    "DemoModel",
    "ErrorInfo",
    "FailedEvent",
    "InterruptAlreadyResolvedError",
    "InterruptEntry",
    "InterruptExpiredError",
    "InterruptWireError",
    "Interrupted",
    "InterruptedEvent",
    "InvalidRejectionError",
    "InvalidResolutionError",
    "LeaseHeldError",
    "LeaseLostError",
    "MessageEvent",
    "Model",
    "ModelAuthenticationError",
    "ModelBadRequestError",
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
    "UnknownInterruptError",
    "UserMessage",
    "__version__",
    "action",
    "call",
]


def __getattr__(name: str) -> Any:
    # The OpenAI adapter loads on first use: `openai` is an optional dependency.
    if name == "OpenAIChatModel":
        from .models.openai import OpenAIChatModel

        return OpenAIChatModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
