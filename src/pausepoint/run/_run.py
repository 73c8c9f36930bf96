"""`AgentRun`: the loop that asks the model, runs actions and pauses for people."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel

from .._json import check_text, to_json_value
from .._workers import is_alive
from ..actions import Rejection
from ..errors import (
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    MaxTurnsExceededError,
    NoPendingInterruptError,
    ResumeBatchError,
    RunBusyError,
    RunStateError,
    RunSuspendedError,
    UnknownInterruptError,
    UsageError,
)
from ..interrupts._answers import accept_answer, as_error_info
from ..models import ModelRequest, ModelResponse, checked_response
from ..store import LeaseLostError, RunStore, RunWriter, StoreConflictError, StoreError
from ..transcript import (
    AssistantMessage,
    Cancellation,
    ErrorInfo,
    InterruptEntry,
    ModelCall,
    ModelPause,
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
from ._cancel import cancel_open_calls, run_cancelled_error
from ._claims import claim, held, release
from ._debug import Breakpoint, Debugger
from ._durable import DEFAULT_LEASE_TTL, Durable, owner_name
from ._events import (
    CancelledEvent,
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
    ToolCallFinishedEvent,
)
from ._execute import ToolRunner, needs_work
from ._notebook import InNotebook
from ._result import AgentRunResult, RunStatus
from ._state import Interrupted, PendingInterrupt, RunState, derive_state
from ._turn import ask_model, unique_calls

__all__ = ["AgentRun"]

logger = logging.getLogger("pausepoint")

Answer = tuple[ToolCall, InterruptEntry, Resolution]
OnRecorded = Callable[[], object]


class AgentRun(InNotebook):
    """One conversation of an agent, suspended and resumed as people answer.

    All of the run's state lives in `prompt`; `state` is derived from it. Save the prompt
    as JSON and a new `AgentRun` over it (in a new process, with a new `Agent`) continues
    exactly where this one stopped::

        run = AgentRun(agent, Prompt.from_user("Delete record 7"))
        result = await run.run()            # status "interrupted": nothing raised
        result = await run.resume({"approved": True})

    `await run.cancel()` (or `run.cancel_threadsafe()` from any thread) stops it; one
    run id has one executor per process, so a second object over the same Prompt gets
    `RunBusyError` while this one executes.
    """

    def __init__(
        self,
        agent: Agent,
        prompt: Prompt | str,
        *,
        store: RunStore | None = None,
        lease_ttl: float | None = None,
        _writer: RunWriter | None = None,
        step: bool = False,
        breakpoints: Iterable[Breakpoint] = (),
    ) -> None:
        if isinstance(prompt, str):
            prompt = Prompt.from_user(prompt)
        if prompt.instructions is None:
            prompt.instructions = agent.instructions
        self.agent = agent
        self._prompt = prompt
        # A run attached to a store saves every change as it happens (see _durable).
        self._durable: Durable | None = None
        if store is not None or _writer is not None:
            if _writer is None:
                assert store is not None
                # A fork starts out waiting on the pause it was forked at.
                waiting = isinstance(derive_state(prompt, agent.input_schemas), Interrupted)
                parent = prompt.parent
                _writer = RunWriter.create(
                    store,
                    prompt,
                    status="interrupted" if waiting else "ready",
                    agent=agent.name,
                    parent_run_id=parent.run_id if parent else None,
                    parent_interrupt_id=parent.interrupt_id if parent else None,
                )
            ttl = lease_ttl or agent.lease_ttl or DEFAULT_LEASE_TTL
            self._durable = Durable(_writer, owner=owner_name(self), ttl=ttl)
        self._events = Events()
        self._busy = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._result: AgentRunResult | None = None
        # What executes right now (the stretch's task, on its loop), for cancel() from any
        # thread; the lock makes the pair read as one.
        self._lock = threading.Lock()
        self._executing: tuple[asyncio.AbstractEventLoop, asyncio.Task[AgentRunResult]] | None
        self._executing = None
        self._cancel_request: Cancellation | None = None
        self._cancel_waiters: list[Future[AgentRunResult | None]] = []
        self._children: list[asyncio.Task[None]] = []
        # Pydantic classes of answers awaited by this process; after a restore the JSON
        # Schema recorded in the entry is used instead.
        self._response_models: dict[str, type[BaseModel]] = {}
        self._tools = ToolRunner(
            actions=agent.actions,
            prompt=prompt,
            emit=self._emit,
            response_models=self._response_models,
            default_timeout=agent.action_timeout,
            checkpoint=self._checkpoint,
        )
        self._debug = Debugger(self, step=step, breakpoints=breakpoints)
        self._tools.debugger = self._debug
        self._model_released = False  # a model pause was answered: ask the model once
        self.forks: list[AgentRun] = []
        """The runs made from this one by `fork()`, in this process, oldest first."""

    @classmethod
    def load(
        cls, store: RunStore, run_id: str, agent: Agent, *, lease_ttl: float | None = None
    ) -> AgentRun:
        """Rebuild a stored run (`RunNotFoundError` for an unknown id): same state,
        answerable, and still attached to `store`. A run that was cut short by a crash
        continues from its last saved step with `run()`."""
        writer, prompt = RunWriter.load(store, run_id)
        return cls(agent, prompt, lease_ttl=lease_ttl, _writer=writer)

    @property
    def store(self) -> RunStore | None:
        """The store this run saves to (None: the run lives in memory only)."""
        return self._durable.store if self._durable is not None else None

    def _checkpoint(self, status: str = "running") -> None:
        if self._durable is not None:
            self._durable.save(self._prompt, status)

    # -- what the run is -------------------------------------------------------------

    @property
    def debug(self) -> Debugger:
        """Stepping, breakpoints and the answers to a breakpoint pause (see `Debugger`)."""
        return self._debug

    def model_request(self, turn: int) -> ModelRequest:
        """What the model was sent for assistant turn `turn` (0 = the first), rebuilt from
        the transcript: the instructions, the items before that turn, the action specs."""
        from ._history import model_request

        return model_request(self._prompt, turn, self.agent.action_specs)

    def fork(self, *, at: str) -> AgentRun:
        """A new run whose transcript is this one's up to interrupt `at`, with that pause
        open again so it can be answered differently. This run is unchanged; the new one
        records its parent in `prompt.parent` and is listed in `forks`. No turn before the
        fork point is asked of the model again."""
        from ._history import fork_prompt

        child = AgentRun(
            self.agent,
            fork_prompt(self._prompt, at),
            store=self.store,
            step=self._debug.stepping,
            breakpoints=self._debug.breakpoints,
        )
        self.forks.append(child)
        return child

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
        """True while the run is executing (asking the model or running actions), by this
        object or by another `AgentRun` over the same run id in this process."""
        return self._busy or held(self.id)

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

    async def run(
        self, message: str | None = None, *, max_turns: int | None = None
    ) -> AgentRunResult:
        """Continue the run until it completes, pauses, fails or is cancelled.

        `message` appends a user message first (a follow-up to a completed run). Raises
        `RunSuspendedError` while an interrupt waits for an answer, changing nothing.
        Interrupts whose `expires_at` passed are declined as expired, and the run goes on.
        `max_turns` overrides the agent's allowance of model requests for this stretch
        (to continue a run that failed with `MaxTurnsExceededError`).
        """
        if message is not None:
            message = check_text(message, "The message")
        if max_turns is not None and not (isinstance(max_turns, int) and max_turns > 0):
            raise UsageError(f"max_turns must be a positive int, not {max_turns!r}.")
        with self._busy_guard():
            if self._prompt.model_pause is not None:
                self._prompt.model_pause = None  # run() goes on past a model pause
                self._model_released = True
            pending = self._prompt.pending()
            now = utc_now()
            waiting = [e for _, e in pending if e.expires_at is None or e.expires_at > now]
            if waiting:
                ids = ", ".join(e.id for e in waiting)
                raise RunSuspendedError(
                    f"The run waits on {len(waiting)} interrupt(s) ({ids}). Answer with "
                    "run.resume(data) or run.reject(reason) before calling run() again."
                )
            expired: list[Answer] = [
                (record, entry, RejectResolution(error=_expired(entry)))
                for record, entry in pending
            ]
            return await self._record_and_continue(expired, message=message, max_turns=max_turns)

    async def resume(
        self,
        data: Any = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
    ) -> AgentRunResult:
        """Answer a pending interrupt and re-run its action with `ctx.resumption.data = data`.

        `interrupt` picks the entry by id; leave it out when exactly one is pending. For a
        tool approval, `data` is `True`, `False`, or `{"approved": ..., "editedArgs": {...}}`.
        The answer is recorded before the action re-runs (`on_recorded()` is called then,
        on the run's loop: what a UI needs to acknowledge the answer at once). A refused
        answer records nothing.
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
            answer = (record, entry, ResumeResolution(data=value))
            return await self._record_and_continue([answer], on_recorded=on_recorded)

    async def reject(
        self,
        error: Rejection | ErrorInfo | str | dict[str, Any] | None = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
    ) -> AgentRunResult:
        """Decline a pending interrupt. The action is not re-run; the model sees `error`."""
        record, entry = self._target(interrupt)
        with self._busy_guard():
            self._check_open(entry)
            answer = (record, entry, RejectResolution(error=as_error_info(error)))
            return await self._record_and_continue([answer], on_recorded=on_recorded)

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
            answers: list[Answer] = []
            for item in items:
                found = self._prompt.find_interrupt(item["interruptId"])
                assert found is not None  # checked above
                resolution: Resolution
                if item["status"] == "resolved":
                    data = to_json_value(item.get("payload"), "payload")
                    resolution = ResumeResolution(data=data)
                else:
                    resolution = RejectResolution(error=cancellation(item))
                answers.append((*found, resolution))
            return await self._record_and_continue(answers)

    async def cancel(self, reason: str | None = None) -> AgentRunResult | None:
        """Stop the run: from its own loop, another loop, or (awaited there) any thread.

        The run ends with status `cancelled`; calls that were in flight are recorded as
        `cancelled` (with who and why) and are never started again: continuing the run
        shows the model they were cancelled. `run_finished` fires and `result` / `wait()`
        report the cancelled result, which this returns once the run has stopped. A run
        that is not executing is left as it is (this returns its latest result).
        """
        return await asyncio.wrap_future(self.cancel_threadsafe(reason))

    def cancel_threadsafe(self, reason: str | None = None) -> Future[AgentRunResult | None]:
        """`cancel()` for code without a loop of its own (widget handlers, other threads):
        asks the run's loop to stop the run and returns at once. The returned
        `concurrent.futures.Future` completes with the run's result once it has stopped.
        """
        done: Future[AgentRunResult | None] = Future()
        with self._lock:
            loop = self._executing[0] if self._executing is not None else self._loop
        if loop is None or loop.is_closed() or not loop.is_running():
            done.set_result(self._result)  # nothing can be executing
            return done

        def stop() -> None:  # on the run's loop, between two steps of the run
            if not self._busy:
                done.set_result(self._result)
                return
            if self._cancel_request is None:
                self._cancel_request = Cancellation(by="user", reason=reason)
            self._cancel_waiters.append(done)
            if self._executing is not None:
                self._executing[1].cancel()
            # else: between an answer and its stretch; the stretch stops as it starts.

        try:
            loop.call_soon_threadsafe(stop)
        except RuntimeError:  # the loop closed: nothing executes there any more
            done.set_result(self._result)
        return done

    def agui_interrupts(self) -> list[dict[str, Any]]:
        """The pending interrupts as AG-UI `Interrupt` wire dicts, bound for TanStack AI."""
        return [p.to_agui() for p in self.pending]

    # -- internals -------------------------------------------------------------------

    def _current_result(self) -> AgentRunResult:
        if self._result is not None:
            return self._result
        # A run rebuilt from a saved Prompt: its transcript says where it stands.
        if self._prompt.model_pause is not None:
            return self._finish("paused")
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
        if not pending and self.busy:
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

    @contextmanager
    def _busy_guard(self) -> Iterator[None]:
        claim(self.id, self)
        try:
            self._refuse_live_threads()
            self._loop = asyncio.get_running_loop()
            self._busy = True
            yield
        finally:
            self._busy = False
            release(self.id, self)
            # A Stop that came while a refused call held the run: nothing was running.
            self._cancel_request = None
            self._answer_cancel_waiters()

    def _answer_cancel_waiters(self) -> None:
        waiters, self._cancel_waiters = self._cancel_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(self._result)

    def _refuse_live_threads(self) -> None:
        _, records = self._prompt.current_turn()
        for record in records:
            if needs_work(record) and is_alive((self.id, record.id)):
                raise RunBusyError(
                    f"Tool call {record.id!r} ({record.name}) is still executing in a "
                    "worker thread from an earlier, stopped execution; it is not started "
                    "twice. Wait for it to return, then continue the run."
                )

    async def _pass_model_pause(self, on_recorded: OnRecorded | None = None) -> AgentRunResult:
        """Answer a stepping run's pause before the model: ask it, and go on."""
        with self._busy_guard():
            if self._prompt.model_pause is None:
                raise NoPendingInterruptError(
                    "The run is not paused before a model request; check run.result.status."
                )
            self._prompt.model_pause = None
            self._model_released = True
            return await self._record_and_continue([], on_recorded=on_recorded)

    async def _emit(self, event: Event) -> None:
        await self._events.emit(event)

    async def _record_and_continue(
        self,
        answers: list[Answer],
        *,
        message: str | None = None,
        max_turns: int | None = None,
        on_recorded: OnRecorded | None = None,
    ) -> AgentRunResult:
        """The one way answers enter the run (resume, reject, a batch, expiry): write
        each resolution (durably, for a stored run), tell whoever asked, and continue."""
        if self._durable is not None:
            self._durable.hold()
        for _, entry, resolution in answers:
            entry.resolution = resolution
        if message is not None:
            self._prompt.items.append(UserMessage(text=message))
        if self._durable is not None:
            try:
                self._durable.save(self._prompt, "running")
            except StoreError as exc:
                self._unrecord(answers, message, exc)
                raise
        for record, entry, resolution in answers:
            if entry.kind == "breakpoint" and isinstance(resolution, ResumeResolution):
                self._debug.answered(resolution.data)
            self._response_models.pop(entry.id, None)
            await self._emit(ResolvedEvent(record, entry, resolution))
        if on_recorded is not None:
            on_recorded()
        return await self._advance(max_turns)

    def _unrecord(self, answers: list[Answer], message: str | None, exc: StoreError) -> None:
        """The store refused the answers: take them back, so the transcript is as it
        was, and say why (another writer's answer to the same entry, a lost lease)."""
        for _, entry, _ in answers:
            entry.resolution = None
        if message is not None:
            self._prompt.items.pop()
        assert self._durable is not None
        self._durable.let_go()
        if not isinstance(exc, StoreConflictError | LeaseLostError):
            return
        self._durable.reload(self._prompt)
        self._result = None
        for _, entry, _ in answers:
            found = self._prompt.find_interrupt(entry.id)
            if found is not None and not found[1].is_pending:
                raise InterruptAlreadyResolvedError(
                    f"Interrupt {entry.id!r} was answered by another writer of the store "
                    "first; this answer was not recorded. The run now shows the stored "
                    "state: check run.state."
                ) from exc

    async def _advance(self, max_turns: int | None = None) -> AgentRunResult:
        """One stretch of the run, in a task of its own so that `cancel()` stops exactly
        it. However it ends, `result` is current and `run_finished` fires."""
        durable = self._durable
        renewal: asyncio.Task[None] | None = None
        if durable is not None:
            durable.hold()
            renewal = asyncio.get_running_loop().create_task(durable.keep_alive())
        try:
            return await self._advance_stretch(max_turns)
        finally:
            if renewal is not None:
                renewal.cancel()
            if durable is not None:
                durable.let_go()

    def _save_outcome(self, result: AgentRunResult) -> AgentRunResult:
        """The stretch's last save, with its final status; a refused save fails the run
        (its outcome is not durable: another writer took the run over)."""
        if self._durable is None:
            return result
        try:
            self._durable.save(self._prompt, result.status)
        except StoreError as exc:
            logger.error("Could not save the outcome of run %s", self.id, exc_info=exc)
            error = ErrorInfo(name=type(exc).__name__, message=str(exc))
            return self._finish("failed", error=error, exception=exc)
        return result

    async def _advance_stretch(self, max_turns: int | None) -> AgentRunResult:
        loop = asyncio.get_running_loop()
        self._loop = loop
        task = loop.create_task(self._advance_until_stop(max_turns or self.agent.max_turns))
        with self._lock:
            self._executing = (loop, task)
        if self._cancel_request is not None:
            task.cancel()  # Stop came between the answer and this stretch
        outer = asyncio.current_task()
        reraise: BaseException | None = None
        try:
            result = await task
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            if isinstance(exc, KeyboardInterrupt) or (outer is not None and outer.cancelling()):
                reraise = exc  # the task (or the kernel) asked to stop: the caller must see it
            cancellation = self._cancel_request or Cancellation(
                by="interrupt",
                reason="KeyboardInterrupt" if isinstance(exc, KeyboardInterrupt) else None,
            )
            result = await self._stop(task, cancellation)
        except Exception as exc:
            logger.error("The run stopped on an internal error", exc_info=exc)
            error = ErrorInfo(name=type(exc).__name__, message=str(exc) or repr(exc))
            await self._emit(FailedEvent(error, exc))
            result = self._finish("failed", error=error, exception=exc)
        finally:
            with self._lock:
                self._executing = None
            self._cancel_request = None
        result = self._save_outcome(result)
        self._result = result
        await self._emit(RunFinishedEvent(result))
        self._answer_cancel_waiters()
        if reraise is not None:
            raise reraise
        return result

    async def _stop(
        self, task: asyncio.Task[AgentRunResult], cancellation: Cancellation
    ) -> AgentRunResult:
        """Record a cancelled stretch: calls in flight (or not yet started) become
        `cancelled`, and are never started again."""
        task.cancel()
        children, self._children = self._children, []
        for child in children:
            child.cancel()
        await asyncio.gather(task, *children, return_exceptions=True)
        for record in cancel_open_calls(self._prompt, cancellation):
            await self._emit(ToolCallFinishedEvent(record))
        error = run_cancelled_error(cancellation)
        result = self._finish("cancelled", error=error)
        await self._emit(CancelledEvent(cancellation, result))
        return result

    async def _advance_until_stop(self, max_turns: int) -> AgentRunResult:
        await self._emit(RunStartedEvent(self.id))
        turns = 0
        while True:
            assistant, records = self._prompt.current_turn()
            open_records = [r for r in records if needs_work(r)]
            if len(open_records) == 1:  # the common case, without a task per call
                await self._tools.execute(open_records[0])
                continue
            if open_records:
                self._children = [
                    asyncio.ensure_future(self._tools.execute(r)) for r in open_records
                ]
                await asyncio.gather(*self._children)
                self._children = []
                continue
            if any(r.pending_interrupt is not None for r in records):
                return self._finish("interrupted")
            if assistant is not None and not assistant.tool_calls:
                return await self._complete()
            if turns >= max_turns:
                limit = MaxTurnsExceededError(max_turns)
                error = ErrorInfo(name=type(limit).__name__, message=str(limit))
                await self._emit(FailedEvent(error, limit))
                return self._finish("failed", error=error, exception=limit)
            if self._debug.stepping and not self._model_released:
                self._prompt.model_pause = ModelPause()
                return self._finish("paused")
            self._model_released = False
            turns += 1
            started = utc_now()
            try:
                response = await self._ask_model()
            except Exception as exc:
                error = ErrorInfo(name=type(exc).__name__, message=str(exc) or repr(exc))
                await self._emit(FailedEvent(error, exc))
                return self._finish("failed", error=error, exception=exc)
            call = ModelCall(
                model=_model_name(self.agent.model),
                started_at=started,
                ended_at=utc_now(),
                usage=response.usage,
                finish_reason=response.finish_reason,
            )
            message = AssistantMessage(
                text=response.text, tool_calls=unique_calls(response.tool_calls), call=call
            )
            self._prompt.items.append(message)
            self._prompt.items.extend(
                ToolCall(id=c.id, name=c.name, input=c.input) for c in message.tool_calls
            )
            self._checkpoint()
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

        return checked_response(
            await ask_model(self.agent.model, request, on_text, self.agent.model_timeout)
        )

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


def _model_name(model: object) -> str:
    name = getattr(model, "model", None)
    return name if isinstance(name, str) else type(model).__name__


def _expired(entry: InterruptEntry) -> ErrorInfo:
    return ErrorInfo(
        name="InterruptExpired",
        message=f"Nobody answered before the interrupt expired ({entry.expires_at}).",
    )
