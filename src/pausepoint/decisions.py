"""Moved to `pausepoint.transcript.decisions`; this name goes in the next release."""

import warnings

from .transcript.decisions import (
    DEFAULT_REJECTION_MESSAGE,
    RESPONSE_KEY,
    ApprovalAnswer,
    BreakpointAction,
    Change,
    Decision,
    DecisionKind,
    decision_of,
    decisions_of,
    parse_approval,
    parse_breakpoint_answer,
    respond_answer,
    shown_status,
)

__all__ = [
    "DEFAULT_REJECTION_MESSAGE",
    "RESPONSE_KEY",
    "ApprovalAnswer",
    "BreakpointAction",
    "Change",
    "Decision",
    "DecisionKind",
    "decision_of",
    "decisions_of",
    "parse_approval",
    "parse_breakpoint_answer",
    "respond_answer",
    "shown_status",
]

warnings.warn(
    "`pausepoint.decisions` has moved: import from `pausepoint.transcript.decisions`. "
    "The old name goes in the next release.",
    DeprecationWarning,
    stacklevel=2,
)
