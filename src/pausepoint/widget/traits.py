"""What the kernel keeps on the page, declared once: the synced traits of a run view and of
the inbox, the transcript items and cards they hold, and the values the requests of
`protocol` answer with (a find's page, the triage list, an opened run, a bulk answer).

The kernel builds these as plain JSON (`_cards.py`, `_item_sync.py`, `_inbox.py`, ...);
the models say what that JSON is, key by key, and the page's types are generated from
them with the protocol's (`js/src/generated/protocol.ts`, `make protocol`). Every key is
declared: a test validates what real views send against these models, so a key added on
one side only, or a value of another shape, fails there and not in a browser.

Where a value can be long, the kernel sends a `Preview` of it instead (see `_preview`):
a text field says so (`str | Preview`); a JSON value, an object of arguments or a schema
included, may be one, or hold one anywhere inside it (a `Preview` is JSON too).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter
from typing_extensions import TypeAliasType

from .protocol import BulkAnswer, ErrorCode, Problem

__all__ = [
    "EXPORTED",
    "AssistantItem",
    "BulkOutcome",
    "BulkProgress",
    "Cancellation",
    "CardKind",
    "ErrorInfo",
    "FindValue",
    "ForkInfo",
    "FoundItem",
    "InboxEntry",
    "InboxTraits",
    "InterruptEntry",
    "Item",
    "JumpValue",
    "ModelCall",
    "OpenedRun",
    "PendingCard",
    "Preview",
    "PreviewInfo",
    "Resolution",
    "RunStatus",
    "RunViewTraits",
    "SetAside",
    "Thread",
    "ThreadLine",
    "ToolCallRequest",
    "ToolItem",
    "ToolStatus",
    "TriagePage",
    "TriageRow",
    "UserItem",
]

RunStatus = TypeAliasType(
    "RunStatus",
    Literal["idle", "running", "interrupted", "paused", "completed", "failed", "cancelled"],
)
"""Where a run stands, as its view's `status` trait says."""
ToolStatus = TypeAliasType(
    "ToolStatus",
    Literal[
        "pending",
        "running",
        "interrupted",
        "succeeded",
        "failed",
        "rejected",
        "responded",
        "cancelled",
    ],
)
CardKind = TypeAliasType("CardKind", Literal["tool-approval", "generic", "breakpoint", "unbound"])
Answerer = TypeAliasType("Answerer", Literal["code", "view", "inbox", "policy", "agui"])
"""Who answered a pause."""


