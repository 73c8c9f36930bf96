"""How a view or a snapshot shows `AgentRun.status`, the one status of a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..run import AgentRun, RunStatus

__all__ = ["RunStatusLine", "status_label", "status_of"]


def status_of(run: AgentRun) -> tuple[RunStatus, dict[str, str] | None]:
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


def status_label(run: AgentRun) -> RunStatusLine:
    """The status as the view's header words it."""
    status, error = status_of(run)
    if status == "interrupted":
        count = len(run.pending)
        label = f"Interrupted: {count} pending {'interrupt' if count == 1 else 'interrupts'}"
    elif status == "failed" and error:
        label = f"Failed: {error['name']}: {error['message']}"
    else:
        label = status.capitalize()
    return RunStatusLine(status, label)
