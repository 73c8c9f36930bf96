"""`TemporalRun`: a Temporal-scheduled run attached in this kernel, for the notebook view.

    run = runner.attach(run_id, agent, store)
    run                        # the live view: its cards answered with clicks

The run is read from the store, where the workers write it; its answers (`resume`,
`reject`, `respond`, and so the view's buttons) go to its workflow as Workflow Updates,
checked by the run's own checks on a worker. After an answer the run follows the store
until the workers have carried it to its next pause or its end, and tells the view what
changed, so the cards and the transcript read as for a run executed here. What only the
executor of a run can do (run, Retry, Stop, forks, edits) is refused, saying so.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..errors import NoPendingInterruptError, UsageError
from ..run import (
    AgentRun,
    AgentRunResult,
    InterruptedEvent,
    MessageEvent,
    ResolvedEvent,
    RunFinishedEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from ..store import RunStore, RunWriter
from ..transcript import AssistantMessage, Prompt, ToolCall

if TYPE_CHECKING:
    from ..run import Agent, ModelTurn, OnRecorded, RunStatus
    from ..transcript import AnsweredBy
    from ._runner import TemporalRunner

__all__ = ["TemporalRun"]

FOLLOW_WITHIN = 600.0
"""How long an answer follows the store for the workers to carry the run on (s)."""
SETTLED = ("interrupted", "paused", "completed", "failed", "cancelled")
LACKS = (
    "Run {run_id} is executed by Temporal's workers: from here its pauses are answered "
    "(resume, reject, respond, or the view's cards); {what}"
)


class TemporalRun(AgentRun):
    """A run scheduled by Temporal (see `TemporalRunner.attach`), shown and answered here."""

    def __init__(self, runner: TemporalRunner, agent: Agent, store: RunStore, run_id: str) -> None:
        writer, prompt = RunWriter.load(store, run_id)
        super().__init__(agent, prompt, _writer=writer)
        self._known = len(prompt.items)
        self.runner = runner
        self._store = store
        self._stored = store.summary(run_id).status

    @property
    def status(self) -> RunStatus:
        if self._prompt.pending():
            return "interrupted"
        return self._stored  # type: ignore[return-value]

    # -- answers: Workflow Updates, then the store followed ------------------------------

    async def resume(
        self,
        data: Any = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        target = self._target(interrupt)
        await self.runner.resume(self.id, data, interrupt=target, by=by)
        return await self._carried(continue_run, on_recorded)

    async def reject(
        self,
        error: Any = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        target = self._target(interrupt)
        await self.runner.reject(self.id, _reason(error), interrupt=target, by=by)
        return await self._carried(continue_run, on_recorded)

    async def respond(
        self,
        words: str,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        target = self._target(interrupt)
        await self.runner.respond(self.id, words, interrupt=target, by=by)
        return await self._carried(continue_run, on_recorded)

    def _target(self, interrupt: str | None) -> str:
        pending = [p.id for p in self.pending]
        if interrupt is not None:
            return interrupt
        if len(pending) == 1:
            return pending[0]
        if not pending:
            raise NoPendingInterruptError(self.id)
        raise UsageError(
            f"Run {self.id} waits on {len(pending)} interrupts ({', '.join(pending)}): name "
            "the one you answer with interrupt=..."
        )

    async def _carried(self, follow: bool, on_recorded: OnRecorded | None) -> AgentRunResult:
        """Where the run stands once the answer is in the store: with `follow`, once the
        workers have carried it to its next pause or its end."""
        await self.refresh()
        if on_recorded is not None:
            on_recorded()
        if follow:
            await self.wait()
        return self._current()

    async def wait(self, within: float = FOLLOW_WITHIN) -> AgentRunResult:
        """Follow the store until the run waits for a person or has ended (at most
        `within` seconds), telling the view each change; its result then."""
        changes = self._store.changes()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            seen = changes.version()
            await self.refresh()
            left = deadline - loop.time()
            if self.status in SETTLED or left <= 0:
                return self._current()
            await changes.wait(seen, within=min(left, 1.0))

    async def refresh(self) -> None:
        """Read the run from the store again and tell the view what changed."""
        # The status first: the transcript read after it is at least as new.
        status = await asyncio.to_thread(lambda: self._store.summary(self.id).status)
        _, stored = await asyncio.to_thread(RunWriter.load, self._store, self.id)
        changed = self._take(stored)
        moved = status != self._stored
        self._stored = status
        for event in changed:
            await self._events.emit(event)
        if changed or moved:
            await self._events.emit(RunFinishedEvent(self._current()))

    def _take(self, stored: Prompt) -> list[Any]:
        """Bring this run's transcript to the stored one; the events that tell it."""
        items = self._prompt.items
        before = {item.id: item.model_copy() for item in items if isinstance(item, ToolCall)}
        events: list[Any] = []
        for position, item in enumerate(stored.items):
            if position < len(items):
                items[position] = item
            else:
                items.append(item)
            if isinstance(item, AssistantMessage) and position >= self._known:
                events.append(MessageEvent(item))
            if isinstance(item, ToolCall):
                old = before.get(item.id)
                if old is None:
                    events.append(ToolCallStartedEvent(item))
                for entry in item.interrupts[len(old.interrupts) if old else 0 :]:
                    events.append(InterruptedEvent(item, entry))
                if old is not None:
                    for entry, was in zip(item.interrupts, old.interrupts, strict=False):
                        if entry.resolution is not None and was.resolution is None:
                            events.append(ResolvedEvent(item, entry, entry.resolution))
                if item.status != "running" and (old is None or old.status != item.status):
                    events.append(ToolCallFinishedEvent(item))
        del items[len(stored.items) :]
        self._prompt.model_pause = stored.model_pause
        self._known = len(items)
        return events

    def _current(self) -> AgentRunResult:
        status = self.status
        if status not in SETTLED:
            status = "interrupted" if self._prompt.pending() else status
        end: Any = status if status in SETTLED else "completed"
        return self._stretch._outcomes.result(end)

    # -- what the executor does: refused here ---------------------------------------------

    def _lacks(self, what: str) -> UsageError:
        return UsageError(LACKS.format(run_id=self.id, what=what))

    async def run(
        self,
        message: str | None = None,
        *,
        max_turns: int | None = None,
        on_recorded: OnRecorded | None = None,
    ) -> AgentRunResult:
        raise self._lacks("they execute it. Start a new run for a new message.")

    async def retry(
        self,
        *,
        max_turns: int | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
    ) -> AgentRunResult:
        raise self._lacks("Retry is not offered here.")

    def fork(self, *, at: str | ModelTurn) -> Any:
        raise self._lacks("forks are made from runs executed here.")

    def edit_item(self, position: int, *, text: str = "", result: Any = None) -> None:
        raise self._lacks("its items cannot be edited.")

    def __repr__(self) -> str:
        return f"<TemporalRun {self.id} {self.status} (task queue {self.runner.task_queue})>"


def _reason(error: Any) -> str | None:
    """The words of a decline, however it was given (text, a `Rejection`, an error)."""
    if error is None or isinstance(error, str):
        return error
    if isinstance(error, dict):
        found = error.get("message") or error.get("reason")
        return None if found is None else str(found)
    found = getattr(error, "message", None)
    return None if found is None else str(found)
