"""What a recorded answer means, read in one place.

Every reader of an answer (the loop, the transcript's effective input, the view's thread
and history, the saved snapshot, the inbox, Compare, AG-UI output) asks `decision_of`
and never reads the raw JSON of a resolution. The front end has the same reading in
``js/src/lib/answers.ts``; both are tested against one table of cases
(``tests/fixtures/decisions.json``).

>>> from pausepoint.transcript import InterruptEntry, ResumeResolution
>>> entry = InterruptEntry(kind="tool-approval", message="Refund?",
...     resolution=ResumeResolution(data={"approved": True, "editedArgs": {"cents": 250}}))
>>> decision = decision_of(entry, {"cents": 500})
>>> decision.kind, decision.words
('approved-with-changes', 'Approved with changes: cents 500 → 250')

Nothing here does I/O or knows about runs, actions or widgets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import JsonValue

from ..errors import InvalidResolutionError, ResolutionProblem

if TYPE_CHECKING:
    from . import ErrorInfo, InterruptEntry, ToolCall

__all__ = [
    "DEFAULT_REJECTION_MESSAGE",
    "RESPONSE_KEY",
    "ApprovalAnswer",
    "BreakpointAction",
    "Change",
    "Decision",
    "DecisionKind",
    "decision_of",
    "decisions_of",
    "parse_approval",
    "parse_breakpoint_answer",
    "respond_answer",
    "shown_status",
]

DecisionKind = Literal[
    "approved",
    "approved-with-changes",
    "declined",
    "responded",
    "expired",
    "answered",
    "continued",
    "stepped",
    "skipped",
    "edited",
]
"""What a person (or code, or a policy) decided about one pause:

- ``approved``: a tool approval, the arguments as given;
- ``approved-with-changes``: a tool approval with edited arguments (see `changes`);
- ``declined``: a tool approval answered ``False``, or any pause rejected (see `reason`);
- ``responded``: a tool approval answered with a person's words instead (see `value`):
  the action does not run and the model reads the words as the call's outcome;
- ``expired``: nobody answered before the pause's deadline;
- ``answered``: a question answered with a value (see `value`);
- ``continued`` / ``stepped`` / ``skipped`` / ``edited``: a breakpoint's answers.
"""

BreakpointAction = Literal["continue", "step", "skip", "edit"]
_BREAKPOINT_ACTIONS: tuple[str, ...] = get_args(BreakpointAction)
_APPROVAL_KEYS = frozenset({"approved", "editedArgs", "payload"})

RESPONSE_KEY = "response"
"""Where a response's words travel in a tool approval's answer:
``{"approved": false, "payload": {"response": "..."}}`` (what `respond_answer` builds)."""

DEFAULT_REJECTION_MESSAGE = "The user declined."
"""The message a rejection records when no reason was given."""

_QUIET_REASONS = frozenset({DEFAULT_REJECTION_MESSAGE, "The user cancelled this interrupt."})
_EXPIRED = "InterruptExpired"
_SHOWN_VALUE = 80


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """A tool-approval answer: `True`/`False` or `{approved, editedArgs?, payload?}`."""

    approved: bool
    edited_args: dict[str, Any] | None = None
    payload: Any = None

    @property
    def response(self) -> str | None:
        """The words of a response (Respond) instead of running the action, if it is one."""
        return None if self.approved else _response(self.payload)


def parse_approval(data: JsonValue) -> ApprovalAnswer:
    """Read a tool-approval answer; raises `InvalidResolutionError` for any other shape."""
    if isinstance(data, bool):
        return ApprovalAnswer(approved=data)
    if not isinstance(data, dict):
        raise _invalid("$", "a tool approval is answered with True, False or {approved: ...}")
    unknown = sorted(set(data) - _APPROVAL_KEYS)
    if unknown:
        raise _invalid(f"$.{unknown[0]}", "unknown key; allowed: approved, editedArgs, payload")
    approved = data.get("approved")
    if not isinstance(approved, bool):
        raise _invalid("$.approved", "required, and must be true or false")
    edited = data.get("editedArgs")
    if edited is not None:
        if not approved:
            raise _invalid(
                "$.editedArgs", "only an approval may edit the arguments", "invalid-edited-args"
            )
        if not isinstance(edited, dict):
            raise _invalid("$.editedArgs", "must be an object", "invalid-edited-args")
    return ApprovalAnswer(approved=approved, edited_args=edited, payload=data.get("payload"))


def parse_breakpoint_answer(data: JsonValue) -> tuple[BreakpointAction, dict[str, Any] | None]:
    """Read a breakpoint answer; raises `InvalidResolutionError` for any other shape."""
    if not isinstance(data, dict):
        raise _invalid(
            "$",
            'a breakpoint is answered with {"action": "continue" | "step" | "skip" | "edit"}',
            summary="That is not an answer to a breakpoint",
        )
    unknown = sorted(set(data) - {"action", "args"})
    if unknown:
        raise _invalid(
            f"$.{unknown[0]}",
            "unknown key; allowed: action, args",
            summary="That is not an answer to a breakpoint",
        )
    action = data.get("action")
    if action not in _BREAKPOINT_ACTIONS:
        raise _invalid(
            "$.action",
            f"must be one of {', '.join(_BREAKPOINT_ACTIONS)}",
            summary="That is not an answer to a breakpoint",
        )
    args = data.get("args")
    if action == "edit" and not isinstance(args, dict):
        raise _invalid(
            "$.args",
            "edit needs the new arguments as an object",
            summary="That is not an answer to a breakpoint",
        )
    if action != "edit" and args is not None:
        raise _invalid(
            "$.args", "only edit takes arguments", summary="That is not an answer to a breakpoint"
        )
    return action, args if isinstance(args, dict) else None  # type: ignore[return-value]


class _Absent:
    """An argument that is not there (before it was added, or after it was removed)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


