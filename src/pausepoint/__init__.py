"""pausepoint: agent runs that pause for a person, native to Jupyter.

>>> from pausepoint import Agent, ScriptedModel, action, call

The package root holds what a notebook user types. The rest has a home of its own:
every error in `pausepoint.errors`, every event in `pausepoint.events`, the transcript's
records in `pausepoint.transcript`, the store's parts in `pausepoint.store`.
"""

import warnings
from importlib import import_module
from importlib import metadata as _metadata
from typing import TYPE_CHECKING, Any

from . import humans
from ._json import MAX_INT_DIGITS, MAX_JSON_DEPTH
from ._versions import SCHEMA_VERSION
from .actions import Action, ActionContext, ActionInterrupt, Rejection, Resumption, action
from .errors import PausepointError, UsageError
from .models import (
    ActionSpec,
    DemoModel,
    Model,
    ModelRequest,
    ModelResponse,
    Outcome,
    ReplayModel,
    ScriptedModel,
    StreamingModel,
    TextDelta,
    ToolCallDelta,
    call,
    outcome_of,
)
from .run import (
    Agent,
    AgentRun,
    AgentRunResult,
    Breakpoint,
    Debugger,
    Interrupted,
    ModelTurn,
    PendingInterrupt,
    Ready,
    RunState,
    RunStatus,
    Worker,
    register_display_loader,
)
from .store import PostgresStore, RunStore, RunSummary, SQLiteStore
from .transcript import Prompt, ToolCall, ToolCallRequest

if TYPE_CHECKING:
    from .models.openai import OpenAIChatModel
    from .widget import Inbox, inbox

try:
    __version__ = _metadata.version("pausepoint")
except _metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "SCHEMA_VERSION",
    "Action",
    "ActionContext",
    "ActionInterrupt",
    "ActionSpec",
    "Agent",
    "AgentRun",
    "AgentRunResult",
    "Breakpoint",
    "Debugger",
    "DemoModel",
    "Inbox",
    "Interrupted",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ModelTurn",
    "OpenAIChatModel",
    "Outcome",
    "PausepointError",
    "PendingInterrupt",
    "PostgresStore",
    "Prompt",
    "Ready",
    "Rejection",
    "ReplayModel",
    "Resumption",
    "RunState",
    "RunStatus",
    "RunStore",
    "RunSummary",
    "SQLiteStore",
    "ScriptedModel",
    "StreamingModel",
    "TextDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallRequest",
    "UsageError",
    "Worker",
    "__version__",
    "action",
    "call",
    "host",
    "humans",
    "inbox",
    "outcome_of",
]


def _load_the_view() -> None:
    from . import widget  # noqa: F401  (importing it registers the display of runs)


register_display_loader(_load_the_view)

# Names the root exported before it kept only what a notebook user types: each still works
# for one release, with a DeprecationWarning naming its home.
MOVED: dict[str, str] = {
    **dict.fromkeys(
        (
            "ActionTimeoutError",
            "AnswerTooLargeError",
            "DamagedRunError",
            "ForkMovedOnError",
            "InterruptAlreadyResolvedError",
            "InterruptExpiredError",
            "InterruptWireError",
            "InvalidRejectionError",
            "InvalidResolutionError",
            "InvalidResponseSchemaError",
            "InvalidTranscriptError",
            "LeaseHeldError",
            "LeaseLostError",
            "MaxTurnsExceededError",
            "MissingDependencyError",
            "ModelAuthenticationError",
            "ModelBadRequestError",
            "ModelConfigurationError",
            "ModelConnectionError",
            "ModelError",
            "ModelRateLimitError",
            "ModelServerError",
            "ModelTimeoutError",
            "NoPendingInterruptError",
            "NotJSONError",
            "ReplayDivergedError",
            "ResolutionProblem",
            "ResumeBatchError",
            "ResumeItemError",
            "RunBusyError",
            "RunNotFoundError",
            "RunStateError",
            "RunSuspendedError",
            "ScriptExhaustedError",
            "ServerStartError",
            "StoreConflictError",
            "StoreError",
            "TranscriptProblem",
            "UnknownInterruptError",
            "UnsupportedSchemaVersionError",
        ),
        "pausepoint.errors",
    ),
    **dict.fromkeys(
        (
            "CancelledEvent",
            "CompletedEvent",
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
        ),
        "pausepoint.events",
    ),
    **dict.fromkeys(
        (
            "DEFAULT_LEASE_TTL",
            "DEFAULT_MAX_ANSWER_BYTES",
            "WorkerTally",
        ),
        "pausepoint.run",
    ),
    **dict.fromkeys(
        ("RunWriter",),
        "pausepoint.store",
    ),
    **dict.fromkeys(
        (
            "AssistantMessage",
            "Cancellation",
            "ErrorInfo",
            "ForkOrigin",
            "InterruptEntry",
            "ModelCall",
            "RejectResolution",
            "ResumeResolution",
            "SUPPORTED_SCHEMA_VERSIONS",
            "SetAside",
            "UserMessage",
        ),
        "pausepoint.transcript",
    ),
}


def __getattr__(name: str) -> Any:
    # The OpenAI adapter loads on first use: `openai` is an optional dependency.
    if name == "OpenAIChatModel":
        from .models.openai import OpenAIChatModel

        return OpenAIChatModel
    if name == "host":  # another framework's agent, in this kernel: the agui extra
        from .agui import host

        return host
    if name in ("Inbox", "inbox"):  # the notebook view loads anywidget: on first use
        from . import widget

        return getattr(widget, name)
    home = MOVED.get(name)
    if home is not None:
        warnings.warn(
            f"`pausepoint.{name}` has moved: import it from `{home}` "
            f"(`from {home} import {name}`). The old name goes in the next release.",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(import_module(home), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
