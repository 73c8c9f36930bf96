"""Executing one tool call record: approval, input, the action, and what it leaves behind.

Everything an execution needs is read from the record itself (its input and interrupt
history), so a record rebuilt from a saved Prompt executes exactly like the original.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .._json import to_json_value
from ..actions import Action, ActionContext, ActionInterrupt
from ..errors import ActionTimeoutError, NotJSONError
from ..store import StoreError
from ..transcript import ErrorInfo, InterruptEntry, Prompt, ToolCall, set_fields, utc_now
from ._asked import stamp_pause
from ._debug import Debugger, breakpoint_entry
from ._events import Events, InterruptedEvent, ToolCallFinishedEvent, ToolCallStartedEvent
from ._steps import (
    AskApproval,
    Fail,
    Invoke,
    PauseAt,
    Reject,
    Respond,
    Settled,
    Step,
    Wait,
    needs_work,
    next_step,
)

__all__ = ["Invocation", "ToolRunner", "needs_work"]

logger = logging.getLogger("pausepoint")


@dataclass(frozen=True, slots=True)
class Invocation:
    """An action about to run for `record` (marked running), with its input and context."""

    record: ToolCall
    action: Action
    input: BaseModel
    ctx: ActionContext


class ToolRunner:
    """Runs the records of a turn for one AgentRun."""

    def __init__(
        self,
        *,
        actions: Mapping[str, Action],
        prompt: Prompt,
        events: Events,
        response_models: dict[str, type[BaseModel]],
        default_timeout: float | None = None,
        checkpoint: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._actions = actions
        self._known = ", ".join(sorted(actions))
        self._prompt = prompt
        self._events = events
        self._response_models = response_models
        self._default_timeout = default_timeout
        # Saves the run (stored runs): a call about to run, an outcome, a pause.
        self._checkpoint = checkpoint or _nothing
        self.debugger: Debugger | None = None
        self.alongside = False
        """True while several calls of a turn run at once: each outcome is committed as it
        comes. Otherwise an outcome waits for the next commit, which comes before the
        model is asked again or the stretch ends."""

    async def execute(self, record: ToolCall) -> None:
        """Run one record to its next resting point: its running mark is committed before
        the action starts; its outcome is left for the next commit (before the model is
        asked again, or the stretch's last). Whatever goes wrong (a bad approval message,
        an action's bug) becomes this call's recorded failure, never an escape."""
        invocation = await self.prepare(record)
        if invocation is not None:
            await self._checkpoint()  # durable before it runs: after a crash, attempt tells it so
            await self.invoke(invocation)

    async def prepare(self, record: ToolCall) -> Invocation | None:
        """What `record` needs next, done up to the action itself, saving nothing: an
        action to run comes back marked running (commit that before `invoke`); any other
        step (approval, failure, decline, breakpoint) is recorded here, and None comes
        back."""
        try:
            return await self._prepare(record)
        except StoreError:
            raise  # the store refused a save: the run stops, this call is not failed
        except Exception as exc:
            await self._failed(record, exc)
            return None

    async def invoke(self, invocation: Invocation) -> None:
        """Run a prepared action (its running mark committed) and record its outcome."""
        try:
            await self._invoke(invocation)
        except StoreError:
            raise
        except Exception as exc:
            await self._failed(invocation.record, exc)

    async def _failed(self, record: ToolCall, exc: Exception) -> None:
        if record.status != "interrupted":
            logger.warning("Executing %s failed: %s", record.name, exc, exc_info=True)
            await self._settle(record, "failed", ErrorInfo.from_exception(exc))

    async def _prepare(self, record: ToolCall) -> Invocation | None:
        action = self._actions.get(record.name)
        debugger = self.debugger
        pause = debugger.should_pause if debugger is not None and debugger.active else None
        step = next_step(record, action, self._known, pause)
        if not isinstance(step, Invoke):
            await self._without_running(record, step, action)
            return None
        assert action is not None  # next_step fails calls of unknown actions
        ctx = ActionContext(
            tool_call_id=record.id,
            action_name=action.name,
            run_id=self._prompt.run_id,
            resumption=step.resumption,
            history=tuple(record.interrupts),
            attempt=step.attempt,
        )
        set_fields(
            record, status="running", attempts=step.attempt, started_at=utc_now(), ended_at=None
        )
        return Invocation(record, action, step.input, ctx)

    async def _invoke(self, invocation: Invocation) -> None:
        record, action, ctx = invocation.record, invocation.action, invocation.ctx
        if self._events.heard(ToolCallStartedEvent.name):
            await self._events.emit(ToolCallStartedEvent(record))
        timeout = action.timeout if action.timeout is not None else self._default_timeout
        deadline = None
        try:
            if timeout is None:
                value = await action.invoke(invocation.input, ctx)
            else:
                async with (deadline := asyncio.timeout(timeout)):
                    value = await action.invoke(invocation.input, ctx)
        except ActionInterrupt as pause:
            entry = InterruptEntry(
                kind="generic",
                message=pause.message,
                data=pause.data,
                state=pause.state,
                response_schema=pause.response_schema,
                expires_at=pause.expires_at,
            )
            await self._suspend(record, entry, pause.response_model)
            return
        except TimeoutError as exc:
            if deadline is not None and deadline.expired() and timeout is not None:
                await self._settle(record, "failed", _timed_out(action, timeout))
            else:
                await self._settle(record, "failed", ErrorInfo.from_exception(exc))
            return
        except NotJSONError as exc:
            # Most likely an ActionInterrupt given non-JSON data: a bug to show the developer.
            logger.warning("Action %s raised %s", action.name, exc)
            await self._settle(record, "failed", ErrorInfo.from_exception(exc))
            return
        except Exception as exc:
            logger.debug("Action %s raised; recorded as its failure.", action.name, exc_info=True)
            await self._settle(record, "failed", ErrorInfo.from_exception(exc))
            return
        try:
            record.result = to_json_value(value, f"The result of action {action.name!r}")
        except NotJSONError as exc:
            await self._settle(record, "failed", ErrorInfo(name="NotJSONError", message=str(exc)))
            return
        await self._settle(record, "succeeded", None)

    async def _without_running(self, record: ToolCall, step: Step, action: Action | None) -> None:
        """Every step but `Invoke`: settle, leave as it is, or pause before running."""
        if isinstance(step, Fail):
            await self._settle(record, "failed", step.error)
            return
        if isinstance(step, Reject):
            await self._settle(record, "rejected", step.error)
            return
        if isinstance(step, Respond):
            set_fields(record, result=step.words)
            await self._settle(record, "responded", None)
            return
        if isinstance(step, Settled | Wait):
            return
        assert action is not None  # next_step fails calls of unknown actions
        if isinstance(step, PauseAt):
            debugger = self.debugger
            assert debugger is not None
            await self._suspend(record, breakpoint_entry(record, debugger.why(record) or "step"))
            return
        if isinstance(step, AskApproval):
            await self._suspend(
                record,
                InterruptEntry(
                    kind="tool-approval",
                    message=action.describe_approval(step.input),
                    data={"toolName": action.name, "args": record.effective_input},
                ),
            )

    async def _suspend(
        self,
        record: ToolCall,
        entry: InterruptEntry,
        response_model: type[BaseModel] | None = None,
    ) -> None:
        stamp_pause(record, entry)
        if response_model is not None:
            self._response_models[entry.id] = response_model
        record.interrupts.append(entry)
        if record.started_at is not None and entry.kind == "generic":
            set_fields(record, status="interrupted", ended_at=utc_now())
        else:
            record.status = "interrupted"
        if self.alongside:
            await self._checkpoint()  # other calls still run: keep this one's question now
        if self._events.heard(InterruptedEvent.name):
            await self._events.emit(InterruptedEvent(record, entry))

    async def _settle(self, record: ToolCall, status: Any, error: ErrorInfo | None) -> None:
        if record.started_at is not None:
            set_fields(record, status=status, error=error, ended_at=utc_now())
        else:
            set_fields(record, status=status, error=error)
        if self.alongside:
            await self._checkpoint()  # other calls still run: keep this one's outcome now
        if self._events.heard(ToolCallFinishedEvent.name):
            await self._events.emit(ToolCallFinishedEvent(record))


async def _nothing() -> None:
    pass


def _timed_out(action: Action, timeout: float) -> ErrorInfo:
    in_thread = not inspect.iscoroutinefunction(action.fn)
    still = " It may still be finishing in the background." if in_thread else ""
    return ErrorInfo(
        name=ActionTimeoutError.__name__,
        message=f"{action.name} did not finish within {timeout:g} s and was stopped; its "
        f"outcome is unknown.{still} It will not be run again for this call.",
    )