class _Wire(BaseModel):
    """JSON the kernel sends: every key declared, none left over."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, use_attribute_docstrings=True)


class PreviewInfo(_Wire):
    """The head of a long value, its size in bytes, and the `ref` a `value` request
    answers with the whole of it."""

    text: str
    bytes: int
    ref: str


class Preview(_Wire):
    """A long value the kernel did not send whole."""

    preview: PreviewInfo = Field(alias="pausepoint:preview")


Text = str | Preview


class ErrorInfo(_Wire):
    name: str
    message: Text


class Resolution(_Wire):
    """How a pause was answered: resumed with `data`, or rejected with `error`."""

    type: Literal["resume", "reject"]
    by: Answerer | None = None
    data: JsonValue = None
    error: ErrorInfo | None = None
    at: str | None = None


class InterruptEntry(_Wire):
    id: str
    kind: str
    message: str
    data: JsonValue
    state: JsonValue
    response_schema: dict[str, JsonValue] | None
    created_at: str | None
    expires_at: str | None
    resolution: Resolution | None
    agui_run_id: str | None = None


class ToolCallRequest(_Wire):
    id: str
    name: str
    input: JsonValue


class UserItem(_Wire):
    type: Literal["user"]
    text: Text


class ModelCall(_Wire):
    model: str
    started_at: str
    ended_at: str
    usage: dict[str, int] | None
    finish_reason: str | None


class SetAside(_Wire):
    at: str
    by: str | None


class AssistantItem(_Wire):
    type: Literal["assistant"]
    text: Text
    tool_calls: list[ToolCallRequest] = []
    call: ModelCall | None = None
    set_aside: SetAside | None = None
    """Set when Retry set this turn aside: kept for people to read, never sent to the
    model again."""


class Cancellation(_Wire):
    by: str
    reason: str | None
    at: str


class ToolItem(_Wire):
    type: Literal["tool"]
    id: str
    name: str
    input: JsonValue
    status: ToolStatus
    result: JsonValue = None
    error: ErrorInfo | None = None
    interrupts: list[InterruptEntry] = []
    attempts: int = 0
    cancellation: Cancellation | None = None
    started_at: str | None = None
    ended_at: str | None = None


Item = TypeAliasType(
    "Item", Annotated[UserItem | AssistantItem | ToolItem, Field(discriminator="type")]
)
"""One transcript item as the page gets it."""


class PendingCard(_Wire):
    """One pause a view shows, answerable there (`canResolve`) or not."""

    id: str
    key: str | None = None
    """Unique among a view's cards; another producer's card may reuse an interrupt id of
    this run's, so cards are told apart by key and answered by id."""
    run_id: str | None = Field(None, alias="runId")
    """The run the card belongs to, where a view lists several runs (the inbox)."""
    kind: CardKind
    can_resolve: bool = Field(alias="canResolve")
    message: str
    agui_reason: Literal["tool_call", "input_required"] | None = Field(None, alias="aguiReason")
    """The reason AG-UI clients are offered this pause under; null for a pause they are
    not offered (a breakpoint, another producer's)."""
    read_only_reason: str | None = Field(None, alias="readOnlyReason")
    """Why this card cannot be answered here, for people (set when `canResolve` is false)."""
    read_from: str | None = Field(None, alias="readFrom")
    """The producer whose pause this card was read from by its shape, for a pause without
    pausepoint's binding: "Read from ...'s pause"."""
    decisions: list[str] | None = None
    """What that producer takes, of "approve", "edit", "respond" and "reject"; null: all."""
    data: JsonValue
    tool_call_id: str | None = Field(alias="toolCallId")
    tool_name: str | None = Field(alias="toolName")
    args: dict[str, JsonValue] | None
    input_schema: dict[str, JsonValue] | None = Field(alias="inputSchema")
    response_schema: dict[str, JsonValue] | None = Field(alias="responseSchema")
    created_at: str = Field(alias="createdAt")
    expires_at: str | None = Field(alias="expiresAt")
    validated_args: dict[str, JsonValue] | None = Field(None, alias="validatedArgs")
    """An approval's arguments as the action will receive them, when they fit its input."""
    args_problems: list[Problem] | None = Field(None, alias="argsProblems")
    """Why an approval's arguments do not fit the action's input."""


class ForkInfo(_Wire):
    """A fork as the view lists it (the kernel keeps the list current as the fork moves)."""

    run_id: str = Field(alias="runId")
    name: str | None = None
    """What made it: "declined at refund", "edited cents at refund", "asked again at turn 3"."""
    code: str | None = None
    """How to reach it in the notebook: `finished.forks[0]`, by the variable holding it."""
    interrupt_id: str | None = Field(alias="interruptId")
    tool_call_id: str | None = Field(None, alias="toolCallId")
    turn: int | None = None
    status: str
    items: int | None = None
    open: bool | None = None
    """Shown in place below this view (`fork_view`)."""


class RunViewTraits(_Wire):
    """The synced traits of a run view (`RunView`)."""

    run_id: str
    meta: dict[str, JsonValue]
    status: RunStatus
    error: ErrorInfo | None
    started_at: float | None
    items: list[Item]
    pending: list[PendingCard]
    forks: list[ForkInfo]
    fork_view: str | None
    """The view of the fork shown in place below this one (`IPY_MODEL_<id>`), or null."""
    editable: list[int]
    """Positions of the items a person can edit now: a fork made at a model turn, before
    it asks the model again (`AgentRun.editable_items`)."""
    edited: list[int]
    """Positions of the items a person edited in this fork (`ForkOrigin.edited`)."""
    load_line: str
    """For a stored run, the line that rebuilds it after a restart; empty otherwise."""


