"""`AgentRun`: one conversation of an agent, a facade over the parts that do its jobs.

`Answering` takes answers in, `Stretch` executes (task, cancel, lease, `run_finished`),
`Turn` decides and does the next step, `Outcomes` builds results and the one failure.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from .._json import check_text
from ..actions import Rejection
from ..errors import UsageError
from ..store import RunStore, RunWriter
from ..transcript import AnsweredBy, ErrorInfo, Prompt
from ._agent import Agent
from ._answering import OnRecorded
from ._claims import held
from ._debug import Breakpoint, Debugger
from ._events import EventHandler, EventName, Events
from ._history import RunHistory
from ._notebook import (
    REJECT_SYNC,
    RESPOND_SYNC,
    RESUME_SYNC,
    RETRY_SYNC,
    RUN_SYNC,
    InNotebook,
    blocking,
)
from ._parts import assemble, attach
from ._result import AgentRunResult, RunStatus
from ._state import Interrupted, PendingInterrupt, RunState, derive_state
from ._stopping import Stopping

__all__ = ["AgentRun", "OnRecorded"]


class AgentRun(InNotebook, Stopping, RunHistory):
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
        self._events = Events()
        parts = assemble(
            self,
            events=self._events,
            step=step,
            breakpoints=breakpoints,
            pending=lambda: self.pending,
            checkpoint=self._checkpoint,
        )
        self._debug, self._stretch, self._answers = parts.debugger, parts.stretch, parts.answers
        self.forks: list[AgentRun] = []
        """The runs made from this one by `fork()`, in this process, oldest first."""
        # A run attached to a store saves every change as it happens (see _durable).
        self._stretch.durable = attach(self, store, _writer, lease_ttl)

    @classmethod
    def load(
        cls, store: RunStore, run_id: str, agent: Agent, *, lease_ttl: float | None = None
    ) -> AgentRun:
        """Rebuild a stored run (`RunNotFoundError` for an unknown id): same state,
        answerable, and still attached to `store`. A run that was cut short by a crash
        continues from its last saved step with `run()`."""
        writer, prompt = RunWriter.load(store, run_id)
        return cls(agent, prompt, lease_ttl=lease_ttl, _writer=writer)

    async def _checkpoint(self) -> None:
        durable = self._stretch.durable
        if durable is not None:
            await durable.commit(self._prompt, self.status)

    # -- what the run is -------------------------------------------------------------

    @property
    def store(self) -> RunStore | None:
        """The store this run saves to (None: the run lives in memory only)."""
        durable = self._stretch.durable
        return durable.store if durable is not None else None

    @property
    def debug(self) -> Debugger:
        """Stepping, breakpoints and the answers to a breakpoint pause (see `Debugger`)."""
        return self._debug

    @property
    def prompt(self) -> Prompt:
        """The transcript: everything the run is. Save it with `model_dump_json()`."""
        return self._prompt

    @property
    def id(self) -> str:
        return self._prompt.run_id

    @property
    def status(self) -> RunStatus:
        """Where the run stands: `idle` (never run, or answered with `continue_run=False`
        and not continued yet), `running`, `paused` (stepping, before a model request),
        `interrupted` (waits on an answer), or how the latest stretch ended (`completed`,
        `failed`, `cancelled`). Settled before `run_finished` fires."""
        return self._stretch.status

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
        return self._stretch.busy or held(self.id)

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop the run last executed on; answers from other threads go there."""
        return self._stretch.loop

    @property
    def result(self) -> AgentRunResult | None:
        """What the latest `run()`, `resume()` or `reject()` returned (None before any)."""
        return self._stretch.result

    def on(self, name: EventName, handler: EventHandler) -> Callable[[], None]:
        """Call `handler(event)` on each `name` event (`"*"` for all); returns an unsubscriber.

        Handlers may be plain functions or coroutines. One that raises is logged and the
        run goes on.
        """
        return self._events.on(name, handler)

    # -- driving it ------------------------------------------------------------------

    async def run(
        self,
        message: str | None = None,
        *,
        max_turns: int | None = None,
        on_recorded: OnRecorded | None = None,
    ) -> AgentRunResult:
        """Continue the run until it completes, pauses, fails or is cancelled: the next
        turn of a conversation, or Continue after a stop or a failure.

        `message` appends a user message first (a follow-up to a completed run; the view's
        message box sends one); `on_recorded()` is called once it is in the transcript. Raises
        `RunSuspendedError` while an interrupt waits for an answer, changing nothing.
        Interrupts whose `expires_at` passed are declined as expired, and the run goes on.
        `max_turns` overrides the agent's allowance of model requests for this stretch
        (to continue a run that failed with `MaxTurnsExceededError`).
        """
        if message is not None:
            message = check_text(message, "The message")
        if max_turns is not None and not (isinstance(max_turns, int) and max_turns > 0):
            raise UsageError(f"max_turns must be a positive int, not {max_turns!r}.")
        return await self._answers.run(message, max_turns, on_recorded)

    async def retry(
        self,
        *,
        max_turns: int | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
    ) -> AgentRunResult:
        """Ask the model again for the turn that ended the run: after a stop, a failure,
        or an answer you want written again. A reply cut by Stop, a final answer, or a
        turn whose calls were stopped is set aside (kept in the transcript and the view,
        marked, never sent to the model again; actions that already ran are not undone);
        when the request for a new turn failed, it is simply asked again. Raises
        `RunSuspendedError` while an interrupt waits for an answer, changing nothing."""
        if max_turns is not None and not (isinstance(max_turns, int) and max_turns > 0):
            raise UsageError(f"max_turns must be a positive int, not {max_turns!r}.")
        return await self._answers.retry(max_turns, on_recorded, by)

    async def resume(
        self,
        data: Any = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        """Answer a pending interrupt and re-run its action with `ctx.resumption.data = data`.

        `interrupt` picks the entry by id; leave it out when exactly one is pending. For a
        tool approval, `data` is `True`, `False`, or `{"approved": ..., "editedArgs": {...}}`.
        The answer is recorded before the action re-runs (`on_recorded()` is called then,
        on the run's loop: what a UI needs to acknowledge the answer at once). A refused
        answer records nothing. `by` records who answered (the view and the inbox say so).

        `continue_run=False` records the answer (durably, for a stored run) and returns
        without running anything: the result is `idle` once nothing else waits (a
        `Worker` claims the stored run and continues it, or `run()` does here), else
        `interrupted`. The run's lease ends with that commit::

            await run.resume(True, continue_run=False)    # a worker takes it from here
        """
        return await self._answers.resume(data, interrupt, on_recorded, by, continue_run)

    async def reject(
        self,
        error: Rejection | ErrorInfo | str | dict[str, Any] | None = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        """Decline a pending interrupt. The action is not re-run; the model sees `error`
        (at most `agent.max_answer_bytes`, as any answer). `continue_run=False` records
        the decline and returns, as for `resume`."""
        return await self._answers.reject(error, interrupt, on_recorded, by, continue_run)

    async def respond(
        self,
        words: str,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        """Answer a tool approval with `words` instead of running the action: it does not
        run, and the model reads the words as the call's outcome (a response, not a
        rejection; the call's status is ``responded``). On the wire this is the approval's
        answer ``{"approved": false, "payload": {"response": words}}``::

            await run.respond("Refund half of it, and tell them why.")

        `continue_run=False` records the words and returns, as for `resume`."""
        return await self._answers.respond(words, interrupt, on_recorded, by, continue_run)

    async def continue_with(
        self,
        entries: Iterable[Mapping[str, Any] | BaseModel],
        *,
        parent_run_id: str | None = None,
    ) -> AgentRunResult:
        """Answer every pending interrupt at once, from AG-UI resume entries.

        Each entry is `{"interruptId", "status": "resolved" | "cancelled", "payload"?,
        "metadata"?}` (a dict or an `ag_ui.core.ResumeEntry`). `resolved` resumes with the
        payload, `cancelled` declines (the model sees `metadata["reason"]` when given,
        else "The user cancelled this interrupt."). The whole batch is checked first, and
        if any entry is refused, `ResumeBatchError` lists each problem with its code and
        nothing is applied. Sending the same batch again changes nothing.

        `parent_run_id` is the continuation's `parentRunId`: the AG-UI run whose pauses the
        entries answer. An entry for a pause that another AG-UI request carried is refused
        as ``stale`` (pauses raised outside any AG-UI request accept any parent).
        """
        return await self._answers.batch(entries, parent_run_id)

    async def pass_model_pause(self, on_recorded: OnRecorded | None = None) -> AgentRunResult:
        """Go on from a stepping run's pause before a model request: ask the model.
        (`run.debug.step()` / `continue_()` say whether to keep stepping.)"""
        return await self._answers.pass_model_pause(on_recorded)

    run_sync = blocking(run, RUN_SYNC)
    retry_sync = blocking(retry, RETRY_SYNC)
    resume_sync = blocking(resume, RESUME_SYNC)
    reject_sync = blocking(reject, REJECT_SYNC)
    respond_sync = blocking(respond, RESPOND_SYNC)

    def agui_interrupts(self) -> list[dict[str, Any]]:
        """The pending interrupts as AG-UI `Interrupt` wire dicts, bound for TanStack AI."""
        return [p.to_agui() for p in self.pending]

    def __repr__(self) -> str:
        return f"<AgentRun {self.id} {self.status}>"
