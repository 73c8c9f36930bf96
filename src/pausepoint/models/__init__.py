"""Models: the protocol a run talks to, the offline models, and the OpenAI adapter.

`OpenAIChatModel` is imported on first use, so the optional `openai` package is only
needed by code that uses it.
"""

from typing import TYPE_CHECKING, Any

from ..errors import (
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelConfigurationError,
    ModelConnectionError,
    ModelError,
    ModelRateLimitError,
    ModelServerError,
    ModelTimeoutError,
    ReplayDivergedError,
    ScriptExhaustedError,
)
from ._outcome import Outcome, OutcomeKind, outcome_of, outcome_text
from ._protocol import (
    ActionSpec,
    Model,
    ModelRequest,
    ModelResponse,
    StreamEvent,
    StreamingModel,
    TextDelta,
    ToolCallDelta,
    checked_response,
)
from .demo import DemoModel
from .replay import ReplayModel
from .scripted import ScriptedModel, Turn, call

if TYPE_CHECKING:
    from .openai import OpenAIChatModel

__all__ = [
    "ActionSpec",
    "DemoModel",
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
    "OpenAIChatModel",
    "Outcome",
    "OutcomeKind",
    "ReplayDivergedError",
    "ReplayModel",
    "ScriptExhaustedError",
    "ScriptedModel",
    "StreamEvent",
    "StreamingModel",
    "TextDelta",
    "ToolCallDelta",
    "Turn",
    "call",
    "checked_response",
    "outcome_of",
    "outcome_text",
]


def __getattr__(name: str) -> Any:
    if name == "OpenAIChatModel":
        from .openai import OpenAIChatModel

        return OpenAIChatModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
