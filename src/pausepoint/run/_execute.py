"""Executing one tool call record: approval, input, the action, and what it leaves behind.

Everything an execution needs is read from the record itself (its input and interrupt
history), so a record rebuilt from a saved Prompt executes exactly like the original.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from .._json import to_json_value
from ..actions import Action, ActionContext, ActionInterrupt, Resumption
from ..errors import NotJSONError
from ..interrupts._answers import parse_approval
from ..transcript import (
    ErrorInfo,
    InterruptEntry,
    Prompt,
    RejectResolution,
    ResumeResolution,
    ToolCall,
)
from ._events import Event, InterruptedEvent, ToolCallFinishedEvent, ToolCallStartedEvent

__all__ = ["ToolRunner", "needs_work"]

logger = logging.getLogger("pausepoint")


def needs_work(record: ToolCall) -> bool:
    """Not yet run, cut short by a crash, or answered and waiting to go on."""
    if record.status in ("pending", "running"):
        return True
    latest = record.latest_interrupt
    return record.status == "interrupted" and latest is not None and not latest.is_pending


class ToolRunner:
    """Runs the records of a turn for one AgentRun."""

    def __init__(
        self,
        *,
        actions: Mapping[str, Action],
        prompt: Prompt,
        emit: Callable[[Event], Awaitable[None]],
        response_models: dict[str, type[BaseModel]],
    ) -> None:
        self._actions = actions
        self._prompt = prompt
        self._emit = emit
        self._response_models = response_models

    async def execute(self, record: ToolCall) -> None:
        """Run one record to its next resting point. Whatever goes wrong (a bad approval
        message, an action's bug) becomes this call's recorded failure, never an escape."""
        try:
            await self._execute(record)
        except Exception as exc:
            if record.status != "interrupted":
                logger.warning("Executing %s failed: %s", record.name, exc, exc_info=True)
                await self._settle(record, "failed", _error_info(exc))

    async def _execute(self, record: ToolCall) -> None:
        action = self._actions.get(record.name)
        if action is None:
            known = ", ".join(sorted(self._actions)) or "none"
            await self._settle(
                record,
                "failed",
                ErrorInfo(
                    name="UnknownAction",
                    message=f"There is no action named {record.name!r}. Known actions: {known}.",
                ),
            )
            return

        latest = record.latest_interrupt
        resumption: Resumption | None = None
        if latest is not None and isinstance(latest.resolution, RejectResolution):
            await self._settle(record, "rejected", latest.resolution.error)
            return
        if latest is not None and isinstance(latest.resolution, ResumeResolution):
            if latest.kind == "generic":
                resumption = Resumption(latest.resolution.data, latest.state, latest.id)
            elif not parse_approval(latest.resolution.data).approved:
                await self._settle(record, "rejected", _declined(action))
                return

        try:
            input = action.validate_input(record.effective_input)
        except ValidationError as exc:
            await self._settle(record, "failed", _invalid_input(action, exc))
            return

        if action.needs_approval and not any(e.kind == "tool-approval" for e in record.interrupts):
            await self._suspend(
                record,
                InterruptEntry(
                    kind="tool-approval",
                    message=action.describe_approval(input),
                    data={"toolName": action.name, "args": record.input},
                ),
            )
            return

        record.status = "running"
        await self._emit(ToolCallStartedEvent(record))
        ctx = ActionContext(
            tool_call_id=record.id,
            action_name=action.name,
            run_id=self._prompt.run_id,
            resumption=resumption,
            history=tuple(record.interrupts),
        )
        try:
            value = await action.invoke(input, ctx)
        except ActionInterrupt as pause:
            entry = InterruptEntry(
                kind="generic",
                message=pause.message,
                data=pause.data,
                state=pause.state,
                response_schema=pause.response_schema,
                expires_at=pause.expires_at,
            )
            if pause.response_model is not None:
                self._response_models[entry.id] = pause.response_model
            await self._suspend(record, entry)
            return
        except NotJSONError as exc:
            # Most likely an ActionInterrupt given non-JSON data: a bug to show the developer.
            logger.warning("Action %s raised %s", action.name, exc)
            await self._settle(record, "failed", _error_info(exc))
            return
        except Exception as exc:
            logger.debug("Action %s raised; recorded as its failure.", action.name, exc_info=True)
            await self._settle(record, "failed", _error_info(exc))
            return
        try:
            record.result = to_json_value(value, f"The result of action {action.name!r}")
        except NotJSONError as exc:
            await self._settle(record, "failed", ErrorInfo(name="NotJSONError", message=str(exc)))
            return
        await self._settle(record, "succeeded", None)

    async def _suspend(self, record: ToolCall, entry: InterruptEntry) -> None:
        record.interrupts.append(entry)
        record.status = "interrupted"
        await self._emit(InterruptedEvent(record, entry))

    async def _settle(self, record: ToolCall, status: Any, error: ErrorInfo | None) -> None:
        record.status = status
        record.error = error
        await self._emit(ToolCallFinishedEvent(record))


def _declined(action: Action) -> ErrorInfo:
    return ErrorInfo(
        name="ToolApprovalDenied",
        message=f"The user declined to run {action.name}; it was not executed.",
    )


def _invalid_input(action: Action, exc: ValidationError) -> ErrorInfo:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
    )
    return ErrorInfo(
        name="InvalidInput",
        message=f"The input does not fit {action.name}'s schema: {problems}",
    )


def _error_info(exc: Exception) -> ErrorInfo:
    # str(KeyError("x")) is just "'x'": say what it means.
    if isinstance(exc, KeyError) and len(exc.args) == 1:
        message = f"missing key {exc.args[0]!r}"
    else:
        message = str(exc) or repr(exc)
    return ErrorInfo(name=type(exc).__name__, message=message)
