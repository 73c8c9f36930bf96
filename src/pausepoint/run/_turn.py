"""The turn: what the run does next, one step at a time, until it has to stop.

`next_turn_step` reads the transcript and says what comes next (run the calls that need
work, ask the model, or stop: waiting on people, completed, over the turn limit, paused
before the model); `Turn.until_stop` does it. As `next_step` is for one tool call, every
rule about where a stretch stops lives in that one function.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias

from ..errors import MaxTurnsExceededError
from ..models import (
    Model,
    ModelError,
    ModelRequest,
    ModelResponse,
    ModelTimeoutError,
    TextDelta,
    checked_response,
)
from ..transcript import (
    STOPPED_REASON,
    AssistantMessage,
    ModelCall,
    ModelPause,
    Prompt,
    ToolCall,
    ToolCallRequest,
    new_id,
    utc_now,
)
from ._events import Events, MessageEvent, RunStartedEvent, TextDeltaEvent
from ._outcome import Outcomes
from ._result import AgentRunResult
from ._steps import needs_work

if TYPE_CHECKING:
    from ._agent import Agent
    from ._debug import Debugger
    from ._execute import ToolRunner

__all__ = [
    "AskModel",
    "Complete",
    "ModelClock",
    "OverLimit",
    "PauseBeforeModel",
    "RunCalls",
    "Turn",
    "TurnStep",
    "WaitOnPeople",
    "ask_model",
    "next_turn_step",
    "turn_to_retry",
    "unique_calls",
]


@dataclass(frozen=True, slots=True)
class RunCalls:
    """Execute these calls of the turn (not yet run, answered, or cut short by a crash)."""

    records: list[ToolCall]


@dataclass(frozen=True, slots=True)
class WaitOnPeople:
    """Every call is settled or waits on an answer, and one does: the run is interrupted."""


@dataclass(frozen=True, slots=True)
class Complete:
    """The model answered without tool calls: the run is complete."""


@dataclass(frozen=True, slots=True)
class OverLimit:
    """The stretch has used its model requests: it fails with `MaxTurnsExceededError`."""

    max_turns: int


@dataclass(frozen=True, slots=True)
class PauseBeforeModel:
    """A stepping run stops before the next model request."""


@dataclass(frozen=True, slots=True)
class AskModel:
    """Ask the model for the next assistant turn."""


TurnStep: TypeAlias = RunCalls | WaitOnPeople | Complete | OverLimit | PauseBeforeModel | AskModel

_WAIT = WaitOnPeople()
_COMPLETE = Complete()
_PAUSE = PauseBeforeModel()
_ASK = AskModel()


def turn_to_retry(prompt: Prompt) -> AssistantMessage | None:
    """The turn Retry sets aside before it asks the model again: the latest assistant
    message when the run ended in it (a final answer, a reply cut by Stop, a turn whose
    calls were stopped or failed to run); None when what ended the run was the request
    for the next turn (it failed, or was stopped before the model wrote anything), so
    asking again needs nothing set aside."""
    assistant, records = prompt.current_turn()
    if assistant is None or assistant.set_aside is not None:
        return None
    if assistant.is_answer or assistant.stopped:
        return assistant
    if any(r.status == "cancelled" for r in records):
        return assistant
    return None


def next_turn_step(prompt: Prompt, *, turns: int, max_turns: int, stepping: bool) -> TurnStep:
    """What the run does next, from the transcript alone. `turns` counts the model
    requests of this stretch; `stepping` says the debugger stops before the model."""
    assistant, records = prompt.current_turn()
    open_records = [r for r in records if needs_work(r)]
    if open_records:
        return RunCalls(open_records)
    if any(r.pending_interrupt is not None for r in records):
        return _WAIT
    if assistant is not None and assistant.is_answer:
        return _COMPLETE
    if turns >= max_turns:
        return OverLimit(max_turns)
    return _PAUSE if stepping else _ASK


class Turn:
    """Drives one run from step to step within a stretch (see `next_turn_step`)."""

    def __init__(
        self,
        *,
        agent: Agent,
        prompt: Prompt,
        tools: ToolRunner,
        debugger: Debugger,
        outcomes: Outcomes,
        events: Events,
        checkpoint: Callable[[], Awaitable[None]],
    ) -> None:
        self._agent = agent
        self._prompt = prompt
        self._tools = tools
        self._debugger = debugger
        self._outcomes = outcomes
        self._events = events
        self._checkpoint = checkpoint
        self._children: list[asyncio.Task[None]] = []
        self._clock = ModelClock()
        self._said: list[str] = []  # the text streamed so far in the current model request
        self.released = False
        """A pause before the model was answered: ask the model once, even when stepping."""

    def drop_children(self) -> list[asyncio.Task[None]]:
        """The calls executing side by side right now (for a cancel to stop them)."""
        children, self._children = self._children, []
        return children

    async def until_stop(self, max_turns: int) -> AgentRunResult:
        try:
            return await self._until_stop(max_turns)
        finally:
            self._clock.rest()

    async def _until_stop(self, max_turns: int) -> AgentRunResult:
        await self._events.emit(RunStartedEvent(self._prompt.run_id))
        turns = 0
        while True:
            step = next_turn_step(
                self._prompt,
                turns=turns,
                max_turns=max_turns,
                stepping=self._debugger.stepping and not self.released,
            )
            if isinstance(step, RunCalls):
                records = step.records
                if len(records) == 1:  # the common case, without a task per call
                    await self._tools.execute(records[0])
                else:
                    await self._execute(records)
            elif isinstance(step, AskModel):
                self.released = False
                turns += 1
                await self._checkpoint()  # every outcome durable before the model is asked again
                failed = await self._ask()
                if failed is not None:
                    return failed
            elif isinstance(step, WaitOnPeople):
                return self._outcomes.result("interrupted")
            elif isinstance(step, Complete):
                return await self._outcomes.complete()
            elif isinstance(step, OverLimit):
                return await self._outcomes.fail(MaxTurnsExceededError(step.max_turns))
            else:
                self._prompt.model_pause = ModelPause()
                return self._outcomes.result("paused")

    async def _execute(self, records: list[ToolCall]) -> None:
        """Several calls of one turn: every running mark in one commit, then the actions
        side by side, each outcome committed as it comes."""
        tools = self._tools
        invocations = [i for r in records if (i := await tools.prepare(r)) is not None]
        if not invocations:
            return
        await self._checkpoint()  # all running marks durable before any action starts
        tools.alongside = len(invocations) > 1
        try:
            self._children = [asyncio.ensure_future(tools.invoke(i)) for i in invocations]
            await asyncio.gather(*self._children)
        finally:
            tools.alongside = False
        self._children = []

    async def _ask(self) -> AgentRunResult | None:
        """One model request, its message and tool call records appended (committed with
        what comes next); the failed result when the model fails."""
        prompt = self._prompt
        agent = self._agent
        started = utc_now()
        items, set_aside = prompt.for_model()
        request = ModelRequest(
            instructions=prompt.instructions,
            items=items,
            actions=agent.action_specs,
            set_aside=set_aside,
        )
        self._said = []
        try:
            response = checked_response(
                await ask_model(
                    agent.model, request, self._on_text, agent.model_timeout, self._clock
                )
            )
        except asyncio.CancelledError:
            self._keep_what_was_said(started)
            raise
        except Exception as exc:
            return await self._outcomes.fail(exc)
        call = ModelCall(
            model=_model_name(agent.model),
            started_at=started,
            ended_at=utc_now(),
            usage=response.usage,
            finish_reason=response.finish_reason,
        )
        message = AssistantMessage(
            text=response.text, tool_calls=unique_calls(response.tool_calls), call=call
        )
        prompt.items.append(message)
        prompt.items += [ToolCall(id=c.id, name=c.name, input=c.input) for c in message.tool_calls]
        # Not committed here: the running marks of its calls (or the stretch's end) commit
        # it with them. A crash before that only asks the model again.
        if self._events.heard(MessageEvent.name):
            await self._events.emit(MessageEvent(message))
        return None

    def _keep_what_was_said(self, started: datetime) -> None:
        """A stop while the model wrote: what it had written stays, marked stopped."""
        if not self._said:
            return
        call = ModelCall(
            model=_model_name(self._agent.model),
            started_at=started,
            ended_at=utc_now(),
            finish_reason=STOPPED_REASON,
        )
        self._prompt.items.append(AssistantMessage(text="".join(self._said), call=call))

    async def _on_text(self, text: str) -> None:
        self._said.append(text)
        if self._events.heard(TextDeltaEvent.name):
            await self._events.emit(TextDeltaEvent(text))


async def ask_model(
    model: Model,
    request: ModelRequest,
    on_text: Callable[[str], Awaitable[None]],
    seconds: float | None = None,
    clock: ModelClock | None = None,
) -> ModelResponse:
    """One turn: through `stream` when the model has it (text goes to `on_text` as it
    arrives), else through `request`. Past `seconds` (None: no limit), raises
    `ModelTimeoutError`, whatever the model is. `clock` is the run's (see `ModelClock`)."""
    if seconds is None:
        return await _ask(model, request, on_text)
    clock = clock or ModelClock()
    number = clock.begin(seconds)
    try:
        return await _ask(model, request, on_text)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if clock.expired != number or (task is not None and task.uncancel() > 0):
            raise  # a cancel() or an outside cancellation, not the deadline
        raise ModelTimeoutError(
            f"The model did not answer within {seconds:g} s (model_timeout). Check the "
            "endpoint, then call run() again to retry from here; or raise "
            "Agent(model_timeout=...).",
            retryable=True,
        ) from None
    finally:
        clock.end()


