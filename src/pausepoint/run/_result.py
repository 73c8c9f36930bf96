"""Where a run stands (`RunStatus`), and what `run()`, `resume()` and `reject()` return."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..transcript import ErrorInfo, Prompt
from ._state import PendingInterrupt

__all__ = ["AgentRunResult", "EndStatus", "RunStatus"]

RunStatus = Literal["idle", "running", "paused", "interrupted", "completed", "failed", "cancelled"]
"""`AgentRun.status`: not started yet (`idle`), executing, stopped before a model request
while stepping (`paused`), waiting on a person, or how the latest stretch ended."""

EndStatus = Literal["idle", "paused", "interrupted", "completed", "failed", "cancelled"]
"""How a stretch of the run ended: the statuses an `AgentRunResult` can have. `idle` comes
only from an answer given with `continue_run=False`: recorded, nothing executed, and
`run()` (or a `Worker`, for a stored run) continues the run."""


@dataclass(frozen=True, slots=True)
class AgentRunResult:
    """How a stretch of the run ended. `interrupted`, `failed` and `cancelled` are
    results, not raises.

    `prompt` is the run's live transcript; `pending` lists what an interrupted run waits
    on; `error` says why a failed run stopped (call `run()` again to retry from there) or
    who cancelled it and why.
    """

    status: EndStatus
    prompt: Prompt
    pending: tuple[PendingInterrupt, ...] = ()
    error: ErrorInfo | None = None
    exception: BaseException | None = None

    @property
    def output(self) -> str | None:
        """The final assistant text of a completed run."""
        return self.prompt.output
