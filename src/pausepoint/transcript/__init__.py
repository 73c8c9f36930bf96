"""The transcript: a run's whole state as plain pydantic data.

A `Prompt` is everything a run needs to continue: instructions, the ordered items and the
interrupt history of every tool call. It round-trips through JSON unchanged, so a
suspended run can be saved and answered in another process::

    saved = run.prompt.model_dump_json()
    again = AgentRun(agent, Prompt.model_validate_json(saved))

Loading checks the file: a Prompt from a newer pausepoint, or one that is inconsistent
(see `pausepoint.transcript._consistency`), is refused with `InvalidTranscriptError` naming the
place, and an older one is upgraded first (see `pausepoint._versions`).

Nothing here does I/O or knows about models, actions or widgets.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Self, overload

import pydantic_core
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    JsonValue,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import core_schema

from .. import _versions
from .._json import check_text, printable
from .._versions import SCHEMA_VERSION, SUPPORTED_SCHEMA_VERSIONS, migrate
from ..errors import InvalidTranscriptError, TranscriptProblem
from .decisions import Decision, decisions_of

__all__ = [
    "SCHEMA_VERSION",
    "STOPPED_REASON",
    "SUPPORTED_SCHEMA_VERSIONS",
    "AnsweredBy",
    "AssistantMessage",
    "Cancellation",
    "ErrorInfo",
    "ForkOrigin",
    "InterruptEntry",
    "InterruptKind",
    "Item",
    "ModelCall",
    "ModelPause",
    "Prompt",
    "RejectResolution",
    "Resolution",
    "ResumeResolution",
    "SetAside",
    "ToolCall",
    "ToolCallRequest",
    "ToolCallStatus",
    "TranscriptView",
    "UserMessage",
    "new_id",
    "read_by_model",
    "set_aside_replies",
    "set_fields",
    "utc_now",
]

ToolCallStatus = Literal[
    "pending",
    "running",
    "interrupted",
    "succeeded",
    "failed",
    "rejected",
    "responded",
    "cancelled",
]
STOPPED_REASON = "cancelled"
"""The `ModelCall.finish_reason` of a message cut short by a stop (no model reports it)."""

AnsweredBy = Literal["code", "view", "inbox", "policy", "agui"]
"""Who gave an answer: code calling `resume` / `reject`, the run's view, the inbox, a
scripted policy (`pausepoint.humans`), or an AG-UI client (`continue_with`)."""
InterruptKind = Literal["generic", "tool-approval", "breakpoint"]


def new_id(prefix: str) -> str:
    """A short random id with a readable prefix, e.g. ``run_5f0c2a9d41e8``."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def utc_now() -> datetime:
    return datetime.now(UTC)


def set_fields(model: BaseModel, **values: Any) -> None:
    """Write fields of a transcript model as ``model.name = value`` does (models here
    do not validate assignments), for several fields in one call: the loop writes three
    or four fields of a record at each step, and pydantic's `__setattr__` runs Python
    code for each."""
    model.__dict__.update(values)
    model.__pydantic_fields_set__.update(values)


class _AwareWhenRead:
    """A timestamp read from JSON text must carry its offset, checked by the parser.

    The `timestamps-are-aware` rule finds a naive timestamp in any Prompt, with its path;
    a transcript read from JSON that has one is read again as a dict (see
    `Prompt.model_validate_json`) so that the rule reports it, and every other load skips
    the rule's walk over some six hundred timestamps of a hundred steps."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.json_or_python_schema(
            json_schema=core_schema.datetime_schema(tz_constraint="aware"),
            python_schema=handler(source),
        )


Timestamp = Annotated[datetime, _AwareWhenRead()]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class ErrorInfo(_Model):
    """A failure as the model sees it: a short name and a human-readable message."""

    name: str
    message: str

    @field_validator("name", "message")
    @classmethod
    def _printable(cls, text: str) -> str:
        # Often an exception's text, which must be recorded whatever it holds.
        return printable(text)

    @classmethod
    def from_exception(cls, exc: BaseException) -> ErrorInfo:
        """The exception's class name and its text (its repr when it has no text)."""
        # str(KeyError("x")) is just "'x'": say what it means.
        if isinstance(exc, KeyError) and len(exc.args) == 1:
            message = f"missing key {exc.args[0]!r}"
        else:
            message = str(exc) or repr(exc)
        return cls(name=type(exc).__name__, message=message)


