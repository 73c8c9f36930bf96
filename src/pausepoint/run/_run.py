"""`AgentRun`: the loop that asks the model, runs actions and pauses for people."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel

from .._json import check_text, to_json_value
from ..actions import Rejection
from ..errors import (
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    NoPendingInterruptError,
    ResumeBatchError,
    RunBusyError,
    RunStateError,
    RunSuspendedError,
    UnknownInterruptError,
)
from ..interrupts._answers import accept_answer, as_error_info
from ..models import ModelRequest, ModelResponse, checked_response
from ..transcript import (
    AssistantMessage,
    ErrorInfo,
    InterruptEntry,
    Prompt,
    RejectResolution,
    Resolution,
    ResumeResolution,
    ToolCall,
    UserMessage,
    utc_now,
)
from ._agent import Agent
from ._batch import cancellation, check_batch, is_replay, wire_entries
from ._events import (
    CompletedEvent,
    Event,
    EventHandler,
    EventName,
    Events,
    FailedEvent,
    MessageEvent,
    ResolvedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextDeltaEvent,
)
from ._execute import ToolRunner, needs_work
from ._notebook import InNotebook
from ._result import AgentRunResult, RunStatus
from ._state import Interrupted, PendingInterrupt, RunState, derive_state
from ._turn import ask_model, unique_calls

__all__ = ["AgentRun"]

logger = logging.getLogger("pausepoint")


class AgentRun(InNotebook):
    """One conversation of an agent, suspended and resumed as people answer.

    All of the run's state lives in `prompt`; `state` is derived from it. Save the prompt
    as JSON and a new `AgentRun` over it (in a new process, with a new `Agent`) continues
    exactly where this one stopped::

        run = AgentRun(agent, Prompt.from_user("Delete record 7"))
        result = await run.run()            # status "interrupted": nothing raised
        result = await run.resume({"approved": True})
    """

    def __init__(self, agent: Agent, prompt: Prompt | str) -> None:
        if isinstance(prompt, str):
            prompt = Prompt.from_user(prompt)
        if prompt.instructions is None:
            prompt.instructions = agent.instructions
        self.agent = agent
        self._prompt = prompt
        self._events = Events()
        self._busy = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._result: AgentRunResult | None = None
        # Pydantic classes of answers awaited by this process; after a restore the JSON
        # Schema recorded in the entry is used instead.
        self._response_models: dict[str, type[BaseModel]] = {}
        self._tools = ToolRunner(
            actions=agent.actions,
            prompt=prompt,
            emit=self._emit,
            response_models=self._response_models,
        )

    # -- what the run is -------------------------------------------------------------

    @property
    def prompt(self) -> Prompt:
        """The transcript: everything the run is. Save it with `model_dump_json()`."""
        return self._prompt

    @property
    def id(self) -> str:
        return self._prompt.run_id

    @property
    def state(self) -> RunState:
        """`Interrupted(...)` while any interrupt waits for an answer, else `Ready()`."""
        return derive_state(self._prompt, self.agent.input_schemas)

    @property
    def pending(self) -> tuple[PendingInterrupt, ...]:
        """The interrupts waiting for an answer, oldest first."""
        state = self.state
        return state.pending if isinstance(state, Interrupted) else ()

    @property
    def busy(self) -> bool:
        """True while the run is executing (asking the model or running actions)."""
        return self._busy

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop the run last executed on; answers from other threads go there."""
        return self._loop

    def on(self, name: EventName, handler: EventHandler) -> Callable[[], None]:
        """Call `handler(event)` on each `name` event (`"*"` for all); returns an unsubscriber.

        Handlers may be plain functions or coroutines. One that raises is logged and the
        run goes on.
        """
        return self._events.on(name, handler)

    # -- driving it ------------------------------------------------------------------

    async def run(self, message: str | None = None) -> AgentRunResult:
        """Continue the run until it completes, pauses or fails.

        `message` appends a user message first (a follow-up to a completed run). Raises
        `RunSuspendedError` while an interrupt waits for an answer, changing nothing.
        Interrupts whose `expires_at` passed are declined as expired, and the run goes on.
        """
        if message is not None:
            message = check_text(message, "The message")
        with self._busy_guard():
            pending = self._prompt.pending()
            now = utc_now()
            waiting = [e for _, e in pending if e.expires_at is None or e.expires_at > now]
            if waiting:
                ids = ", ".join(e.id for e in waiting)
                raise RunSuspendedError(
                    f"The run waits on {len(waiting)} interrupt(s) ({ids}). Answer with "
                    "run.resume(data) or run.reject(reason) before calling run() again."
                )
            for record, entry in pending:
                error = ErrorInfo(
                    name="InterruptExpired",
                    message=f"Nobody answered before the interrupt expired ({entry.expires_at}).",
                )
                resolution = RejectResolution(error=error)
                self._record(entry, resolution)
                await self._emit(ResolvedEvent(record, entry, resolution))
            if message is not None:
                self._prompt.items.append(UserMessage(text=message))
            return await self._advance()

    async def resume(self, data: Any = None, *, interrupt: str | None = None) -> AgentRunResult:
        """Answer a pending interrupt and re-run its action with `ctx.resumption.data = data`.

        `interrupt` picks the entry by id; leave it out when exactly one is pending. For a
        tool approval, `data` is `True`, `False`, or `{"approved": ..., "editedArgs": {...}}`.
        The answer is recorded before the action re-runs. A refused answer records nothing.
        """
        record, entry = self._target(interrupt)
        with self._busy_guard():
            self._check_open(entry)
            value = accept_answer(
                entry,
                data,
                action=self.agent.actions.get(record.name),
                response_model=self._response_models.get(entry.id),
                max_bytes=self.agent.max_answer_bytes,
            )
            resolution = ResumeResolution(data=value)
            self._record(entry, resolution)
            await self._emit(ResolvedEvent(record, entry, resolution))
            return await self._advance()

    async def reject(
        self,
        error: Rejection | ErrorInfo | str | dict[str, Any] | None = None,
        *,
        interrupt: str | None = None,
    ) -> AgentRunResult:
        """Decline a pending interrupt. The action is not re-run; the model sees `error`."""
        record, entry = self._target(interrupt)
        with self._busy_guard():
            self._check_open(entry)
            info = as_error_info(error)
            resolution = RejectResolution(error=info)
            self._record(entry, resolution)
            await self._emit(ResolvedEvent(record, entry, resolution))
            return await self._advance()

    async def continue_with(
        self, entries: Iterable[Mapping[str, Any] | BaseModel]
    ) -> AgentRunResult:
        """Answer every pending interrupt at once, from AG-UI resume entries.

        Each entry is `{"interruptId", "status": "resolved" | "cancelled", "payload"?,
        "metadata"?}` (a dict or an `ag_ui.core.ResumeEntry`). `resolved` resumes with the
        payload, `cancelled` declines (the model sees `metadata["reason"]` when given,
        else "The user cancelled this interrupt."). The whole batch is checked first, and
        if any entry is refused, `ResumeBatchError` lists each problem with its code and
        nothing is applied. Sending the same batch again changes nothing.
        """
        items = wire_entries(entries)
        with self._busy_guard():
            if is_replay(self._prompt, items):
                if self._result is not None:
                    return self._result
                return await self._advance()  # rebuilt here: go on from where it stands
            errors = check_batch(
                self._prompt,
                items,
                actions=self.agent.actions,
                response_model=self._response_models.get,
                now=utc_now(),
                max_answer_bytes=self.agent.max_answer_bytes,
            )
            if errors:
                raise ResumeBatchError(errors)
            for item in items:
                found = self._prompt.find_interrupt(item["interruptId"])
                assert found is not None  # checked above
                record, entry = found
                resolution: Resolution
                if item["status"] == "resolved":
                    resolution = ResumeResolution(
                        data=to_json_value(item.get("payload"), "payload")
                    )
                    self._record(entry, resolution)
                else:
                    resolution = RejectResolution(error=cancellation(item))
                    self._record(entry, resolution)
                await self._emit(ResolvedEvent(record, entry, resolution))
            return await self._advance()

    def agui_interrupts(self) -> list[dict[str, Any]]:
        """The pending interrupts as AG-UI `Interrupt` wire dicts, bound for TanStack AI."""
        return [p.to_agui() for p in self.pending]

    # -- internals -------------------------------------------------------------------

    def _current_result(self) -> AgentRunResult:
        if self._result is not None:
            return self._result
        # A run rebuilt from a saved Prompt: its transcript says where it stands.
        if self._prompt.pending():
            return self._finish("interrupted")
        if self._prompt.output is not None:
            return self._finish("completed")
        raise RunStateError(
            "This run has not run in this process and waits on nobody: call run() (or "
            "start()) to continue it."
        )

    def _target(self, interrupt_id: str | None) -> tuple[ToolCall, InterruptEntry]:
        if interrupt_id is not None:
            found = self._prompt.find_interrupt(interrupt_id)
            if found is None:
                raise UnknownInterruptError(
                    f"This run has no interrupt {interrupt_id!r}. Pending: "
                    f"{[e.id for _, e in self._prompt.pending()] or 'none'}."
                )
            if not found[1].is_pending:
                raise InterruptAlreadyResolvedError(
                    f"Interrupt {interrupt_id!r} was already answered "
                    f"({found[1].resolution.type if found[1].resolution else ''}); "
                    "nothing was changed."
                )
            return found
        pending = self._prompt.pending()
        if not pending and self._busy:
            raise RunBusyError(
                "The run is executing and waits on nobody yet; answer once it has paused "
                "(await run.wait())."
            )
        if not pending:
            raise NoPendingInterruptError(
                "Nothing is pending: there is no interrupt to answer. Check run.state first."
            )
        if len(pending) > 1:
            raise UnknownInterruptError(
                f"{len(pending)} interrupts are pending; say which one with "
                f"interrupt=<id>, one of {[e.id for _, e in pending]}."
            )
        return pending[0]

    def _check_open(self, entry: InterruptEntry) -> None:
        if entry.expires_at is not None and entry.expires_at <= utc_now():
            raise InterruptExpiredError(
                f"Interrupt {entry.id!r} expired at {entry.expires_at.isoformat()}; it can no "
                "longer be answered. Call run() to continue; it is declined as expired."
            )

    def _record(self, entry: InterruptEntry, resolution: Resolution) -> None:
        entry.resolution = resolution
        self._response_models.pop(entry.id, None)

    @contextmanager
    def _busy_guard(self) -> Iterator[None]:
        if self._busy:
            raise RunBusyError(
                "The run is executing; wait for the current call to return before "
                "calling run(), resume() or reject() again."
            )
        self._busy = True
        try:
            yield
        finally:
            self._busy = False

    async def _emit(self, event: Event) -> None:
        await self._events.emit(event)

    async def _advance(self) -> AgentRunResult:
        self._loop = asyncio.get_running_loop()
        await self._emit(RunStartedEvent(self.id))
        try:
            result = await self._advance_until_stop()
        except Exception as exc:
            logger.error("The run stopped on an internal error", exc_info=exc)
            error = ErrorInfo(name=type(exc).__name__, message=str(exc) or repr(exc))
            await self._emit(FailedEvent(error, exc))
            result = self._finish("failed", error=error, exception=exc)
        self._result = result
        await self._emit(RunFinishedEvent(result))
        return result

    async def _advance_until_stop(self) -> AgentRunResult:
        while True:
            assistant, records = self._prompt.current_turn()
            open_records = [r for r in records if needs_work(r)]
            if open_records:
                await asyncio.gather(*(self._tools.execute(r) for r in open_records))
                continue
            if any(r.pending_interrupt is not None for r in records):
                return self._finish("interrupted")
            if assistant is not None and not assistant.tool_calls:
                return await self._complete()
            try:
                response = await self._ask_model()
            except Exception as exc:
                error = ErrorInfo(name=type(exc).__name__, message=str(exc) or repr(exc))
                await self._emit(FailedEvent(error, exc))
                return self._finish("failed", error=error, exception=exc)
            message = AssistantMessage(
                text=response.text, tool_calls=unique_calls(response.tool_calls)
            )
            self._prompt.items.append(message)
            self._prompt.items.extend(
                ToolCall(id=c.id, name=c.name, input=c.input) for c in message.tool_calls
            )
            await self._emit(MessageEvent(message))

    async def _complete(self) -> AgentRunResult:
        result = self._finish("completed")
        await self._emit(CompletedEvent(result))
        return result

    def _finish(
        self,
        status: RunStatus,
        *,
        error: ErrorInfo | None = None,
        exception: BaseException | None = None,
    ) -> AgentRunResult:
        return AgentRunResult(
            status=status,
            prompt=self._prompt,
            pending=self.pending if status == "interrupted" else (),
            error=error,
            exception=exception,
        )

    async def _ask_model(self) -> ModelResponse:
        request = ModelRequest(
            instructions=self._prompt.instructions,
            items=self._prompt.snapshot(),
            actions=self.agent.action_specs,
        )

        async def on_text(text: str) -> None:
            await self._emit(TextDeltaEvent(text))

        return checked_response(await ask_model(self.agent.model, request, on_text))

    @property
    def result(self) -> AgentRunResult | None:
        """What the latest `run()`, `resume()` or `reject()` returned (None before any)."""
        return self._result

    async def wait(self) -> AgentRunResult:
        """Wait until the run stops executing (a background start, or an answer given in
        the view), then return its latest result::

            run = agent.start("Refund order 42")
            result = await run.wait()     # e.g. status "interrupted"
        """
        # Polling, not an asyncio.Event: a run may move between loops (run_sync).
        while self._busy or (self._task is not None and not self._task.done()):  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        return self._current_result()

    def __repr__(self) -> str:
        return f"<AgentRun {self.id} {self.state.status}>"
