"""What became of a tool call, for the code that writes a model's next turn: `outcome_of`
reads a call once (succeeded, responded, declined, expired, failed, cancelled, or still
waiting), and `outcome_text` is the same outcome in the words every adapter and the
AG-UI stream send a model."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from ..transcript import ToolCall

__all__ = ["Outcome", "OutcomeKind", "outcome_of", "outcome_text"]

OutcomeKind = Literal[
    "succeeded", "responded", "declined", "expired", "failed", "cancelled", "waiting"
]

EXPIRED = "InterruptExpired"
"""The error name of a pause that nobody answered before it expired."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A tool call's outcome, read once::

        done = outcome_of(item)
        if done.ok:
            reply = f"Refunded: {done.result}."
        else:  # declined, answered in words, failed, stopped, expired
            reply = f"Not refunded: {done.reason}."

    - `kind`: ``succeeded``, ``responded`` (a person answered in words instead of letting
      it run), ``declined``, ``expired`` (nobody answered in time), ``failed``,
      ``cancelled`` (the run was stopped), or ``waiting`` (not settled yet);
    - `result`: what the action returned (``succeeded`` only);
    - `said`: the person's words (``responded`` only);
    - `reason`: why there is no result, as a clause without its final period (every kind
      but ``succeeded``; for ``responded``, what the person said);
    - `text`: the outcome in the words a model reads (`outcome_text`).
    """

    kind: OutcomeKind
    result: Any = None
    said: str | None = None
    reason: str = ""
    text: str = ""

    @property
    def ok(self) -> bool:
        """True when the call ran and returned."""
        return self.kind == "succeeded"

    def __str__(self) -> str:
        return self.text


def outcome_of(record: ToolCall) -> Outcome:
    """What became of `record`, one tool call of a transcript (a model request's items)."""
    status = record.status
    error = record.error
    message = _clause(error.message) if error is not None and error.message else ""
    if status == "succeeded":
        result = record.result
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        return Outcome("succeeded", result=result, text=text)
    if status == "responded":
        said = "" if record.result is None else str(record.result)
        return Outcome(
            "responded",
            said=said,
            reason=f"instead, the person said: {_clause(said)}",
            text=f"Not run: instead, the person said: {said}",
        )
    detail = f"{error.name}: {error.message}" if error is not None else "no reason given"
    if status == "rejected" and error is not None and error.name == EXPIRED:
        return Outcome(
            "expired",
            reason=message or "nobody answered in time",
            text=f"Not done: nobody answered before the pause expired. {detail}",
        )
    if status == "rejected":
        return Outcome(
            "declined",
            reason=message or "a person declined it",
            text=f"Not done: a person declined this call. {detail}",
        )
    if status == "failed":
        return Outcome("failed", reason=message or "it failed", text=f"Error. {detail}")
    if status == "cancelled":
        stop = record.cancellation
        why = message or (_clause(stop.reason) if stop is not None and stop.reason else "")
        return Outcome(
            "cancelled",
            reason=why or "the run was stopped",
            text=f"Cancelled: the run was stopped. {detail}",
        )
    # The loop only asks the model once every call has settled; this keeps the wire
    # format valid (each tool call needs an answer) should an unsettled one slip through.
    return Outcome(
        "waiting", reason=f"it is still {status}", text=f"No result yet: the call is {status}."
    )


def outcome_text(record: ToolCall) -> str:
    """What a model reads as a tool call's outcome, in words: the result (a text as it is,
    anything else as JSON), the person's words in place of running it, or why there is no
    result (declined, expired, failed, cancelled). Adapters and the AG-UI stream send the
    same."""
    return outcome_of(record).text


def _clause(text: str) -> str:
    """`text` as a clause to write inside a sentence: no final period, no edge spaces."""
    return text.strip().rstrip(".").rstrip()
