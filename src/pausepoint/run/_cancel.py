"""What a cancellation leaves in the transcript: the calls it cut short, and why."""

from __future__ import annotations

from ..transcript import Cancellation, ErrorInfo, Prompt, ToolCall
from ._steps import needs_work

__all__ = ["cancel_open_calls", "run_cancelled_error"]


def _who_why(cancellation: Cancellation) -> tuple[str, str]:
    who = "the user" if cancellation.by == "user" else "an interrupt"
    why = f" ({cancellation.reason})" if cancellation.reason else ""
    return who, why


def cancel_open_calls(prompt: Prompt, cancellation: Cancellation) -> list[ToolCall]:
    """Mark every call of the latest turn that was running or still to run as cancelled
    (calls waiting on a person keep waiting); returns the calls it marked. A cancelled
    call is settled: the loop never starts it again, and the model reads its error."""
    who, why = _who_why(cancellation)
    _, records = prompt.current_turn()
    marked = []
    for record in records:
        if not needs_work(record):
            continue
        if record.status == "running":
            what = "while it ran; its outcome is unknown"
        else:
            what = "before it started; it did not run"
        record.status = "cancelled"
        record.cancellation = cancellation
        record.error = ErrorInfo(name="Cancelled", message=f"Stopped by {who}{why} {what}.")
        marked.append(record)
    return marked


def run_cancelled_error(cancellation: Cancellation) -> ErrorInfo:
    """The cancelled result's `error`: who stopped the run and why."""
    who, why = _who_why(cancellation)
    return ErrorInfo(name="Cancelled", message=f"Cancelled by {who}{why}.")
