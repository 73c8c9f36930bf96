"""What the workflow and its activities pass each other: ids and small outcomes only,
never the transcript, so a run's workflow history does not grow with its conversation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Answer", "AnswerOutcome", "RunInput", "Stretch", "StretchOutcome"]

Kind = Literal["resume", "reject", "respond"]


@dataclass(frozen=True)
class RunInput:
    """A stored run to schedule: its id (the workflow's id too) and its agent's name."""

    run_id: str
    agent: str | None = None
    status_attribute: str | None = None
    """A Keyword search attribute the workflow keeps at the run's status (registered on
    the cluster beforehand), so Temporal's own list shows the runs waiting on a person."""
    continue_after: int = 10_000
    """History events after which a waiting run's workflow continues as new."""


@dataclass(frozen=True)
class Stretch:
    run_id: str
    agent: str | None = None


@dataclass(frozen=True)
class StretchOutcome:
    """How a stretch ended: the run's status and the interrupts it now waits on."""

    status: str
    pending: list[str] = field(default_factory=list)
    error: str | None = None
    expires_at: str | None = None
    """When every interrupt the run waits on has expired (ISO 8601), if they all expire:
    the workflow's timer, after which a stretch declines them as expired and goes on."""


@dataclass(frozen=True)
class Answer:
    """A person's answer to one interrupt: `resume` with `data`, `reject` with `data` as
    the reason, or `respond` with `data` as the words."""

    interrupt_id: str
    kind: Kind = "resume"
    data: Any = None
    by: str = "code"


@dataclass(frozen=True)
class AnswerOutcome:
    """The run after an answer was committed: its status ("idle" once every pause has
    its answer and the run can go on) and the interrupts still open."""

    status: str
    pending: list[str] = field(default_factory=list)
