"""The protocol between the kernel and the page, declared once: every request a view
sends, every reply, and the error codes.

A request is `{type, requestId, ...}`; `ViewRequest` is what a run view serves and
`InboxRequest` what the inbox serves, each a union discriminated on `type`. The request
path (`_requests.py`) validates each message with them, so a handler gets a checked model
and a message of the wrong shape is refused with the path of its first problem. Every
request gets one `Reply`: a `Success` with its `value`, or a `Failure` whose `error`
carries an `ErrorCode`.

The page's types are generated from these models (`js/src/generated/protocol.ts`):

    python -m pausepoint.widget._typescript > js/src/generated/protocol.ts

which `make protocol` runs; a test fails when the checked-in file is not what this makes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, model_validator
from typing_extensions import TypeAliasType

from ..errors import UsageError

__all__ = [
    "BULK_LIMIT",
    "MAX_FIND_PAGE",
    "MAX_FIND_TEXT",
    "MAX_REQUEST_ID",
    "Branches",
    "Bulk",
    "BulkAnswer",
    "Cancel",
    "Debug",
    "EditItem",
    "ErrorCode",
    "Failure",
    "FindFilter",
    "FindRequest",
    "FindStatus",
    "Follow",
    "Fork",
    "Ignore",
    "InboxRequest",
    "JumpCall",
    "ListFilter",
    "ListRuns",
    "ModelRequest",
    "OpenRun",
    "Problem",
    "Refresh",
    "Reject",
    "Reply",
    "ReplyError",
    "Resume",
    "Retry",
    "Say",
    "Show",
    "ShowFork",
    "Success",
    "Unignore",
    "Value",
    "ViewRequest",
    "request_types",
]

MAX_REQUEST_ID = 256
"""The longest `requestId` served (characters)."""
BULK_LIMIT = 1000
"""The most runs one bulk answer goes to."""
MAX_FIND_PAGE = 200
"""The most steps one page of a find holds."""
MAX_FIND_TEXT = 200
"""The longest text a find searches for (characters)."""
FIND_PAGE = 50
"""Steps in one page of a find, unless the request asks for another count."""

ErrorCode = TypeAliasType(
    "ErrorCode",
    Literal[
        "bad-request",
        "too-large",
        "too-deep",
        "not-found",
        "no-loop",
        "invalid-answer",
        "already-resolved",
        "expired",
        "busy",
        "damaged",
        "refused",
        "cancelled",
        "internal",
    ],
)
"""What kind of refusal a failure is: one short word a page or a test can branch on."""
ERROR_CODES: tuple[str, ...] = get_args(ErrorCode.__value__)

FindStatus = TypeAliasType(
    "FindStatus", Literal["waiting", "failed", "cancelled", "edited", "answered"]
)
"""What a find filters on: steps waiting for an answer, failed, cancelled, run with
arguments a person edited, or answered by a person (anyone but a scripted policy)."""
BulkAnswer = TypeAliasType("BulkAnswer", Literal["approve", "decline", "respond"])


class _Shape(BaseModel):
    # Strict: a page sends JSON, so "1" is no number and true no integer.
    model_config = ConfigDict(strict=True, frozen=True, populate_by_name=True)


class _Part(_Shape):
    """A part of a request whose keys are all known: any other key is a mistake."""

    model_config = ConfigDict(extra="forbid")


class _Request(_Shape):
    """What every request carries. Keys a request does not declare are ignored."""

    request_id: str = Field(alias="requestId", max_length=MAX_REQUEST_ID)


# -- requests both views serve ---------------------------------------------------------


class Resume(_Request):
    """Approve or submit: `data` is the answer (`true`, `{approved, editedArgs}`, words or
    JSON fitting the pause's response schema; absent is `null`). In an inbox, `run` names
    the run when a run and its forks wait on one interrupt id."""

    type: Literal["resume"]
    interrupt: str
    data: JsonValue = None
    run: str | None = None


class Reject(_Request):
    """Decline, with a reason or none (a blank reason is none)."""

    type: Literal["reject"]
    interrupt: str
    reason: str | None = None
    run: str | None = None


class Value(_Request):
    """The whole value behind a preview's reference (what "Show all" shows)."""

    type: Literal["value"]
    ref: str


# -- a run view's requests -------------------------------------------------------------


class Say(_Request):
    """The message box: the next user message of a run that waits on nobody, or `null`
    to go on after a stop or a failure (Continue)."""

    type: Literal["say"]
    text: str | None = None

    @model_validator(mode="after")
    def _not_blank(self) -> Say:
        if self.text is not None and not self.text.strip():
            raise UsageError("text: the message is empty; write something first.")
        return self


class Retry(_Request):
    """Ask the model again without the turn that ended the run (after a stop or failure)."""

    type: Literal["retry"]


class Cancel(_Request):
    """Stop the run; answered once it has stopped."""

    type: Literal["cancel"]


class Debug(_Request):
    """Go on from a stepping run's pause before a model request."""

    type: Literal["debug"]
    action: Literal["step", "continue"]


class ModelRequest(_Request):
    """What the model was sent for assistant turn `turn` (0 for the first)."""

    type: Literal["model_request"]
    turn: int


class Fork(_Request):
    """A new run forked at an answered interrupt, before a tool call runs again, or
    before model turn `turn`: exactly one of the three. `open`: show it in place below
    the view (Go back here)."""

    type: Literal["fork"]
    interrupt: str | None = None
    call: str | None = None
    turn: int | None = None
    open: bool = False

    @model_validator(mode="after")
    def _one_point(self) -> Fork:
        given = [p for p in (self.interrupt, self.call, self.turn) if p is not None]
        if len(given) != 1:
            raise UsageError(
                "A fork request needs one of interrupt: <id>, call: <tool call id> or turn: <int>."
            )
        return self


class Branches(_Request):
    """This run and its fork `fork` (a run id) from the fork point on."""

    type: Literal["branches"]
    fork: str


class ShowFork(_Request):
    """Show the fork `fork` (a run id) in place below the view, or none with `null`."""

    type: Literal["show_fork"]
    fork: str | None = None


class EditItem(_Request):
    """In a fork made at a model turn, before it asks the model again: a user message's
    new words (`text`) or the result the model reads of a tool call (`result`, any JSON,
    `null` included); exactly one of the two."""

    type: Literal["edit_item"]
    position: int
    text: str | None = None
    result: JsonValue = None

    @model_validator(mode="after")
    def _one_change(self) -> EditItem:
        if ("text" in self.model_fields_set) == ("result" in self.model_fields_set):
            raise UsageError("An edit changes one of text or result.")
        if "text" in self.model_fields_set and self.text is None:
            raise UsageError("text: Input should be a valid string")
        return self


class FindFilter(_Part):
    """What a find keeps: steps that fit every part that is set."""

    tool: str | None = None
    status: FindStatus | None = None
    text: str | None = Field(None, max_length=MAX_FIND_TEXT)


class JumpCall(_Part):
    """A tool call by its number, 1 for the first."""

    call: int = Field(gt=0)


class FindRequest(_Request):
    """The steps that fit `filter`: how many, and `count` of them from the `from`-th; or,
    with `jump`, the page of the transcript around a call, the first pause or the last
    failure."""

    type: Literal["find"]
    filter: FindFilter = FindFilter()
    from_: int = Field(0, alias="from", ge=0, le=10**9)
    count: int = Field(FIND_PAGE, ge=0, le=MAX_FIND_PAGE)
    jump: Literal["first-pause", "last-failure"] | JumpCall | None = None


class Follow(_Request):
    """The page keeps the transcript from the `items` messages: the end of a cell need not
    send the whole `items` trait again."""

    type: Literal["follow"]


# -- the inbox's requests --------------------------------------------------------------


class Refresh(_Request):
    """Read the store again; answered once it has."""

    type: Literal["refresh"]


class Show(_Request):
    """Show the newest `count` waiting runs."""

    type: Literal["show"]
    count: int = Field(ge=0)


class ListFilter(_Part):
    """What the triage list keeps (the store checks the values)."""

    text: str | None = None
    agent: str | None = None
    kind: str | None = None
    status: str | None = None
    ignored: bool | None = False


class ListRuns(_Request):
    """One page of the triage list: the runs that fit `filter`, sorted by `sort`."""

    type: Literal["list"]
    filter: ListFilter | None = None
    sort: str | None = None
    offset: int = 0
    limit: int = 50


class OpenRun(_Request):
    """A listed run's cards and thread; its cards are answerable from then on."""

    type: Literal["open"]
    run: str


class Bulk(_Request):
    """One answer to many runs; `text` is the reason to decline or the words to respond."""

    type: Literal["bulk"]
    answer: BulkAnswer
    runs: list[str] = Field(min_length=1, max_length=BULK_LIMIT)
    text: str | None = None

    @model_validator(mode="after")
    def _words_to_respond(self) -> Bulk:
        if self.answer == "respond" and not (self.text and self.text.strip()):
            raise UsageError("text: Respond needs the words to send.")
        return self


class Ignore(_Request):
    """Hide a run from the list, saying who did (`by`)."""

    type: Literal["ignore"]
    run: str
    by: str | None = None


class Unignore(_Request):
    """List a hidden run again."""

    type: Literal["unignore"]
    run: str


ViewRequest = TypeAliasType(
    "ViewRequest",
    Annotated[
        Resume
        | Reject
        | Value
        | Say
        | Retry
        | Cancel
        | Debug
        | ModelRequest
        | Fork
        | Branches
        | ShowFork
        | EditItem
        | FindRequest
        | Follow,
        Field(discriminator="type"),
    ],
)
"""A request a run view serves."""

InboxRequest = TypeAliasType(
    "InboxRequest",
    Annotated[
        Resume | Reject | Value | Refresh | Show | ListRuns | OpenRun | Bulk | Ignore | Unignore,
        Field(discriminator="type"),
    ],
)
"""A request the inbox serves."""


def request_types(union: Any) -> frozenset[str]:
    """The `type`s of the requests in `union` (`ViewRequest` or `InboxRequest`)."""
    members = get_args(get_args(union.__value__)[0])
    return frozenset(get_args(m.model_fields["type"].annotation)[0] for m in members)


# -- replies ---------------------------------------------------------------------------


class Problem(_Part):
    """Why part of an answer does not fit: a JSON path into it (`$.editedArgs.amount`)."""

    path: str
    message: str


class ReplyError(_Part):
    """Why a request was refused: `name` is what the card shows, `message` what to do,
    `code` what kind of refusal, `problems` the parts of an answer that do not fit."""

    name: str
    message: str
    code: ErrorCode
    problems: list[Problem] = []


class Success(_Part):
    """A served request; `value` when it has one (absent: none)."""

    type: Literal["response"]
    request_id: str | None = Field(alias="requestId")
    ok: Literal[True]
    value: JsonValue = None


class Failure(_Part):
    """A refused request. A message without a usable `requestId` gets `requestId: null`."""

    type: Literal["response"]
    request_id: str | None = Field(alias="requestId")
    ok: Literal[False]
    error: ReplyError


Reply = TypeAliasType("Reply", Annotated[Success | Failure, Field(discriminator="ok")])
"""The one reply of one request."""

VIEW_REQUESTS: TypeAdapter[Any] = TypeAdapter(ViewRequest)
INBOX_REQUESTS: TypeAdapter[Any] = TypeAdapter(InboxRequest)
REPLIES: TypeAdapter[Any] = TypeAdapter(Reply)

EXPORTED: tuple[Any, ...] = (ViewRequest, InboxRequest, Reply)
"""What the page's generated types name; every model they reach is named too."""