class ModelClock:
    """Bounds each model request of one run by its `model_timeout`, with one timer for
    all of them.

    A timer per request (armed, then cancelled) cost as much as the rest of a turn's
    bookkeeping. This one is armed at a request's deadline and outlives it; when it
    fires, it cancels the request in flight if that is the request it was armed for,
    and otherwise re-arms at the deadline of the one in flight, if any. A run asks one
    model request at a time."""

    def __init__(self) -> None:
        self._asking: tuple[asyncio.Task[Any], float, int] | None = None
        self._requests = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._arms = 0
        self._armed_for = 0
        self.expired = 0
        """The number of the latest request that ran out of time (0: none)."""

    def begin(self, seconds: float) -> int:
        """Start timing a request of the current task; returns its number."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        deadline = loop.time() + seconds
        self._requests += 1
        number = self._requests
        self._asking = (task, deadline, number)
        timer = self._timer
        if timer is None or self._loop is not loop or timer.when() > deadline:
            if timer is not None and self._loop is loop:
                timer.cancel()
            self._arm(loop, deadline, number)
        return number

    def end(self) -> None:
        self._asking = None

    def rest(self) -> None:
        """The stretch is over: let the timer go. Left armed until its deadline, it would
        keep the run (and what its context holds) alive in the loop for that long."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, loop: asyncio.AbstractEventLoop, deadline: float, number: int) -> None:
        self._arms += 1
        self._loop = loop
        self._armed_for = number
        self._timer = loop.call_at(deadline, self._fire, loop, self._arms)

    def _fire(self, loop: asyncio.AbstractEventLoop, arm: int) -> None:
        if arm != self._arms:
            return  # replaced by a later timer (a shorter deadline, or another loop)
        self._timer = None
        asking = self._asking
        if asking is None:
            return  # the next request arms it again
        task, deadline, number = asking
        if number != self._armed_for:
            self._arm(loop, deadline, number)
            return
        self.expired = number
        self._asking = None
        task.cancel()


