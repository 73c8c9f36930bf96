"""A remote run's transcript, kept from the AG-UI events its server sends.

`Mirror.hear(event)` takes one AG-UI event (a wire dict) and changes a pausepoint
`Prompt` the way the remote run changed: the assistant's text and tool calls become an
assistant message and tool call records, each TOOL_CALL_RESULT settles its record, and
the interrupts of a RUN_FINISHED outcome become pending entries on the calls they pause
(those this client can answer) or are kept aside as another producer's (the rest). It
returns the pausepoint events that describe each change, so a view follows a remote run
exactly as it follows a local one.

The AG-UI history (`messages`) is kept beside it: the messages a stateless server needs
sent back with the next request, replaced by each MESSAGES_SNAPSHOT.

It is strict where a lenient reading would record something false: a run event naming
another thread, a new call under the id of one that has not ended, an interrupt whose
binding names another request raise `RemoteProtocolError` before anything of the event
is recorded.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import RemoteProtocolError
from ..interrupts import PAYLOAD_METADATA_KEY, ClassifiedInterrupt, classify
from ..run import (
    Event,
    InterruptedEvent,
    MessageEvent,
    TextDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from ..transcript import (
    STOPPED_REASON,
    AssistantMessage,
    Cancellation,
    ErrorInfo,
    InterruptEntry,
    ModelCall,
    Prompt,
    ResumeResolution,
    ToolCall,
    ToolCallRequest,
    UserMessage,
    utc_now,
)
from ..transcript.decisions import decision_of
from ._shape import Shape, part_id
from ._shapes import read_shape

__all__ = ["PAUSE_PREFIX", "UNSETTLED", "Ending", "Mirror", "is_pause_record", "settle_pause"]

UNSETTLED = "The server finished the run without a result for this call."
PAUSE_PREFIX = "pause-"
"""The id of a pause record: the call this client makes up to hold a question that names
no call, `pause-<interrupt id>`."""
_BEFORE_ANYTHING = frozenset({"RUN_STARTED", "RUN_ERROR"})


@dataclass
class _Call:
    id: str
    name: str
    args: list[str] = field(default_factory=list)
    ended: bool = False

    def request(self) -> ToolCallRequest:
        return ToolCallRequest(id=self.id, name=self.name, input=_arguments("".join(self.args)))


@dataclass
class _Draft:
    """The assistant message being streamed: its text and its calls so far."""

    message_id: str
    text: list[str] = field(default_factory=list)
    calls: dict[str, _Call] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Ending:
    """How the latest stretch ended, as its last event said."""

    status: str  # "interrupted" | "completed" | "failed" | "cancelled"
    error: ErrorInfo | None = None


class Mirror:
    """The transcript of a remote run, and the AG-UI history to send back."""

    def __init__(self, prompt: Prompt, messages: list[dict[str, Any]] | None = None) -> None:
        self.prompt = prompt
        self.messages: list[dict[str, Any]] = list(messages or [])
        self.state: Any = None
        self.run_id: str | None = None
        """The id of the remote's latest run (the `parentRunId` of a continuation)."""
        self.heard: list[ClassifiedInterrupt] = []
        """The interrupts the latest stretch ended with, answerable here or not."""
        self.foreign: list[ClassifiedInterrupt] = []
        """The open interrupts this client cannot answer: shown, never answered here."""
        self.shaped: dict[str, Shape] = {}
        """The pauses of other producers answered here, read from their shape, by id."""
        self.ending: Ending | None = None
        self.thread_id: str | None = None
        """The thread of the request being followed: its run events must name it."""
        self.request_id: str | None = None
        """The `runId` of the request being followed: its interrupts' bindings name it."""
        self._announced: list[dict[str, Any]] = []
        self._before: tuple[list[ClassifiedInterrupt], list[ClassifiedInterrupt]] = ([], [])
        self._moved = False
        """Whether the stretch being followed has done anything (an event past its start)."""
        self._draft: _Draft | None = None
        self._retold: dict[str, list[str]] = {}
        """The calls the server tells again as it carries out their answers: their args."""
        self._unheld: list[tuple[ClassifiedInterrupt, Shape]] = []
        """Questions of the interrupts being read that name no call: held by a pause record."""
        self._records: dict[str, ToolCall] = {
            item.id: item for item in prompt.items if isinstance(item, ToolCall)
        }

    def user(self, text: str, message_id: str) -> None:
        """The person's next message: in the transcript, and in the history sent back."""
        self.prompt.items.append(UserMessage(text=text))
        self.messages.append({"id": message_id, "role": "user", "content": text})

    def begin(self, thread_id: str, request_id: str) -> None:
        """A new stretch, the request `request_id` on `thread_id`: the ending and the
        foreign interrupts of the last one are gone."""
        self.thread_id, self.request_id = thread_id, request_id
        self.ending = None
        self._before = (self.heard, self.foreign)
        self._moved = False
        self.heard = []
        self.foreign = []
        self._announced = []
        self._retold = {}

    def reshape(self) -> None:
        """Read again the shapes of the heard interrupts that wait here (a loaded run)."""
        for classified in self.heard:
            shape = read_shape(classified.interrupt) if classified.kind == "unbound" else None
            if shape is None:
                continue
            ids = [part_id(classified.id, i) for i in range(len(shape.parts))]
            for entry_id, part in zip(ids, shape.parts, strict=True) if ids else ():
                if self.prompt.find_interrupt(entry_id) is not None:
                    self.shaped[entry_id] = part
            if not ids and self.prompt.find_interrupt(classified.id) is not None:
                self.shaped[classified.id] = shape

    def refused(self, sent: list[dict[str, Any]]) -> list[tuple[ToolCall, InterruptEntry]]:
        """The stretch failed; if it did before the server did anything (its RUN_ERROR,
        or an HTTP refusal, came first), the server still waits on the pauses it waited
        on, so they stay open here, shown as they were, and the answers `sent` (resume
        entries) were not taken: those recorded here are taken back, each pause waiting
        again. Those pauses."""
        if self._moved:
            return []
        self.heard, self.foreign = self._before
        reopened = []
        for wire in sent:
            found = self.prompt.find_interrupt(str(wire.get("interruptId")))
            if found is not None and found[1].resolution is not None:
                record, entry = found
                entry.resolution = None
                record.status, record.error, record.ended_at = "interrupted", None, None
                reopened.append(found)
        return reopened

    def hear(self, event: Mapping[str, Any]) -> list[Event]:
        """Take in one AG-UI event; the pausepoint events of what it changed."""
        kind = event.get("type")
        went_on: list[Event] = []
        if kind not in _BEFORE_ANYTHING and not self._moved:
            self._moved = True
            went_on = self._went_on()
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        return went_on + (handler(self, event) if handler is not None else [])

    def _went_on(self) -> list[Event]:
        """The agent took the continuation: each answered pause record ends with its answer."""
        out: list[Event] = []
        for record in self._records.values():
            if record.status == "running" and is_pause_record(record):
                settle_pause(record)
                out.append(ToolCallFinishedEvent(record))
        return out

    # -- the events ------------------------------------------------------------------

    def _run_started(self, event: Mapping[str, Any]) -> list[Event]:
        self._check_thread(event)
        run_id = event.get("runId")
        if isinstance(run_id, str) and run_id:
            self.run_id = run_id
        return []

    def _text_start(self, event: Mapping[str, Any]) -> list[Event]:
        message_id = str(event.get("messageId") or "")
        if event.get("role", "assistant") != "assistant":
            return []
        draft = self._draft
        if draft is not None and draft.message_id == message_id:
            return []
        out = self._flush()
        self._draft = _Draft(message_id)
        return out

    def _text_content(self, event: Mapping[str, Any]) -> list[Event]:
        delta = event.get("delta")
        if not isinstance(delta, str) or not delta:
            return []
        out: list[Event] = []
        message_id = str(event.get("messageId") or "")
        if self._draft is None or (message_id and self._draft.message_id != message_id):
            out = self._flush()
            self._draft = _Draft(message_id)
        self._draft.text.append(delta)
        out.append(TextDeltaEvent(delta))
        return out

    def _call_start(self, event: Mapping[str, Any]) -> list[Event]:
        call_id = str(event.get("toolCallId") or "")
        earlier = self._records.get(call_id)
        if (
            earlier is not None
            and _answered_here(self.prompt, earlier)
            and event.get("toolCallName") in (None, earlier.name)
        ):
            # The server tells again a call whose pause was answered here, as it carries
            # out the answer (LangGraph's adapter does): the same call, if its arguments
            # are the same (checked once they are all here), not a new one.
            self._retold.setdefault(call_id, [])
            return []
        open_call = earlier is not None and earlier.status in ("running", "interrupted")
        if open_call or (self._draft is not None and call_id in self._draft.calls):
            # An id reused once its call has settled is told apart by order (some model
            # servers number calls per turn); one reused while its call is open is not.
            raise RemoteProtocolError(
                str(event.get("type")),
                f"tool call id {call_id!r} is already the id of a call that has not ended",
            )
        name = str(event.get("toolCallName") or "")
        out: list[Event] = []
        if self._draft is None:
            self._draft = _Draft(str(event.get("parentMessageId") or call_id))
        self._draft.calls[call_id] = _Call(call_id, name)
        return out

    def _call_args(self, event: Mapping[str, Any]) -> list[Event]:
        retold = self._retold.get(str(event.get("toolCallId") or ""))
        delta = event.get("delta")
        if retold is not None:
            if isinstance(delta, str):
                retold.append(delta)
            return []
        call = self._call(event)
        if call is not None and isinstance(delta, str):
            call.args.append(delta)
        return []

    def _call_chunk(self, event: Mapping[str, Any]) -> list[Event]:
        call_id = event.get("toolCallId")
        if isinstance(call_id, str) and (self._draft is None or call_id not in self._draft.calls):
            self._call_start(event)
        return self._call_args(event)

    def _call_end(self, event: Mapping[str, Any]) -> list[Event]:
        self._check_retold(str(event.get("toolCallId") or ""), "TOOL_CALL_END")
        call = self._call(event)
        if call is not None:
            call.ended = True
        return []

    def _check_retold(self, call_id: str, kind: str) -> None:
        """A call told again must be the one answered here: its arguments as it was
        asked, or as they were edited here."""
        retold = self._retold.pop(call_id, None)
        record = self._records.get(call_id)
        if retold is None or record is None or not "".join(retold).strip():
            return
        if _arguments("".join(retold)) not in (record.input, record.effective_input):
            raise RemoteProtocolError(
                kind,
                f"tool call id {call_id!r} is already the id of a call that has not ended",
            )

    def _call_result(self, event: Mapping[str, Any]) -> list[Event]:
        out = self._flush()
        call_id = str(event.get("toolCallId") or "")
        self._check_retold(call_id, "TOOL_CALL_RESULT")
        content = event.get("content")
        self._tool_message(
            call_id,
            str(event.get("messageId") or f"{call_id}-result"),
            content if isinstance(content, str) else json.dumps(content),
        )
        record = self._records.get(call_id)
        if record is None or record.status == "succeeded":
            return out  # unknown here, or a result this client gave the server
        return [*out, *self._settle(record, content)]

    def _settle(self, record: ToolCall, content: Any) -> list[Event]:
        if record.status == "rejected":
            return []  # declined here: what the server reports is the refusal it passed on
        decision = decision_of(record.interrupts[-1]) if record.interrupts else None
        if decision is not None and decision.kind == "responded":
            # answered with words here: the call's outcome is those words, as in a native run
            record.status = "responded"
            record.result = decision.value
        else:
            record.status = "succeeded"
            record.result = _value(content)
        record.ended_at = utc_now()
        return [ToolCallFinishedEvent(record)]

    def give_result(self, record: ToolCall, result: Any, content: str) -> None:
        """The client's result for a call the server left to it: the call succeeds with
        it, and the history sent back holds it as the call's tool message."""
        record.status = "succeeded"
        record.result = result
        record.ended_at = utc_now()
        self._tool_message(record.id, f"{record.id}-result", content)

    def _tool_message(self, call_id: str, message_id: str, content: str) -> None:
        """The call's tool message in the history, once (a server may repeat a result
        the client gave it)."""
        if any(m.get("role") == "tool" and m.get("toolCallId") == call_id for m in self.messages):
            return
        self.messages.append(
            {"id": message_id, "role": "tool", "toolCallId": call_id, "content": content}
        )

    def _step_finished(self, _: Mapping[str, Any]) -> list[Event]:
        return self._flush()

    def _messages_snapshot(self, event: Mapping[str, Any]) -> list[Event]:
        out = self._flush()
        messages = event.get("messages")
        if not isinstance(messages, list):
            return out
        self.messages = [dict(m) for m in messages if isinstance(m, Mapping)]
        out.extend(self._unstreamed())
        # A server may report a call's result only here (a graph node that wrote it).
        for message in self.messages:
            record = self._records.get(str(message.get("toolCallId") or ""))
            if message.get("role") == "tool" and record is not None and record.status == "running":
                out.extend(self._settle(record, message.get("content")))
        return out

    def _unstreamed(self) -> list[Event]:
        """Assistant messages the snapshot holds that no event streamed (a graph node that
        wrote its message itself): into the transcript, after what is there. A message is
        known when its text was streamed or one of its calls was seen."""
        streamed = [
            item.text
            for item in self.prompt.items
            if isinstance(item, AssistantMessage) and item.text
        ]
        out: list[Event] = []
        for message in self.messages:
            if message.get("role") != "assistant":
                continue
            content = message.get("content")
            text = content if isinstance(content, str) else ""
            calls = [c for c in message.get("toolCalls") or [] if isinstance(c, Mapping)]
            if any(str(c.get("id")) in self._records for c in calls):
                continue
            if text and text in streamed:
                streamed.remove(text)
                continue
            if not text and not calls:
                continue
            self._draft = _Draft(str(message.get("id") or ""), [text])
            for call in calls:
                function = call.get("function")
                if not isinstance(function, Mapping):
                    continue
                draft_call = _Call(str(call.get("id") or ""), str(function.get("name") or ""))
                draft_call.args.append(str(function.get("arguments") or ""))
                self._draft.calls[draft_call.id] = draft_call
            out.extend(self._flush(into_history=False))
        return out

    def _custom(self, event: Mapping[str, Any]) -> list[Event]:
        # LangGraph's adapter announces a pause this way (its only announcement unless
        # it is set to send AG-UI interrupt outcomes): kept until the run finishes.
        if event.get("name") == "on_interrupt":
            self._announced.append(_announced_interrupt(event.get("value"), len(self._announced)))
        return []

    def _state_snapshot(self, event: Mapping[str, Any]) -> list[Event]:
        self.state = event.get("snapshot")
        return []

    def _run_finished(self, event: Mapping[str, Any]) -> list[Event]:
        self._check_thread(event)
        outcome = event.get("outcome")
        interrupts: list[Any] = []
        if isinstance(outcome, Mapping) and outcome.get("type") == "interrupt":
            interrupts = list(outcome.get("interrupts") or [])
        elif isinstance(event.get("interrupts"), list):
            interrupts = list(event["interrupts"])
        if not interrupts:
            interrupts = self._announced
        heard = [classify(i) for i in interrupts if isinstance(i, Mapping)]
        for classified in heard:
            named = (classified.binding or {}).get("interruptedRunId")
            if named is not None and self.request_id is not None and named != self.request_id:
                raise RemoteProtocolError(
                    "RUN_FINISHED",
                    f"interrupt {classified.id!r} is bound to run {named!r}, not to this "
                    f"request's run {self.request_id!r}, so an answer to it could not be "
                    "checked against this run",
                )
        waiting = _pending_calls(outcome)
        drafted = self._draft.calls if self._draft is not None else {}
        if unknown := [i for i in waiting if i not in self._records and i not in drafted]:
            raise RemoteProtocolError(
                "RUN_FINISHED",
                f"pendingToolCallIds names {unknown[0]!r}, a call this stream never started",
            )
        out = self._flush()
        self._announced = []
        self.heard = heard
        self._unheld = []
        for classified in self.heard:
            out.extend(self._interrupt(classified))
        out.extend(self._hold())
        if not interrupts:
            self._unsettled(waiting)
        self.ending = Ending("interrupted" if interrupts else "completed")
        return out

    def _unsettled(self, waiting: list[str]) -> None:
        """A run that finished leaves no call running. One the server left for the client
        to carry out (`waiting`: AG-UI's `pendingToolCallIds`) is `pending` until its
        result is given here; one the server never gave a result for otherwise (a declined
        call it did not report) ends cancelled, saying so."""
        for record in self._records.values():
            if record.status == "running" and is_pause_record(record):
                settle_pause(record)
            elif record.status == "running" and record.id in waiting:
                record.status = "pending"
            elif record.status == "running":
                record.status = "cancelled"
                record.cancellation = Cancellation(by="server", reason=UNSETTLED)
                record.ended_at = utc_now()

    def _run_error(self, event: Mapping[str, Any]) -> list[Event]:
        self._check_thread(event)
        out = self._flush()
        code = event.get("code")
        message = str(event.get("message") or "The remote run failed.")
        name = str(code) if isinstance(code, str) and code else "RemoteRunError"
        status = "cancelled" if code == "cancelled" else "failed"
        self.ending = Ending(status, ErrorInfo(name=name, message=message))
        return out

    # -- helpers ---------------------------------------------------------------------

    def _check_thread(self, event: Mapping[str, Any]) -> None:
        thread = event.get("threadId")
        if thread is not None and self.thread_id is not None and thread != self.thread_id:
            raise RemoteProtocolError(
                str(event.get("type")),
                f"it names thread {thread!r}, not this run's thread {self.thread_id!r}",
            )

    def _call(self, event: Mapping[str, Any]) -> _Call | None:
        draft = self._draft
        call_id = event.get("toolCallId")
        if draft is None or not isinstance(call_id, str):
            return None
        return draft.calls.get(call_id)

    def cut(self, source: str) -> list[Event]:
        """Stopped while the agent wrote: the text it had streamed stays, as a reply cut
        by the stop (`AssistantMessage.stopped`), in the history sent back on Continue;
        calls whose arguments had not all come are dropped (they never ran here)."""
        draft, self._draft = self._draft, None
        if draft is None or not draft.text:
            return []
        text = "".join(draft.text)
        now = utc_now()
        stopped = ModelCall(
            model=source, started_at=now, ended_at=now, finish_reason=STOPPED_REASON
        )
        message = AssistantMessage(text=text, call=stopped)
        self.prompt.items.append(message)
        self.messages.append({"id": draft.message_id, "role": "assistant", "content": text})
        return [MessageEvent(message)]

    def _flush(self, *, into_history: bool = True) -> list[Event]:
        """The streamed message, into the transcript: the assistant message, then a
        running record of each of its calls (and into the history, `into_history`)."""
        draft, self._draft = self._draft, None
        if draft is None:
            return []
        text = "".join(draft.text)
        requests = [call.request() for call in draft.calls.values()]
        message = AssistantMessage(text=text, tool_calls=requests)
        self.prompt.items.append(message)
        wire: dict[str, Any] = {"id": draft.message_id, "role": "assistant", "content": text}
        if requests:
            wire["toolCalls"] = [
                {
                    "id": r.id,
                    "type": "function",
                    "function": {"name": r.name, "arguments": json.dumps(r.input)},
                }
                for r in requests
            ]
        if into_history:
            self.messages.append(wire)
        out: list[Event] = [MessageEvent(message)]
        now = utc_now()
        for request in requests:
            out.append(ToolCallStartedEvent(self._open(request, now)))
        return out

    def _open(self, request: ToolCallRequest, now: datetime) -> ToolCall:
        """The running record of a call asked for, in the transcript."""
        record = ToolCall(
            id=request.id,
            name=request.name,
            input=request.input,
            status="running",
            attempts=1,
            started_at=now,
        )
        self.prompt.items.append(record)
        self._records[record.id] = record
        return record

    def _interrupt(self, classified: ClassifiedInterrupt) -> list[Event]:
        interrupt = classified.interrupt
        shape = read_shape(interrupt) if classified.kind == "unbound" else None
        if shape is not None and shape.parts:
            return self._batch(classified, shape)
        if (
            shape is not None
            and (shape.kind == "generic" or shape.tool_name is not None)
            and not interrupt.get("toolCallId")
        ):
            self._unheld.append((classified, shape))  # a pause record holds it (`_hold`)
            return []
        record = self._records.get(str(interrupt.get("toolCallId") or ""))
        answerable = classified.can_resolve and classified.kind in ("tool-approval", "generic")
        here = record is not None and _in_current_turn(self.prompt, record)
        if not here or not (answerable or shape is not None):
            self.foreign.append(classified)
            return []
        assert record is not None
        entry = _entry(
            shape.kind if shape is not None else classified.kind,
            interrupt,
            message=shape.message if shape is not None else None,
            schema=shape.schema if shape is not None else None,
        )
        if shape is not None:
            self.shaped[entry.id] = shape
        return self._pause(record, entry)

    def _hold(self) -> list[Event]:
        """The questions of this stretch's interrupts that name no call (a LangGraph node's
        `interrupt()`): one turn of pause records, a call each, so that each is a card
        like any other (one about an action the node will run, a shape with a `tool_name`,
        is a tool approval of that action with its `args` as input). The turn is this
        client's, not the agent's: it is never sent back in the history, and each record
        ends with the answer once the agent goes on."""
        unheld, self._unheld = self._unheld, []
        if not unheld:
            return []
        now = utc_now()
        requests = [
            ToolCallRequest(
                id=PAUSE_PREFIX + classified.id,
                name=shape.tool_name or "interrupt",
                input=dict(shape.args or {}),
            )
            for classified, shape in unheld
        ]
        message = AssistantMessage(text="", tool_calls=requests)
        self.prompt.items.append(message)
        out: list[Event] = [MessageEvent(message)]
        for request, (classified, shape) in zip(requests, unheld, strict=True):
            record = self._open(request, now)
            out.append(ToolCallStartedEvent(record))
            entry = _entry(
                shape.kind, classified.interrupt, message=shape.message, schema=shape.schema
            )
            self.shaped[entry.id] = shape
            out.extend(self._pause(record, entry))
        return out

    def _pause(self, record: ToolCall, entry: InterruptEntry) -> list[Event]:
        if any(e.id == entry.id for e in record.interrupts):
            return []  # the same pause, announced again
        record.interrupts.append(entry)
        record.status = "interrupted"
        return [InterruptedEvent(record, entry)]

    def _batch(self, classified: ClassifiedInterrupt, shape: Shape) -> list[Event]:
        """One interrupt about several calls of this turn: a card on each, matched by
        name (and arguments, where several share a name) in order; shown read-only when
        any call it names is not one this client saw."""
        _, records = self.prompt.current_turn()
        free = [r for r in records if r.status == "running"]
        matched: list[ToolCall] = []
        for part in shape.parts:
            named = [r for r in free if r.name == part.tool_name]
            same = [r for r in named if part.args is not None and r.input == dict(part.args)]
            if not named:
                self.foreign.append(classified)
                return []
            record = (same or named)[0]
            free.remove(record)
            matched.append(record)
        out: list[Event] = []
        for index, (record, part) in enumerate(zip(matched, shape.parts, strict=True)):
            entry = _entry(
                "tool-approval",
                classified.interrupt,
                entry_id=part_id(classified.id, index),
                message=part.message,
            )
            self.shaped[entry.id] = part
            out.extend(self._pause(record, entry))
        return out


