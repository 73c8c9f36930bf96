"""Models: the protocol a run talks to, and the offline scripted model."""

from ._protocol import (
    ActionSpec,
    Model,
    ModelRequest,
    ModelResponse,
    StreamEvent,
    StreamingModel,
    TextDelta,
    ToolCallDelta,
)
from .scripted import ScriptedModel, ScriptExhaustedError, Turn, call

__all__ = [
    "ActionSpec",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ScriptExhaustedError",
    "ScriptedModel",
    "StreamEvent",
    "StreamingModel",
    "TextDelta",
    "ToolCallDelta",
    "Turn",
    "call",
]