class InboxEntry(_Wire):
    """One run of the store that waits on a person."""

    run_id: str = Field(alias="runId")
    agent: str | None
    title: str
    created_at: str = Field(alias="createdAt")
    updated_at: str = Field(alias="updatedAt")
    reason: str | None
    """Why this kernel cannot answer the run's cards (its agent is unknown here), or null."""
    damaged: bool | None = None
    """The run's stored rows could not be read; `reason` names what is wrong."""
    cards: list[PendingCard]


class BulkOutcome(_Wire):
    """One run's outcome in a bulk answer."""

    run_id: str = Field(alias="runId")
    outcome: Literal["answered", "not-waiting", "read-only", "gone", "refused"]
    message: str
    code: ErrorCode | None = None


class BulkProgress(_Wire):
    """The latest bulk answer asked from the view, as it goes (the `bulk` trait)."""

    id: str | None = None
    answer: BulkAnswer | None = None
    total: int | None = None
    outcomes: list[BulkOutcome] | None = None


class InboxTraits(_Wire):
    """The synced traits of the inbox (`Inbox`)."""

    view: Literal["inbox"]
    entries: list[InboxEntry]
    total: int
    """How many runs wait; `entries` holds the newest of them."""
    refreshed_at: str
    revision: int
    """Moves on each reading of the store: the list asks for its shown page again."""
    bulk: BulkProgress


class FoundItem(_Wire):
    """One step the kernel found, as the view draws it."""

    position: int
    """Its index in `items`."""
    call: int | None
    """Its call number, for a tool call."""
    item: Item


class FindValue(_Wire):
    """The answer to a find: how many steps fit, and one page of them from `from`."""

    total: int
    calls: int
    """Tool calls in the run."""
    from_: int = Field(alias="from")
    items: list[FoundItem]
    ms: float
    """How long the kernel took (ms)."""


class JumpValue(_Wire):
    """The answer to a jump: the page around `target` (null: no such step)."""

    target: int | None
    call: int | None
    calls: int
    items: list[FoundItem]
    ms: float


class TriageRow(_Wire):
    """One waiting run as a row of the inbox's triage list."""

    run_id: str = Field(alias="runId")
    title: str
    agent: str | None
    status: Literal["waiting", "failed", "stopped"]
    kind: str | None
    tool: str | None
    message: str | None
    pauses: int
    arguments: dict[str, JsonValue]
    """The key arguments of the call that pauses (numbers, booleans, cut texts)."""
    since: str
    ignored_by: str | None = Field(alias="ignoredBy")
    ignored_at: str | None = Field(alias="ignoredAt")
    damaged: str | None
    answerable: bool
    """This kernel has the run's agent: its cards can be answered here."""


class TriagePage(_Wire):
    """One page of the triage list (the `list` request's value)."""

    rows: list[TriageRow]
    total: int
    offset: int
    agents: list[tuple[str, int]]
    kinds: list[tuple[str, int]]
    keys: list[str]


class ThreadLine(_Wire):
    role: str
    text: str


class Thread(_Wire):
    """The last lines of a run's conversation, and how many earlier ones are left out."""

    items: list[ThreadLine]
    earlier: int


class OpenedRun(InboxEntry):
    """A run opened from the list (the `open` request's value): its entry with cards, and
    its thread."""

    thread: Thread
    status: str | None = None
    """The run's status when it was read (its summary's)."""


RUN_VIEW_TRAITS: TypeAdapter[Any] = TypeAdapter(RunViewTraits)
INBOX_TRAITS: TypeAdapter[Any] = TypeAdapter(InboxTraits)

EXPORTED: tuple[Any, ...] = (
    RunViewTraits,
    InboxTraits,
    FindValue,
    JumpValue,
    TriagePage,
    OpenedRun,
)
"""What the page's generated types name of the traits and values."""