class Cancellation(_Model):
    """Who stopped a tool call, why, and when. `by` is ``"user"`` (`run.cancel()`, the
    view's Stop button) or ``"interrupt"`` (the task was cancelled, or the kernel was
    interrupted during a blocking call)."""

    by: str
    reason: str | None = None
    at: Timestamp = Field(default_factory=utc_now)


class ResumeResolution(_Model):
    """The interrupt was answered with `resume(data)`."""

    type: Literal["resume"] = "resume"
    data: JsonValue = None
    at: Timestamp = Field(default_factory=utc_now)
    by: AnsweredBy | None = None
    """Who answered (None in a transcript written before pausepoint recorded it)."""


class RejectResolution(_Model):
    """The interrupt was declined with `reject(error)`."""

    type: Literal["reject"] = "reject"
    error: ErrorInfo
    at: Timestamp = Field(default_factory=utc_now)
    by: AnsweredBy | None = None
    """Who declined (None in a transcript written before pausepoint recorded it)."""


Resolution = Annotated[ResumeResolution | RejectResolution, Field(discriminator="type")]


class InterruptEntry(_Model):
    """One pause of a tool call: what it asked, its private checkpoint and the answer.

    `resolution` is absent while the entry is pending; it is the only field ever written
    after the entry is appended.
    """

    id: str = Field(default_factory=lambda: new_id("int"))
    kind: InterruptKind = "generic"
    message: str
    data: JsonValue = None
    state: JsonValue = None
    response_schema: dict[str, JsonValue] | None = None
    created_at: Timestamp = Field(default_factory=utc_now)
    expires_at: Timestamp | None = None
    resolution: Resolution | None = None
    agui_run_id: str | None = None
    """The `runId` of the AG-UI request whose stream carried this pause (None: it was not
    raised while an AG-UI request drove the run). Its binding names that run, and a
    continuation answers it with that run as `parentRunId`."""

    @property
    def is_pending(self) -> bool:
        return self.resolution is None


class ToolCallRequest(_Model):
    """A tool call as the model asked for it."""

    id: str
    name: str
    input: dict[str, JsonValue] = Field(default_factory=dict)


class UserMessage(_Model):
    type: Literal["user"] = "user"
    text: str


class ModelCall(_Model):
    """How the model request behind an assistant message went: when it started and
    ended, which model answered, the token usage it reported and why it stopped."""

    model: str
    started_at: Timestamp
    ended_at: Timestamp
    usage: dict[str, int] | None = None
    finish_reason: str | None = None


class SetAside(_Model):
    """A turn a person set aside with Retry (`AgentRun.retry()`): it stays in the
    transcript for people to read, and the model is no longer sent it."""

    at: Timestamp = Field(default_factory=utc_now)
    by: AnsweredBy | None = None


class AssistantMessage(_Model):
    type: Literal["assistant"] = "assistant"
    text: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    call: ModelCall | None = None
    """The model request that produced this message (None in a hand-made transcript)."""
    set_aside: SetAside | None = None
    """Set when Retry set this turn aside: the message and its tool calls are kept for
    people to read, and no later model request carries them (see `read_by_model`)."""

    @property
    def stopped(self) -> bool:
        """The run was stopped while the model wrote this message: its text is what came
        before the stop (`call.finish_reason` is ``"cancelled"``), and the run asks the
        model again when it continues."""
        return self.call is not None and self.call.finish_reason == STOPPED_REASON

    @property
    def is_answer(self) -> bool:
        """The model's final answer: no tool calls, not cut by a stop, not set aside."""
        return not self.tool_calls and not self.stopped and self.set_aside is None


class ToolCall(_Model):
    """The record of one executed (or executing, or suspended) tool call.

    `id` is the id of the request in the assistant message it answers.
    """

    type: Literal["tool"] = "tool"
    id: str
    name: str
    input: dict[str, JsonValue] = Field(default_factory=dict)
    status: ToolCallStatus = "pending"
    result: JsonValue = None
    error: ErrorInfo | None = None
    interrupts: list[InterruptEntry] = Field(default_factory=list)
    attempts: int = 0
    """How many times the action was started for this call (`ctx.attempt` of the latest)."""
    cancellation: Cancellation | None = None
    """Set when the run was cancelled while this call was in flight (status `cancelled`)."""
    started_at: Timestamp | None = None
    """When the latest execution of the action started."""
    ended_at: Timestamp | None = None
    """When the latest execution ended (settled, or paused on an interrupt)."""

    @property
    def latest_interrupt(self) -> InterruptEntry | None:
        return self.interrupts[-1] if self.interrupts else None

    @property
    def pending_interrupt(self) -> InterruptEntry | None:
        """The unanswered entry this call waits on, if any (always the latest one)."""
        latest = self.latest_interrupt
        return latest if latest is not None and latest.is_pending else None

    @property
    def effective_input(self) -> dict[str, JsonValue]:
        """The input the action runs with: the arguments a person edited last (when
        approving, or at a breakpoint), else the model's `input`."""
        if not self.interrupts:
            return self.input
        edited = self.input
        for decision in decisions_of(self):
            if decision is not None and decision.args is not None:
                edited = decision.args
        return edited

    def decisions(self) -> list[Decision | None]:
        """What each answer in `interrupts` decided, oldest first (None: still waiting).
        See `pausepoint.transcript.decisions`."""
        return decisions_of(self)