def _ask(
    model: Model, request: ModelRequest, on_text: Callable[[str], Awaitable[None]]
) -> Awaitable[ModelResponse]:
    stream: Any = getattr(model, "stream", None)
    if stream is None:
        return model.request(request)
    return _streamed(stream, request, on_text)


async def _streamed(
    stream: Any, request: ModelRequest, on_text: Callable[[str], Awaitable[None]]
) -> ModelResponse:
    final: ModelResponse | None = None
    async for event in stream(request):
        if isinstance(event, TextDelta):
            await on_text(event.text)
        elif isinstance(event, ModelResponse):
            final = event
    if final is None:
        raise ModelError(
            "The model's stream ended without a complete response. Check the endpoint, "
            "then call run() again to retry from here."
        )
    return final


def unique_calls(calls: list[ToolCallRequest]) -> list[ToolCallRequest]:
    """The model's calls, with a fresh id for any that is empty or repeats one in the turn
    (answers, views and the wire all name a call by its id)."""
    if len(calls) == 1 and calls[0].id:
        return calls  # the common turn: one call, nothing to compare it with
    seen: set[str] = set()
    out = []
    for call in calls:
        if not call.id or call.id in seen:
            call = call.model_copy(update={"id": new_id("call")})
        seen.add(call.id)
        out.append(call)
    return out


def _model_name(model: object) -> str:
    name = getattr(model, "model", None)
    return name if isinstance(name, str) else type(model).__name__