@dataclass(frozen=True, slots=True)
class Change:
    """One argument a person changed: its value before and after (`ABSENT` when the
    argument was added or removed)."""

    name: str
    old: JsonValue | _Absent
    new: JsonValue | _Absent

    @property
    def words(self) -> str:
        return f"{self.name} {_show(self.old)} → {_show(self.new)}"

    def as_json(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"name": self.name}
        if not isinstance(self.old, _Absent):
            out["old"] = self.old
        if not isinstance(self.new, _Absent):
            out["new"] = self.new
        return out


@dataclass(frozen=True, slots=True)
class Decision:
    """One recorded answer, read: what was decided, when, and what it changes.

    `args` is set when the answer replaced the arguments the action runs with (an
    approval with edits, a breakpoint's edit), and `changes` lists each argument that
    moved. `reason` is the refusal of a declined or expired pause (None when a person
    declined without saying why). `value` is a question's answer, or an approval's
    payload.
    """

    kind: DecisionKind
    at: datetime
    by: str | None = None
    """Who answered: ``code``, ``view``, ``inbox``, ``policy`` or ``agui`` (None when the
    transcript predates it)."""
    reason: ErrorInfo | None = None
    value: JsonValue = None
    args: dict[str, JsonValue] | None = None
    changes: tuple[Change, ...] = ()

    @property
    def words(self) -> str:
        """The decision as a person reads it: "Approved", "Declined: not today",
        "Approved with changes: order_id 7 → 42", "Skipped"."""
        changed = ", ".join(change.words for change in self.changes)
        if self.kind == "approved":
            return "Approved"
        if self.kind == "approved-with-changes":
            return f"Approved with changes: {changed}" if changed else "Approved with changes"
        if self.kind == "declined":
            return f"Declined: {self.reason.message}" if self.reason is not None else "Declined"
        if self.kind == "responded":
            return f"Responded: {_cut(str(self.value))}"
        if self.kind == "expired":
            return "Expired: nobody answered in time"
        if self.kind == "answered":
            if self.value is None:
                return "Answered"
            return f"Answered: {_cut(_plain(self.value))}"
        if self.kind == "edited":
            return (
                f"Ran with edited arguments: {changed}" if changed else "Ran with edited arguments"
            )
        return {"continued": "Continued", "stepped": "Stepped", "skipped": "Skipped"}[self.kind]

    @property
    def runs_action(self) -> bool:
        """True when the action runs (again) after this decision."""
        return self.kind not in ("declined", "responded", "expired", "skipped")

    def as_json(self) -> dict[str, JsonValue]:
        """The decision as the front end and AG-UI output carry it (camelCase keys)."""
        out: dict[str, JsonValue] = {"kind": self.kind, "words": self.words}
        out["at"] = self.at.isoformat()
        if self.by is not None:
            out["by"] = self.by
        if self.reason is not None:
            out["reason"] = {"name": self.reason.name, "message": self.reason.message}
        if self.value is not None:
            out["value"] = self.value
        if self.args is not None:
            out["args"] = self.args
        if self.changes:
            out["changes"] = [change.as_json() for change in self.changes]
        return out


