"""Scripted humans: answer a run's interrupts by rules, so notebooks and tests run
unattended and a session can be replayed deterministically.

A `Policy` answers through the same `resume` / `reject` the view's buttons call::

    policy = humans.Policy(
        approve=["refund"],
        reject={"delete_record": "not today"},
        answers={"ask_date": {"date": "2026-12-24"}},
    )
    result = await policy.drive(run)    # runs until done, or until nobody matches
    policy.log                          # what it answered, in order

Breakpoints are debugging pauses: a policy leaves them alone unless given
`breakpoints="continue"` (or ``"step"``, ``"skip"``). Unmatched interrupts stay pending;
with `strict=True` they raise `UnansweredInterruptError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .errors import UnansweredInterruptError, UsageError

if TYPE_CHECKING:
    from .run import AgentRun, AgentRunResult, PendingInterrupt

__all__ = ["Answered", "Policy", "UnansweredInterruptError"]

AnswerRule = Any | Callable[["PendingInterrupt"], Any]


@dataclass(frozen=True, slots=True)
class Answered:
    """One answer a policy gave: which interrupt, of which action, how, with what."""

    interrupt_id: str
    tool_name: str
    kind: str
    how: Literal["resume", "reject"]
    value: Any


class Policy:
    """Rules for answering interrupts, matched by the tool call's action name.

    `approve` lists actions whose approvals are granted; `reject` maps action names to
    the reason their approvals (or questions) are declined with; `answers` maps action
    names (or a response schema's ``title``) to the value a question is answered with, or
    to a function of the `PendingInterrupt` that returns it.
    """

    def __init__(
        self,
        *,
        approve: Iterable[str] = (),
        reject: Mapping[str, str] | None = None,
        answers: Mapping[str, AnswerRule] | None = None,
        breakpoints: Literal["continue", "step", "skip"] | None = None,
        strict: bool = False,
    ) -> None:
        if isinstance(approve, str):
            raise UsageError(f"approve is a list of action names: write [{approve!r}].")
        if breakpoints not in (None, "continue", "step", "skip"):
            raise UsageError(
                f"breakpoints is None, 'continue', 'step' or 'skip', not {breakpoints!r}."
            )
        self.approve = frozenset(approve)
        self.reject = dict(reject or {})
        self.answers = dict(answers or {})
        self.breakpoints = breakpoints
        self.strict = strict
        self.log: list[Answered] = []

    def choose(self, pending: PendingInterrupt) -> tuple[Literal["resume", "reject"], Any] | None:
        """How this policy answers `pending` (None: it has no rule for it)."""
        name = pending.tool_call.name
        if pending.kind == "breakpoint":
            return ("resume", {"action": self.breakpoints}) if self.breakpoints else None
        if name in self.reject:
            return "reject", self.reject[name]
        if pending.kind == "tool-approval":
            return ("resume", True) if name in self.approve else None
        schema = pending.response_schema or {}
        for key in (name, schema.get("title")):
            if isinstance(key, str) and key in self.answers:
                rule = self.answers[key]
                return "resume", rule(pending) if callable(rule) else rule
        return None

    async def answer(self, run: AgentRun) -> AgentRunResult | None:
        """Answer the first pending interrupt a rule matches; None when none matches."""
        for pending in run.pending:
            chosen = self.choose(pending)
            if chosen is None:
                continue
            how, value = chosen
            self.log.append(Answered(pending.id, pending.tool_call.name, pending.kind, how, value))
            if how == "resume":
                return await run.resume(value, interrupt=pending.id, by="policy")
            return await run.reject(value, interrupt=pending.id, by="policy")
        if self.strict and run.pending:
            first = run.pending[0]
            raise UnansweredInterruptError(
                f"No rule answers interrupt {first.id!r} ({first.kind} of "
                f"{first.tool_call.name}: {first.message!r}). Add one to the Policy."
            )
        return None

    async def drive(self, run: AgentRun) -> AgentRunResult:
        """Run `run` (or wait for its background start) and answer its interrupts until
        it completes, fails, is cancelled or waits on something no rule answers."""
        if run.busy or (run.task is not None and not run.task.done()):
            result = await run.wait()
        elif run.result is not None or run.pending:
            result = run.result if run.result is not None else await run.wait()
        else:
            result = await run.run()
        while result.status in ("interrupted", "paused"):
            if result.status == "paused":  # stepping, before a model request
                if self.breakpoints is None:
                    break
                self.log.append(Answered("", "", "model-pause", "resume", self.breakpoints))
                go_on = run.debug.continue_ if self.breakpoints == "continue" else run.debug.step
                result = await go_on()
                continue
            answered = await self.answer(run)
            if answered is None:
                break
            result = answered
        return result

    def __repr__(self) -> str:
        return (
            f"Policy(approve={sorted(self.approve)}, reject={self.reject}, "
            f"answers={sorted(self.answers)}, breakpoints={self.breakpoints!r})"
        )
