"""Where a run stands for a view or a snapshot made now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..run import AgentRun

__all__ = ["RunStatusLine", "status_label", "status_of"]


def status_of(run: AgentRun) -> tuple[str, dict[str, str] | None]:
    """Busy, waiting, or how it last ended; with the error of a failure."""
    if run.busy:
        return "running", None
    if run.pending:
        return "interrupted", None
    if run.result is not None:
        error = run.result.error.model_dump() if run.result.error else None
        return run.result.status, error
    if run.prompt.model_pause is not None:  # a stepping run loaded while paused
        return "paused", None
    return ("completed" if run.prompt.output is not None else "idle"), None


@dataclass(frozen=True)
class RunStatusLine:
    status: str
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