def decision_of(
    entry: InterruptEntry, before: dict[str, JsonValue] | None = None
) -> Decision | None:
    """What the answer to `entry` decided (None while it waits). `before` is the input
    the action had before this answer, to list what an edit changed.

    Raises `InvalidResolutionError` when the recorded answer does not fit the entry's
    kind (a hand-edited file: loading refuses it, see `pausepoint.transcript._consistency`).
    """
    resolution = entry.resolution
    if resolution is None:
        return None
    at, by = resolution.at, resolution.by
    if resolution.type == "reject":
        error = resolution.error
        if error.name == _EXPIRED:
            return Decision("expired", at, by, reason=error)
        quiet = error.message in _QUIET_REASONS
        return Decision("declined", at, by, reason=None if quiet else error)
    data = resolution.data
    if entry.kind == "tool-approval":
        answer = parse_approval(data)
        if not answer.approved:
            response = _response(answer.payload)
            if response is not None:
                return Decision("responded", at, by, value=response)
            return Decision("declined", at, by, value=answer.payload)
        if answer.edited_args is None:
            return Decision("approved", at, by, value=answer.payload)
        changes = _changes(before, answer.edited_args)
        kind: DecisionKind = "approved-with-changes" if changes or before is None else "approved"
        return Decision(
            kind, at, by, value=answer.payload, args=answer.edited_args, changes=changes
        )
    if entry.kind == "breakpoint":
        action, args = parse_breakpoint_answer(data)
        if action == "edit":
            assert args is not None
            return Decision("edited", at, by, args=args, changes=_changes(before, args))
        words: dict[str, DecisionKind] = {
            "continue": "continued",
            "step": "stepped",
            "skip": "skipped",
        }
        return Decision(words[action], at, by)
    return Decision("answered", at, by, value=data)


def decisions_of(record: ToolCall) -> list[Decision | None]:
    """The decision of each entry in `record`'s history, oldest first (None: waiting);
    each edit compared with the arguments the action had just before it."""
    args: dict[str, JsonValue] = record.input
    out: list[Decision | None] = []
    for entry in record.interrupts:
        decision = decision_of(entry, args)
        if decision is not None and decision.args is not None:
            args = decision.args
        out.append(decision)
    return out


def respond_answer(words: str) -> dict[str, JsonValue]:
    """The tool approval's answer that responds with `words` instead of running the action."""
    return {"approved": False, "payload": {RESPONSE_KEY: words}}


def _response(payload: Any) -> str | None:
    if isinstance(payload, dict) and set(payload) == {RESPONSE_KEY}:
        words = payload[RESPONSE_KEY]
        if isinstance(words, str) and words.strip():
            return words
    return None


def shown_status(record: ToolCall) -> str:
    """A tool call's status in a person's words: a call that never ran because of a
    decision says which (``declined``, ``skipped``, ``expired``), not ``rejected``."""
    if record.status != "rejected" or not record.interrupts:
        return "waiting for you" if record.status == "interrupted" else record.status
    decision = decision_of(record.interrupts[-1])
    if decision is None:
        return record.status
    return {"skipped": "skipped", "expired": "expired"}.get(decision.kind, "declined")


def _changes(
    before: dict[str, JsonValue] | None, after: dict[str, JsonValue]
) -> tuple[Change, ...]:
    if before is None:
        return ()
    names = list(before) + [name for name in after if name not in before]
    return tuple(
        Change(name, before.get(name, ABSENT), after.get(name, ABSENT))
        for name in names
        if name not in before or name not in after or not _same(before[name], after[name])
    )


def _same(a: JsonValue, b: JsonValue) -> bool:
    # JSON equality: True is not 1, and 1 is 1.0 (the front end cannot tell them apart).
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _show(value: JsonValue | _Absent) -> str:
    """A short JSON rendering, as the front end's `JSON.stringify` writes it."""
    if isinstance(value, _Absent):
        return "(none)"
    if isinstance(value, str) and len(value) > _SHOWN_VALUE:
        value = value[:_SHOWN_VALUE]  # the same first characters, without writing it all
    text = json.dumps(_js_numbers(value), ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= _SHOWN_VALUE else text[: _SHOWN_VALUE - 1] + "…"


def _plain(value: JsonValue) -> str:
    """A value for people: words as words, a form's answer as its fields ("speed: fast,
    days: 2"), anything else as short JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and value:
        return ", ".join(
            f"{key}: {item if isinstance(item, str) else _show(item)}"
            for key, item in value.items()
        )
    return _show(value)


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN_VALUE else text[: _SHOWN_VALUE - 1] + "…"


def _js_numbers(value: Any) -> Any:
    """Whole floats as integers, as JavaScript writes them (30.0 is "30")."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {key: _js_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_js_numbers(item) for item in value]
    return value


def _invalid(
    path: str, message: str, code: str = "invalid-payload", *, summary: str = ""
) -> InvalidResolutionError:
    return InvalidResolutionError([ResolutionProblem(path, message, code)], summary=summary)
