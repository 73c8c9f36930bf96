"""Answering: the one way answers enter a run.

`resume`, `reject`, an AG-UI batch, the expiry declines of `run()` and a pause before the
model all pass here: pick the entry, check the answer, write it into the transcript
(durably, for a stored run), tell whoever asked, and hand over to a new stretch. When the
store refuses the write, the answer is taken back and the transcript is as it was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, NoReturn

from pydantic import BaseModel

from .._json import check_text, to_json_value
from ..actions import Rejection
from ..errors import (
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    NoPendingInterruptError,
    ResumeBatchError,
    RunBusyError,
    RunSuspendedError,
    UnknownInterruptError,
    UsageError,
)
from ..store import LeaseLostError, StoreConflictError, StoreError
from ..transcript import (
    AnsweredBy,
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
from ..transcript.decisions import respond_answer
from ._accept import accept_answer, as_error_info
from ._batch import cancellation, check_batch, is_replay, wire_entries
from ._claims import held
from ._events import Event, ResolvedEvent, SetAsideEvent
from ._result import AgentRunResult
from ._stretch import Stretch
from ._turn import Turn, turn_to_retry

# Who answers by clicking: their answer waits for a call in progress instead of being refused.
_PEOPLE: frozenset[AnsweredBy] = frozenset({"view", "inbox"})

if TYPE_CHECKING:
    from ._agent import Agent
    from ._debug import Debugger

__all__ = ["Answer", "Answering", "OnRecorded", "response_to", "response_words"]

Answer = tuple[ToolCall, InterruptEntry, Resolution]
OnRecorded = Callable[[], object]

# How long an answer that finds the run leased waits to see whether the holder was
# recording an answer to the same entry (then this one lost the race to it).
_RACE_WAIT = 0.5
_RACE_POLL = 0.02


class Answering:
    """Takes answers into one run (see the module)."""

    def __init__(
        self,
        *,
        agent: Agent,
        prompt: Prompt,
        stretch: Stretch,
        turn: Turn,
        debugger: Debugger,
        response_models: dict[str, type[BaseModel]],
        emit: Callable[[Event], Any],
    ) -> None:
        self._agent = agent
        self._prompt = prompt
        self._stretch = stretch
        self._turn = turn
        self._debugger = debugger
        self._response_models = response_models
        self._emit = emit

    # -- the ways in -------------------------------------------------------------------

    async def run(
        self,
        message: str | None,
        max_turns: int | None,
        on_recorded: OnRecorded | None = None,
    ) -> AgentRunResult:
        with self._stretch.guard():
            if self._prompt.model_pause is not None:
                self._prompt.model_pause = None  # run() goes on past a model pause
                self._turn.released = True
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
            return await self.record(
                expired, message=message, max_turns=max_turns, on_recorded=on_recorded
            )

    async def retry(
        self, max_turns: int | None, on_recorded: OnRecorded | None, by: AnsweredBy
    ) -> AgentRunResult:
        with self._stretch.guard():
            pending = self._prompt.pending()
            if pending:
                ids = ", ".join(e.id for _, e in pending)
                raise RunSuspendedError(
                    f"The run waits on {len(pending)} interrupt(s) ({ids}); Retry asks the "
                    "model again once nothing waits. Answer them first (or call run() to "
                    "decline those that expired)."
                )
            if self._prompt.model_pause is not None:
                self._prompt.model_pause = None
                self._turn.released = True
            return await self.record(
                [],
                max_turns=max_turns,
                on_recorded=on_recorded,
                set_aside=(turn_to_retry(self._prompt), by),
            )

    async def resume(
        self,
        data: Any,
        interrupt: str | None,
        on_recorded: OnRecorded | None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        def resolution(record: ToolCall, entry: InterruptEntry) -> Resolution:
            value = accept_answer(
                entry,
                data,
                action=self._agent.actions.get(record.name),
                response_model=self._response_models.get(entry.id),
                max_bytes=self._agent.max_answer_bytes,
            )
            return ResumeResolution(data=value, by=by)

        return await self._answer_one(interrupt, resolution, on_recorded, continue_run, by)

    async def reject(
        self,
        error: Rejection | ErrorInfo | str | dict[str, Any] | None,
        interrupt: str | None,
        on_recorded: OnRecorded | None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        def resolution(_: ToolCall, __: InterruptEntry) -> Resolution:
            reason = as_error_info(error, max_bytes=self._agent.max_answer_bytes)
            return RejectResolution(error=reason, by=by)

        return await self._answer_one(interrupt, resolution, on_recorded, continue_run, by)

    async def _answer_one(
        self,
        interrupt: str | None,
        resolution: Callable[[ToolCall, InterruptEntry], Resolution],
        on_recorded: OnRecorded | None,
        continue_run: bool,
        by: AnsweredBy,
    ) -> AgentRunResult:
        """Pick the entry, hold it, build its checked resolution (raising records
        nothing), then record it and continue (or leave the run for later)."""
        record, entry = self.target(interrupt)
        with ExitStack() as claimed:
            await self._claim(claimed, entry, by)
            answer = (record, entry, resolution(record, entry))
            return await self.record([answer], on_recorded=on_recorded, continue_run=continue_run)

    async def respond(
        self,
        words: str,
        interrupt: str | None,
        on_recorded: OnRecorded | None,
        by: AnsweredBy = "code",
        continue_run: bool = True,
    ) -> AgentRunResult:
        words = response_words(words)
        _, entry = self.target(interrupt)
        answer = response_to(entry, words)
        return await self.resume(answer, entry.id, on_recorded, by, continue_run)

    async def batch(
        self, entries: Iterable[Mapping[str, Any] | BaseModel], parent_run_id: str | None = None
    ) -> AgentRunResult:
        items = wire_entries(entries)
        with self._stretch.guard():
            if is_replay(self._prompt, items):
                if self._stretch.result is not None:
                    return self._stretch.result
                return await self._stretch.advance()  # rebuilt here: go on from where it stands
            errors = check_batch(
                self._prompt,
                items,
                actions=self._agent.actions,
                response_model=self._response_models.get,
                now=utc_now(),
                max_answer_bytes=self._agent.max_answer_bytes,
                parent_run_id=parent_run_id,
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
                    resolution = ResumeResolution(data=data, by="agui")
                else:
                    resolution = RejectResolution(error=cancellation(item), by="agui")
                answers.append((*found, resolution))
            return await self.record(answers)

    async def pass_model_pause(self, on_recorded: OnRecorded | None) -> AgentRunResult:
        with self._stretch.guard():
            if self._prompt.model_pause is None:
                raise NoPendingInterruptError(
                    "The run is not paused before a model request; check run.result.status."
                )
            self._prompt.model_pause = None
            self._turn.released = True
            return await self.record([], on_recorded=on_recorded)

    # -- picking and checking ------------------------------------------------------------

    def target(self, interrupt_id: str | None) -> tuple[ToolCall, InterruptEntry]:
        """The entry an answer is for: by id, or the only pending one."""
        prompt = self._prompt
        if interrupt_id is not None:
            found = prompt.find_interrupt(interrupt_id)
            if found is None:
                raise UnknownInterruptError(
                    f"This run has no interrupt {interrupt_id!r}. Pending: "
                    f"{[e.id for _, e in prompt.pending()] or 'none'}."
                )
            if not found[1].is_pending:
                raise InterruptAlreadyResolvedError(
                    f"Interrupt {interrupt_id!r} was already answered "
                    f"({found[1].resolution.type if found[1].resolution else ''}); "
                    "nothing was changed."
                )
            return found
        pending = prompt.pending()
        if not pending and (self._stretch.busy or held(prompt.run_id)):
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

    async def _claim(
        self, claimed: ExitStack, entry: InterruptEntry, by: AnsweredBy = "code"
    ) -> None:
        """Claim the run to answer `entry`; refuse an expired entry. When another object
        holds the run, its answer to this same entry may be what this one lost to. A
        person's answer (the view, the inbox) to a run this object is executing waits
        for that call to return: two cards clicked one after the other both count."""
        while True:
            try:
                claimed.enter_context(self._stretch.guard())
                break
            except RunBusyError as busy:
                if self._stretch.busy and by in _PEOPLE:
                    await self._stretch.free()
                    if not entry.is_pending:
                        raise InterruptAlreadyResolvedError(
                            f"Interrupt {entry.id!r} was answered while this answer waited "
                            "for the run; the first answer stands."
                        ) from None
                    continue
                if self._stretch.busy or not held(self._prompt.run_id):
                    raise  # this object executes the run, or a call of an earlier stretch does
                await self._lost_race([entry], busy)
        if entry.expires_at is not None and entry.expires_at <= utc_now():
            raise InterruptExpiredError(
                f"Interrupt {entry.id!r} expired at {entry.expires_at.isoformat()}; it can no "
                "longer be answered. Call run() to continue; it is declined as expired."
            )

    # -- recording -------------------------------------------------------------------------

    async def record(
        self,
        answers: list[Answer],
        *,
        message: str | None = None,
        max_turns: int | None = None,
        on_recorded: OnRecorded | None = None,
        set_aside: tuple[AssistantMessage | None, AnsweredBy] = (None, "code"),
        continue_run: bool = True,
    ) -> AgentRunResult:
        """Write each resolution, the user's `message` and a turn `set_aside` by Retry
        (durably, for a stored run), tell whoever asked, and continue in a new stretch.

        Without `continue_run`, nothing executes: the commit that records the answers
        also sets the stored status to where the run now stands (`idle`: a `Worker` or
        `run()` continues it; `interrupted` while other entries wait) and ends the lease."""
        durable = self._stretch.durable
        if durable is not None:
            try:
                await durable.take()
            except RunBusyError as busy:
                await self._lost_race([entry for _, entry, _ in answers], busy)
        for _, entry, resolution in answers:
            entry.resolution = resolution
        if message is not None:
            self._prompt.items.append(UserMessage(text=message))
        aside, by = set_aside
        changed: tuple[int, ...] = ()
        if aside is not None:
            self._prompt.set_aside(aside, by)
            changed = (_position(self._prompt, aside),)
        left: AgentRunResult | None = None
        if not continue_run:
            left = self._left_for_later()
        if durable is not None:
            status = self._stretch.status if left is None else left.status
            try:
                await durable.commit(self._prompt, status, changed, release=left is not None)
            except StoreError as exc:
                if aside is not None:
                    self._prompt.take_back_set_aside(aside)
                self._take_back(answers, message, exc)
                raise
        for record, entry, resolution in answers:
            if entry.kind == "breakpoint" and isinstance(resolution, ResumeResolution):
                self._debugger.answered(resolution.data)
            self._response_models.pop(entry.id, None)
            await self._emit(ResolvedEvent(record, entry, resolution))
        if aside is not None:
            await self._emit(SetAsideEvent(aside, changed[0]))
        if on_recorded is not None:
            on_recorded()
        if left is not None:
            self._stretch.result = left
            return left
        return await self._stretch.advance(max_turns)

    def _left_for_later(self) -> AgentRunResult:
        """Where the answered run stands when it is not continued here: still
        `interrupted` while entries wait, else `idle` (continued by `run()` or a worker)."""
        pending = self._prompt.pending()
        if pending:
            # Built by the stretch, with the pending entries as the run reports them.
            previous, self._stretch.result = self._stretch.result, None
            try:
                return self._stretch.current_result()
            finally:
                self._stretch.result = previous
        return AgentRunResult(status="idle", prompt=self._prompt)

    def _take_back(self, answers: list[Answer], message: str | None, exc: StoreError) -> None:
        """The store refused the answers: take them back, so the transcript is as it
        was, and say why (another writer's answer to the same entry, a lost lease)."""
        for _, entry, _ in answers:
            entry.resolution = None
        if message is not None:
            self._prompt.items.pop()
        durable = self._stretch.durable
        assert durable is not None
        durable.let_go()
        if isinstance(exc, StoreConflictError | LeaseLostError):
            self._reload_and_check([entry for _, entry, _ in answers], exc)

    async def _lost_race(self, entries: list[InterruptEntry], busy: RunBusyError) -> NoReturn:
        """Another writer holds the run. If it is recording an answer to one of `entries`
        (it may be between taking the lease and writing), this answer lost the race to
        it: `InterruptAlreadyResolvedError`. Otherwise the run is just busy."""
        durable = self._stretch.durable
        if durable is None or not entries:
            raise busy
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _RACE_WAIT
        # The holder's first write after taking the run is the answer it records.
        while not durable.moved_on():
            if loop.time() >= deadline:
                raise busy
            await asyncio.sleep(_RACE_POLL)
        self._reload_and_check(entries, busy)
        raise busy

    def _reload_and_check(self, entries: list[InterruptEntry], cause: Exception) -> None:
        """Show the stored run, and raise if another writer answered one of `entries`."""
        durable = self._stretch.durable
        assert durable is not None
        durable.reload(self._prompt)
        self._stretch.result = None
        for entry in entries:
            found = self._prompt.find_interrupt(entry.id)
            if found is not None and not found[1].is_pending:
                raise InterruptAlreadyResolvedError(
                    f"Interrupt {entry.id!r} was answered by another writer of the store "
                    "first; this answer was not recorded. The run now shows the stored "
                    "state: check run.state."
                ) from cause


def _position(prompt: Prompt, message: AssistantMessage) -> int:
    """Where `message` is in the transcript (a turn Retry sets aside: near the end)."""
    position = len(prompt.items) - 1
    while prompt.items[position] is not message:
        position -= 1
    return position


def _expired(entry: InterruptEntry) -> ErrorInfo:
    return ErrorInfo(
        name="InterruptExpired",
        message=f"Nobody answered before the interrupt expired ({entry.expires_at}).",
    )


def response_words(words: Any) -> str:
    """The words of a response (Respond), checked: text, and not blank."""
    text = check_text(words, "The response")
    if not text.strip():
        raise UsageError("A response needs words; to decline without any, use reject().")
    return text


def response_to(entry: InterruptEntry, words: str) -> dict[str, Any]:
    """The answer that responds to `entry` with `words`: only a tool approval takes one."""
    if entry.kind != "tool-approval":
        raise UsageError(
            f"respond() answers a tool approval; {entry.id!r} is a {entry.kind} pause. "
            "Answer it with resume(...) or reject(...)."
        )
    return respond_answer(words)