Item = Annotated[UserMessage | AssistantMessage | ToolCall, Field(discriminator="type")]


class ModelPause(_Model):
    """A stepping run stopped before asking the model (`Prompt.model_pause`)."""

    at: Timestamp = Field(default_factory=utc_now)


class ForkOrigin(_Model):
    """Where a forked run came from: its parent run and the point it went back to, one
    of an interrupt (`interrupt_id`: that pause open again), a tool call (`tool_call_id`:
    paused before it runs again) or a model turn (`turn`: paused before the model is
    asked again). `edited` lists the items changed before the model was asked again."""

    run_id: str
    interrupt_id: str | None = None
    tool_call_id: str | None = None
    turn: int | None = None
    edited: list[int] = Field(default_factory=list)

    @property
    def point(self) -> Literal["interrupt", "tool call", "turn", "unknown"]:
        """What the fork went back to (``"unknown"``: a store kept only its parent)."""
        if self.interrupt_id is not None:
            return "interrupt"
        if self.tool_call_id is not None:
            return "tool call"
        return "turn" if self.turn is not None else "unknown"


class Prompt(_Model):
    """Everything a run is: instructions, ids and the ordered transcript items.

    >>> prompt = Prompt.from_user("Delete record 7")
    >>> Prompt.model_validate_json(prompt.model_dump_json()) == prompt
    True
    """

    schema_version: int = SCHEMA_VERSION
    thread_id: str = Field(default_factory=lambda: new_id("thread"))
    run_id: str = Field(default_factory=lambda: new_id("run"))
    instructions: str | None = None
    items: list[Item] = Field(default_factory=list)
    parent: ForkOrigin | None = None
    """Set on a run made by `AgentRun.fork(at=...)`."""
    model_pause: ModelPause | None = None
    """Set while a stepping run is stopped before its next model request."""
    owner: str | None = None
    """Who started the run, as the server that took its first request knew the caller
    (the identity its `authorize` hook gave); only that caller may read or continue it
    there. None: anyone who may use the server and knows the thread's id."""
    _aside: bool = PrivateAttr(default=False)
    """Some turn is set aside: model requests leave such turns out (see `for_model`)."""

    @classmethod
    def from_user(cls, text: str, *, instructions: str | None = None, **ids: Any) -> Prompt:
        """A new transcript that starts with one user message."""
        text = check_text(text, "The message")
        if instructions is not None:
            instructions = check_text(instructions, "The instructions")
        return cls(instructions=instructions, items=[UserMessage(text=text)], **ids)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[BaseModel], handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # An older transcript is upgraded as a dict before it is read. Only Python input
        # passes through `migrate`: a before-validator would turn every JSON document into
        # Python objects first and validate those, several times slower than reading the
        # JSON directly. A JSON document of an older version is caught by
        # `_current_version` and read again as a dict.
        schema = handler(source)
        return core_schema.json_or_python_schema(
            json_schema=schema,
            python_schema=core_schema.no_info_before_validator_function(migrate, schema),
        )

    @field_validator("schema_version", mode="before")
    @classmethod
    def _current_version(cls, version: Any) -> Any:
        if type(version) is int and version == _versions.SCHEMA_VERSION:
            return version
        raise _Outdated

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **options: Any) -> Self:
        """Load a saved transcript. Raises `InvalidTranscriptError` (naming the place) for
        a file that is malformed, inconsistent, or from a newer pausepoint."""
        try:
            return super().model_validate_json(json_data, **options)
        except ValidationError as exc:
            if not any(error["type"] == "timezone_aware" for error in exc.errors()):
                raise _refused(exc) from exc
        except _Outdated:
            pass
        # An older version, or a naive timestamp: read as a dict, upgraded and checked
        # by the rules, which name what is wrong.
        return cls.model_validate(pydantic_core.from_json(json_data), **options)

    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> Self:
        """Load a transcript from a dict, with the checks of `model_validate_json`."""
        try:
            return super().model_validate(obj, **options)
        except ValidationError as exc:
            raise _refused(exc) from exc

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> Self:
        # Runs when a Prompt is built or loaded, not when the loop appends to `items`.
        from ._consistency import check_prompt

        self._aside = check_prompt(self, parsed=info.mode == "json")
        return self

    def current_turn(self) -> tuple[AssistantMessage | None, list[ToolCall]]:
        """The latest assistant message and the tool call records that follow it.

        Cost is proportional to the number of calls in that turn, not to the transcript.
        """
        records: list[ToolCall] = []
        for item in reversed(self.items):
            if isinstance(item, ToolCall):
                records.append(item)
                continue
            if isinstance(item, AssistantMessage):
                records.reverse()
                return item, records
            break
        records.reverse()
        return None, records

    def pending(self) -> list[tuple[ToolCall, InterruptEntry]]:
        """Unanswered interrupts, oldest first. Interrupts only ever wait in the latest turn."""
        _, records = self.current_turn()
        found = [(r, r.pending_interrupt) for r in records]
        return [(r, e) for r, e in found if e is not None]

    def find_interrupt(self, interrupt_id: str) -> tuple[ToolCall, InterruptEntry] | None:
        """The tool call and entry with this id: the latest turn first (where answers go),
        then the rest of the transcript, newest first."""
        for item in reversed(self.items):
            if isinstance(item, ToolCall):
                for entry in item.interrupts:
                    if entry.id == interrupt_id:
                        return item, entry
        return None

    def snapshot(self) -> TranscriptView:
        """A read-only view of the items as they are now; later appends stay out of it."""
        return TranscriptView(self.items, len(self.items))

    def for_model(self) -> tuple[Sequence[Item], list[AssistantMessage]]:
        """What the next model request carries: every item (without copying) but the
        turns set aside by Retry, and the set-aside replies."""
        if not self._aside:
            return self.snapshot(), []
        return read_by_model(self.items), set_aside_replies(self.items)

    def set_aside(self, message: AssistantMessage, by: AnsweredBy | None = None) -> None:
        """Set `message`'s turn aside (what Retry does): kept in the transcript, and
        never sent to the model again."""
        message.set_aside = SetAside(by=by)
        self._aside = True

    def take_back_set_aside(self, message: AssistantMessage) -> None:
        """Undo `set_aside(message)` (the store refused to save it)."""
        message.set_aside = None
        self._aside = bool(set_aside_replies(self.items))

    def tool_calls(self) -> Iterator[ToolCall]:
        return (item for item in self.items if isinstance(item, ToolCall))

    @property
    def output(self) -> str | None:
        """The text of the final assistant message, once the run has completed."""
        last = self.items[-1] if self.items else None
        if isinstance(last, AssistantMessage) and last.is_answer:
            return last.text
        return None


