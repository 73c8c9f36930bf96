"""One stretch of a run as AG-UI events: the run's events in, `ag_ui.core` events out.

A `Translator` hears the run's events as they fire (so it reads the transcript as it is
at that moment) and turns each into the AG-UI events it means; `finish` and `refused`
close the stream with exactly one RUN_FINISHED or RUN_ERROR. Every event is an
`ag_ui.core` model, validated as it is built.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    MessagesSnapshotEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ..errors import ResumeBatchError
from ..run import (
    AgentRun,
    AgentRunResult,
    MessageEvent,
    TextDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from ..transcript import AssistantMessage, ErrorInfo, Item, Prompt
from ._messages import (
    SETTLED,
    arguments_text,
    message_id,
    position_of,
    result_text,
    snapshot_messages,
)
from ._refusals import refusal_metadata

__all__ = ["Translator", "error_code"]


def error_code(error: ErrorInfo | BaseException) -> str:
    """RUN_ERROR's `code` for a failure: the error's name in kebab case without its
    `Error` suffix (`ModelTimeoutError` -> `model-timeout`; a stop -> `cancelled`)."""
    name = error.name if isinstance(error, ErrorInfo) else type(error).__name__
    name = name.removesuffix("Error") or name
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()


class Translator:
    """The AG-UI events of one stretch of `run` (see the module)."""

    def __init__(
        self,
        run: AgentRun,
        *,
        run_id: str | None = None,
        parent_run_id: str | None = None,
        answered: Sequence[str] = (),
    ) -> None:
        self._run = run
        self._prompt: Prompt = run.prompt
        self._run_id = run_id or run.prompt.run_id
        self._parent_run_id = parent_run_id
        self._answered = answered
        self.started = False
        self._text: tuple[str, list[str]] | None = None  # the message being streamed
        self._step: tuple[int, str] | None = None  # (its assistant message's position, name)
        self._counted = (0, 0)  # (a position, the assistant messages before it)

    def hear(self, event: Any) -> list[BaseEvent]:
        """The AG-UI events that one run event means (none for most bookkeeping)."""
        out = self._start()
        if isinstance(event, TextDeltaEvent):
            self._delta(event.text, out)
        elif isinstance(event, MessageEvent):
            self._message(event.message, out)
        elif isinstance(event, ToolCallStartedEvent):
            self._enter_turn_of(event.tool_call, out)
        elif isinstance(event, ToolCallFinishedEvent):
            record = event.tool_call
            if record.status in SETTLED:
                position = self._enter_turn_of(record, out)
                out.append(
                    ToolCallResultEvent(
                        message_id=message_id(self._prompt, position),
                        tool_call_id=record.id,
                        content=result_text(record),
                        role="tool",
                    )
                )
        return out

    def finish(self, result: AgentRunResult) -> list[BaseEvent]:
        """The end of the stretch: whatever is open is closed, then RUN_FINISHED (success,
        or the pending interrupts after a MESSAGES_SNAPSHOT) or RUN_ERROR."""
        out = self._start()
        self._close(out)
        if result.status == "completed":
            out.append(self._finished(RunFinishedSuccessOutcome()))
        elif result.status == "interrupted":
            interrupts = [Interrupt.model_validate(i) for i in self._run.agui_interrupts()]
            out.append(MessagesSnapshotEvent(messages=snapshot_messages(self._prompt)))
            out.append(self._finished(RunFinishedInterruptOutcome(interrupts=interrupts)))
        elif result.status == "paused":
            out.append(
                RunErrorEvent(
                    code="paused",
                    message="The run is paused by its debugger before a model request; "
                    "go on from the notebook (run.debug).",
                )
            )
        else:
            error = result.error or ErrorInfo(name=result.status, message=result.status)
            out.append(RunErrorEvent(code=error_code(error), message=error.message))
        return out

    def refused(self, exc: Exception) -> list[BaseEvent]:
        """The end of a stretch that was refused (`RunSuspendedError`, `RunBusyError`, a
        refused resume batch...): RUN_ERROR, first in the stream when nothing ran. A
        refused batch lists each problem in `metadata` (see `refusal_metadata`)."""
        out: list[BaseEvent] = []
        self._close(out)
        metadata = None
        if isinstance(exc, ResumeBatchError):
            metadata = refusal_metadata(
                exc.errors,
                thread_id=self._prompt.thread_id,
                run_id=self._run_id,
                interrupted_run_id=self._parent_run_id or self._prompt.run_id,
                answered=self._answered,
            )
        out.append(RunErrorEvent(code=error_code(exc), message=str(exc), metadata=metadata))
        return out

    # -- the parts -------------------------------------------------------------------

    def _start(self) -> list[BaseEvent]:
        if self.started:
            return []
        self.started = True
        return [
            RunStartedEvent(
                thread_id=self._prompt.thread_id,
                run_id=self._run_id,
                parent_run_id=self._parent_run_id,
            )
        ]

    def _finished(
        self, outcome: RunFinishedSuccessOutcome | RunFinishedInterruptOutcome
    ) -> RunFinishedEvent:
        return RunFinishedEvent(
            thread_id=self._prompt.thread_id, run_id=self._run_id, outcome=outcome
        )

    def _delta(self, text: str, out: list[BaseEvent]) -> None:
        # The message is appended once the model has answered: it will be the next item.
        if self._text is None:
            position = len(self._prompt.items)
            self._enter_turn(position, out)
            mid = message_id(self._prompt, position)
            self._text = (mid, [])
            out.append(TextMessageStartEvent(message_id=mid, role="assistant"))
        mid, said = self._text
        said.append(text)
        out.append(TextMessageContentEvent(message_id=mid, delta=text))

    def _message(self, message: AssistantMessage, out: list[BaseEvent]) -> None:
        position = position_of(self._prompt, message)
        mid = message_id(self._prompt, position)
        self._enter_turn(position, out)
        streamed = self._text
        self._text = None
        if streamed is not None:
            said = "".join(streamed[1])
            rest = message.text[len(said) :] if message.text.startswith(said) else ""
            if rest:
                out.append(TextMessageContentEvent(message_id=mid, delta=rest))
            out.append(TextMessageEndEvent(message_id=mid))
        elif message.text:
            out.append(TextMessageStartEvent(message_id=mid, role="assistant"))
            out.append(TextMessageContentEvent(message_id=mid, delta=message.text))
            out.append(TextMessageEndEvent(message_id=mid))
        for call in message.tool_calls:
            out.append(
                ToolCallStartEvent(
                    tool_call_id=call.id, tool_call_name=call.name, parent_message_id=mid
                )
            )
            out.append(ToolCallArgsEvent(tool_call_id=call.id, delta=arguments_text(call.input)))
            out.append(ToolCallEndEvent(tool_call_id=call.id))

    def _enter_turn_of(self, record: Item, out: list[BaseEvent]) -> int:
        """Open the step of the turn `record` belongs to; returns the record's position."""
        position = position_of(self._prompt, record)
        items = self._prompt.items
        turn = position
        while turn > 0 and not isinstance(items[turn], AssistantMessage):
            turn -= 1
        self._enter_turn(turn, out)
        return position

    def _enter_turn(self, position: int, out: list[BaseEvent]) -> None:
        """A STEP per turn (a model answer and its calls), named `turn N` by the answer's
        place among the run's answers: the same name when a later stretch goes on with it."""
        if self._step is not None and self._step[0] == position:
            return
        self._close_step(out)
        name = f"turn {1 + self._answers_before(position)}"
        self._step = (position, name)
        out.append(StepStartedEvent(step_name=name))

    def _answers_before(self, position: int) -> int:
        """How many assistant messages come before `position`: counted on from the last
        position asked about, so a long run does not recount its whole transcript a turn."""
        start, count = self._counted
        if position < start:
            start, count = 0, 0
        items = self._prompt.items
        count += sum(1 for item in items[start:position] if isinstance(item, AssistantMessage))
        self._counted = (position, count)
        return count

    def _close(self, out: list[BaseEvent]) -> None:
        if self._text is not None:
            out.append(TextMessageEndEvent(message_id=self._text[0]))
            self._text = None
        self._close_step(out)

    def _close_step(self, out: list[BaseEvent]) -> None:
        if self._step is not None:
            out.append(StepFinishedEvent(step_name=self._step[1]))
            self._step = None
