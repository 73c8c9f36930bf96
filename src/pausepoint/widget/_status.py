"""How a view or a snapshot shows `AgentRun.status`, the one status of a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..run import RunStatus
    from ._viewed import ViewedRun

__all__ = ["RunStatusLine", "status_label", "status_of"]


def status_of(run: ViewedRun) -> tuple[RunStatus, dict[str, str] | None]:
    """`run.status`, with the error of the result it comes from (a failure's, a
    cancellation's)."""
    status = run.status
    result = run.result
    if result is None or result.error is None or result.status != status:
        return status, None
    return status, result.error.model_dump()


@dataclass(frozen=True)
class RunStatusLine:
    status: RunStatus
    label: str


_WORDS: dict[str, str] = {
    "idle": "Not started",
    "running": "Running",
    "paused": "Paused before the model request",
    "interrupted": "Waiting for an answer",
    "completed": "Completed",
    "failed": "Failed",
    "cancelled": "Stopped",
}


def status_label(run: ViewedRun) -> RunStatusLine:
    """The status in the view's words for people ("Waiting for an answer", not a count of
    pending interrupts)."""
    status, error = status_of(run)
    label = _WORDS[status]
    if status == "failed" and error:
        label = f"Failed: {error['name']}: {error['message']}"
    return RunStatusLine(status, label)
