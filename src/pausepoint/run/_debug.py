"""Debugging a run: stepping, breakpoints before actions, and answering them.

A breakpoint pause is an interrupt of kind ``"breakpoint"`` on the tool call it stops
before, so it is recorded in the transcript and survives a save and restore like any
pause. It is answered with a `BreakpointAnswer`: ``{"action": "continue"}``,
``{"action": "step"}``, ``{"action": "skip"}`` or ``{"action": "edit", "args": {...}}``
(through `run.debug`, or `run.resume(...)` with that dict)::

    run = agent.new_run("Refund order 42", breakpoints=["refund"])
    await run.run()                        # pauses before refund
    await run.debug.edit({"cents": 500})   # runs refund with these arguments
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import JsonValue

from ..errors import UsageError
from ..transcript import InterruptEntry, ToolCall
from ..transcript.decisions import BreakpointAction, parse_breakpoint_answer

if TYPE_CHECKING:
    from ._result import AgentRunResult
    from ._run import AgentRun

__all__ = [
    "Breakpoint",
    "BreakpointAction",
    "Debugger",
    "breakpoint_entry",
    "parse_breakpoint_answer",
]

logger = logging.getLogger("pausepoint")

Breakpoint = str | Callable[[ToolCall], bool]
"""An action's name, or a predicate over the tool call (``call.name``, ``call.input``)."""


def breakpoint_entry(record: ToolCall, why: str) -> InterruptEntry:
    """The pause recorded before `record` runs."""
    return InterruptEntry(
        kind="breakpoint",
        message=f"Paused before {record.name} ({why}).",
        data={"toolName": record.name, "args": record.input, "why": why},
    )


class Debugger:
    """A run's debugging controls (`run.debug`): stepping, breakpoints, and the answers
    to a pause. Stepping stops before every model request (the run's status is then
    ``"paused"``) and every action (a breakpoint interrupt); Continue and Step go on from
    either. Changing them takes effect at the next model request or action."""

    def __init__(self, run: AgentRun, *, step: bool, breakpoints: Iterable[Breakpoint]) -> None:
        self._run = run
        self.stepping = bool(step)
        self.breakpoints: list[Breakpoint] = []
        for point in breakpoints:
            self.add(point)

    def add(self, point: Breakpoint) -> None:
        """Pause before actions named `point`, or before calls for which it returns True."""
        if not (isinstance(point, str) or callable(point)):
            raise UsageError(
                f"A breakpoint is an action's name or a function of the call, not {point!r}."
            )
        self.breakpoints.append(point)

    @property
    def active(self) -> bool:
        return self.stepping or bool(self.breakpoints)

    def why(self, record: ToolCall) -> str | None:
        """Why the run stops before `record` (None: it does not)."""
        if self.stepping:
            return "step"
        for point in self.breakpoints:
            if isinstance(point, str):
                if point == record.name:
                    return "breakpoint"
                continue
            try:
                if point(record):
                    return "breakpoint"
            except Exception:  # a predicate's bug: stop, so that the developer sees it
                logger.warning("A breakpoint predicate raised; pausing.", exc_info=True)
                return "breakpoint"
        return None

    def should_pause(self, record: ToolCall) -> bool:
        return self.why(record) is not None

    def answered(self, data: JsonValue) -> None:
        """A breakpoint was answered with `data` (already checked): Step keeps stepping,
        Continue stops."""
        action, _ = parse_breakpoint_answer(data)
        if action in ("step", "continue"):
            self.stepping = action == "step"

    # -- answers -----------------------------------------------------------------------

    def _pending_breakpoint(self, interrupt: str | None) -> str:
        found = [e for _, e in self._run.prompt.pending() if e.kind == "breakpoint"]
        if interrupt is not None:
            return interrupt
        if len(found) != 1:
            from ..errors import NoPendingInterruptError, UnknownInterruptError

            if not found:
                raise NoPendingInterruptError(
                    "The run is not paused at a breakpoint; check run.pending first."
                )
            raise UnknownInterruptError(
                f"{len(found)} breakpoints are pending; say which one with "
                f"interrupt=<id>, one of {[e.id for e in found]}."
            )
        return found[0].id

    @property
    def before_model(self) -> bool:
        """True while the run is stopped before a model request (status ``"paused"``)."""
        return self._run.prompt.model_pause is not None

    async def continue_(self, *, interrupt: str | None = None) -> AgentRunResult:
        """Go on (run the action, or ask the model), stopping only at breakpoints:
        stepping ends."""
        if interrupt is None and self.before_model:
            return await self.go_on("continue")
        return await self._answer({"action": "continue"}, interrupt)

    async def step(self, *, interrupt: str | None = None) -> AgentRunResult:
        """Go on (run the action, or ask the model) and stop before the next model
        request or action."""
        if interrupt is None and self.before_model:
            return await self.go_on("step")
        return await self._answer({"action": "step"}, interrupt)

    async def go_on(
        self,
        action: Literal["step", "continue"],
        *,
        on_recorded: Callable[[], object] | None = None,
    ) -> AgentRunResult:
        """Step or Continue from a pause before a model request (the view's buttons)."""
        if not self.before_model:
            from ..errors import NoPendingInterruptError

            raise NoPendingInterruptError(
                "The run is not paused before a model request; check run.result.status."
            )
        self.stepping = action == "step"
        return await self._run.pass_model_pause(on_recorded)

    async def skip(self, *, interrupt: str | None = None) -> AgentRunResult:
        """Do not run the action; the model is told it was skipped."""
        return await self._answer({"action": "skip"}, interrupt)

    async def edit(self, args: dict[str, Any], *, interrupt: str | None = None) -> AgentRunResult:
        """Run the action with `args` instead of the model's arguments, and go on."""
        return await self._answer({"action": "edit", "args": args}, interrupt)

    async def _answer(self, data: dict[str, Any], interrupt: str | None) -> AgentRunResult:
        if interrupt is None and self.before_model:
            raise UsageError(
                "The run is paused before a model request: Skip and Edit apply to actions. "
                "Use run.debug.step() or run.debug.continue_()."
            )
        return await self._run.resume(data, interrupt=self._pending_breakpoint(interrupt))

    def __repr__(self) -> str:
        return f"Debugger(stepping={self.stepping}, breakpoints={self.breakpoints!r})"
