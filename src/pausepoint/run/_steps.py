"""What a tool call record needs next: one pure function of the record and its action.

The loop executes whatever `next_step` says, so every rule about re-running, declining
and approving lives here, in one place, and is tested as a table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from pydantic import BaseModel, ValidationError

from ..actions import Action, Resumption
from ..errors import InvalidResolutionError
from ..transcript import ErrorInfo, InterruptEntry, RejectResolution, ToolCall
from ..transcript.decisions import decision_of

__all__ = [
    "AskApproval",
    "Fail",
    "Invoke",
    "PauseAt",
    "Reject",
    "Respond",
    "Settled",
    "Step",
    "Wait",
    "needs_work",
    "next_step",
]


@dataclass(frozen=True, slots=True)
class Settled:
    """The call has its outcome (succeeded, failed, rejected, responded or cancelled)."""


@dataclass(frozen=True, slots=True)
class Wait:
    """The call waits on a person's answer to `entry`."""

    entry: InterruptEntry


@dataclass(frozen=True, slots=True)
class Fail:
    """Record the call as failed with `error`, without running anything."""

    error: ErrorInfo


@dataclass(frozen=True, slots=True)
class Reject:
    """Record the call as rejected with `error`: the action never runs."""

    error: ErrorInfo


@dataclass(frozen=True, slots=True)
class Respond:
    """Record the person's `words` as the call's outcome: the action never runs, and the
    model reads the words instead of a result (not a rejection)."""

    words: str


@dataclass(frozen=True, slots=True)
class AskApproval:
    """Pause with a tool-approval interrupt before the action runs."""

    input: BaseModel


@dataclass(frozen=True, slots=True)
class PauseAt:
    """Pause with a breakpoint interrupt before the action runs (a debugging pause)."""

    input: BaseModel


@dataclass(frozen=True, slots=True)
class Invoke:
    """Run the action with `input`; `attempt` counts this execution (1 = the first)."""

    input: BaseModel
    resumption: Resumption | None
    attempt: int


Step: TypeAlias = Settled | Wait | Fail | Reject | Respond | AskApproval | PauseAt | Invoke

_SETTLED = Settled()


def needs_work(record: ToolCall) -> bool:
    """Not yet run, cut short by a crash, or answered and waiting to go on."""
    if record.status in ("pending", "running"):
        return True
    latest = record.latest_interrupt
    return record.status == "interrupted" and latest is not None and not latest.is_pending


def next_step(
    record: ToolCall,
    action: Action | None,
    known: str = "",
    pause: Callable[[ToolCall], bool] | None = None,
) -> Step:
    """What to do with `record` now. `action` is the action it names (None when the agent
    has none by that name; `known` then lists the names it has, for the error). `pause`
    says whether a debugger stops before this call; it is asked once per call, before its
    first execution."""
    if not needs_work(record):
        pending = record.pending_interrupt
        return Wait(pending) if pending is not None else _SETTLED
    if action is None:
        return Fail(
            ErrorInfo(
                name="UnknownAction",
                message=f"There is no action named {record.name!r}. Known actions: "
                f"{known or 'none'}.",
            )
        )
    latest = record.latest_interrupt
    resumption: Resumption | None = None
    try:
        decision = decision_of(latest) if latest is not None else None
    except InvalidResolutionError as exc:
        # Loading refuses such a transcript; one built by hand must fail, never loop.
        return Fail(
            ErrorInfo(
                name="UnreadableAnswer",
                message=f"The recorded answer to this {latest.kind if latest else ''} pause "
                f"cannot be read, so {action.name} was not run: {exc.problems[0].path}: "
                f"{exc.problems[0].message}.",
            )
        )
    if latest is not None and isinstance(latest.resolution, RejectResolution):
        return Reject(latest.resolution.error)
    if decision is not None and decision.kind == "declined":
        return Reject(
            ErrorInfo(
                name="ToolApprovalDenied",
                message=f"The user declined to run {action.name}; it was not executed.",
            )
        )
    if decision is not None and decision.kind == "responded":
        return Respond(str(decision.value))
    if decision is not None and decision.kind == "skipped":
        return Reject(
            ErrorInfo(
                name="SkippedByDebugger",
                message=f"{action.name} was skipped while debugging; it was not executed.",
            )
        )
    if decision is not None and latest is not None and decision.kind == "answered":
        resumption = Resumption(decision.value, latest.state, latest.id)
    try:
        input = action.validate_input(record.effective_input)
    except ValidationError as exc:
        return Fail(_invalid_input(action, exc))
    if (
        pause is not None
        and record.attempts == 0
        and not any(e.kind == "breakpoint" for e in record.interrupts)
        and pause(record)
    ):
        return PauseAt(input)
    if action.needs_approval and not any(e.kind == "tool-approval" for e in record.interrupts):
        return AskApproval(input)
    return Invoke(input, resumption, record.attempts + 1)


def _invalid_input(action: Action, exc: ValidationError) -> ErrorInfo:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
    )
    return ErrorInfo(
        name="InvalidInput",
        message=f"The input does not fit {action.name}'s schema: {problems}",
    )