def _entry(
    kind: str,
    interrupt: Mapping[str, Any],
    *,
    entry_id: str | None = None,
    message: str | None = None,
    schema: Mapping[str, Any] | None = None,
) -> InterruptEntry:
    """The transcript's entry for `interrupt` (`entry_id`: a batch part's own id;
    `message`: the question a shape read, for an interrupt that has none; `schema`: the
    answer's schema a shape read, where the interrupt has none)."""
    metadata = interrupt.get("metadata")
    data = metadata.get(PAYLOAD_METADATA_KEY) if isinstance(metadata, Mapping) else None
    schema = interrupt.get("responseSchema") or schema
    approval = kind == "tool-approval"
    return InterruptEntry(
        id=entry_id or str(interrupt["id"]),
        kind="tool-approval" if approval else "generic",
        message=str(interrupt.get("message") or message or ""),
        data=data,
        response_schema=dict(schema) if isinstance(schema, Mapping) and not approval else None,
        expires_at=_moment(interrupt.get("expiresAt")),
    )


def _announced_interrupt(value: Any, position: int) -> dict[str, Any]:
    """An AG-UI interrupt for a pause announced by a CUSTOM `on_interrupt` event, whose
    value (often JSON text) is the pause's own; it has no id on the wire, so it gets one."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    fields = value if isinstance(value, Mapping) else {}
    message = fields.get("message", value)
    interrupt: dict[str, Any] = {
        "id": f"on_interrupt-{position}",
        "reason": str(fields.get("reason") or "langgraph:interrupt"),
        "message": message if isinstance(message, str) else json.dumps(message),
        "metadata": {"announcedBy": "on_interrupt", "value": value},
    }
    for key, alias in (("toolCallId", "tool_call_id"), ("responseSchema", "response_schema")):
        found = fields.get(key, fields.get(alias))
        if found is not None:
            interrupt[key] = found
    return interrupt


def _answered_here(prompt: Prompt, record: ToolCall) -> bool:
    """Whether `record` is a call of the current turn whose last pause has its answer
    and whose outcome the server has not told yet."""
    answered = bool(record.interrupts) and record.interrupts[-1].resolution is not None
    told = record.status in ("succeeded", "failed", "cancelled") or (
        record.status == "responded" and record.result is not None
    )
    return answered and not told and _in_current_turn(prompt, record)


def _in_current_turn(prompt: Prompt, record: ToolCall) -> bool:
    _, records = prompt.current_turn()
    return any(r is record for r in records)


def _arguments(text: str) -> dict[str, Any]:
    """A call's streamed arguments as its input: the JSON object they spell, or the text
    under `arguments` when they spell something else."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"arguments": text}
    return value if isinstance(value, dict) else {"arguments": value}


