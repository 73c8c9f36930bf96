"""pausepoint: agent runs that pause for a person, native to Jupyter.

>>> from pausepoint import Agent, ScriptedModel, action, call
"""

from typing import TYPE_CHECKING, Any

from .actions import Action, ActionContext, ActionInterrupt, Rejection, Resumption, action
from .errors import (
    ActionTimeoutError,
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    InterruptWireError,
    InvalidRejectionError,
    InvalidResolutionError,
    MaxTurnsExceededError,
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
    CancelledEvent,
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
from .transcript import (
    AssistantMessage,
    Cancellation,
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

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionContext",
    "ActionInterrupt",
    "ActionSpec",
    "ActionTimeoutError",
    "Agent",
    "AgentRun",
    "AgentRunResult",
    "AssistantMessage",
    "Cancellation",
    "CancelledEvent",
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
    "MaxTurnsExceededError",
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
    "RunStartedEvent",
    "RunState",
    "RunStateError",
    "RunSuspendedError",
    "ScriptExhaustedError",
    "ScriptedModel",
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
