"""What `run()`, `resume()` and `reject()` return."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..transcript import ErrorInfo, Prompt
from ._state import PendingInterrupt

__all__ = ["AgentRunResult", "RunStatus"]

RunStatus = Literal["completed", "interrupted", "paused", "failed", "cancelled"]


@dataclass(frozen=True, slots=True)
class AgentRunResult:
    """How a stretch of the run ended. `interrupted`, `failed` and `cancelled` are
    results, not raises.

    `prompt` is the run's live transcript; `pending` lists what an interrupted run waits
    on; `error` says why a failed run stopped (call `run()` again to retry from there) or
    who cancelled it and why.
    """

    status: RunStatus
    prompt: Prompt
    pending: tuple[PendingInterrupt, ...] = ()
    error: ErrorInfo | None = None
    exception: BaseException | None = None

    @property
    def output(self) -> str | None:
        """The final assistant text of a completed run."""
        return self.prompt.output