def _value(content: Any) -> Any:
    """A tool result's content: the JSON it holds, else the text itself."""
    if not isinstance(content, str):
        return content
    try:
        return json.loads(content)
    except ValueError:
        return content


def _moment(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


_HANDLERS = {
    "RUN_STARTED": Mirror._run_started,
    "TEXT_MESSAGE_START": Mirror._text_start,
    "TEXT_MESSAGE_CONTENT": Mirror._text_content,
    "TEXT_MESSAGE_CHUNK": Mirror._text_content,
    "TOOL_CALL_START": Mirror._call_start,
    "TOOL_CALL_ARGS": Mirror._call_args,
    "TOOL_CALL_CHUNK": Mirror._call_chunk,
    "TOOL_CALL_END": Mirror._call_end,
    "TOOL_CALL_RESULT": Mirror._call_result,
    "STEP_FINISHED": Mirror._step_finished,
    "MESSAGES_SNAPSHOT": Mirror._messages_snapshot,
    "STATE_SNAPSHOT": Mirror._state_snapshot,
    "CUSTOM": Mirror._custom,
    "RUN_FINISHED": Mirror._run_finished,
    "RUN_ERROR": Mirror._run_error,
}


def _pending_calls(outcome: Any) -> list[str]:
    """The calls a success outcome leaves for the client to carry out (AG-UI 1.0's
    `pendingToolCallIds`; a Pydantic AI tool that raised `CallDeferred`)."""
    if not isinstance(outcome, Mapping) or outcome.get("type") != "success":
        return []
    ids = outcome.get("pendingToolCallIds")
    if ids is None:
        return []
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise RemoteProtocolError("RUN_FINISHED", "pendingToolCallIds is a list of call ids")
    return list(ids)


def is_pause_record(record: ToolCall) -> bool:
    """Whether `record` holds a question that named no call (see `Mirror._hold`)."""
    return record.id.startswith(PAUSE_PREFIX) and bool(record.interrupts)


def settle_pause(record: ToolCall) -> None:
    """An answered pause record, once the agent went on: its result is the answer; an
    approval's is the words of a Respond (`responded`), else unknown here (the node ran
    the action, or not, itself)."""
    entry = record.interrupts[-1]
    if not isinstance(entry.resolution, ResumeResolution):
        return
    approval = entry.kind == "tool-approval"
    decision = decision_of(entry) if approval else None
    if decision is not None and decision.kind == "responded":
        record.status, record.result = "responded", decision.value
    else:
        record.status = "succeeded"
        record.result = None if approval else entry.resolution.data
    record.ended_at = utc_now()