def read_by_model(items: Iterable[Item]) -> list[Item]:
    """`items` without the turns set aside by Retry: each set-aside assistant message and
    the tool call records of its turn."""
    kept: list[Item] = []
    aside = False
    for item in items:
        if type(item) is AssistantMessage:
            aside = item.set_aside is not None
        elif type(item) is UserMessage:
            aside = False
        if not aside:
            kept.append(item)
    return kept


def set_aside_replies(items: Iterable[Item]) -> list[AssistantMessage]:
    """The assistant messages of `items` that Retry set aside, oldest first."""
    return [i for i in items if type(i) is AssistantMessage and i.set_aside is not None]


class _Outdated(Exception):
    """A JSON document's `schema_version` is not the current one: `model_validate_json`
    reads it again as a dict, which `migrate` upgrades (or refuses)."""


def _refused(exc: ValidationError) -> InvalidTranscriptError:
    problems = [
        TranscriptProblem(
            "".join(
                f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
            ).lstrip(".")
            or "(root)",
            error["msg"],
            "structure",
        )
        for error in exc.errors()
    ]
    return InvalidTranscriptError(problems, summary="The transcript is malformed")


class TranscriptView(Sequence[Item]):
    """The first `length` items of a transcript, without copying them."""

    __slots__ = ("_items", "_length")

    def __init__(self, items: list[Item], length: int) -> None:
        self._items = items
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Item]: ...

    def __getitem__(self, index: int | slice) -> Item | Sequence[Item]:
        if isinstance(index, slice):
            return self._items[: self._length][index]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("transcript index out of range")
        return self._items[index]

    def __repr__(self) -> str:
        return f"TranscriptView({self._length} items)"
