"""The pure rule that decides each tool call's next step, as a table."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from pausepoint import ToolCall, action
from pausepoint.run._steps import (
    AskApproval,
    Fail,
    Invoke,
    Reject,
    Settled,
    Wait,
    next_step,
)
from pausepoint.transcript import ErrorInfo, InterruptEntry, RejectResolution, ResumeResolution


@action
def plain(n: int) -> int:
    """Plain."""
    return n


@action(needs_approval=True)
def guarded(n: int) -> int:
    """Guarded."""
    return n


ACTIONS = {"plain": plain, "guarded": guarded}


def entry(kind: str = "generic", answer: Any = "none") -> InterruptEntry:
    e = InterruptEntry(id=f"int_{kind}", kind=kind, message="?", state={"cp": 1})  # type: ignore[arg-type]
    if answer == "reject":
        e.resolution = RejectResolution(error=ErrorInfo(name="No", message="not now"))
    elif answer != "none":
        e.resolution = ResumeResolution(data=answer)
    return e


def record(
    name: str, status: str, *entries: InterruptEntry, n: Any = 1, attempts: int = 0
) -> ToolCall:
    return ToolCall(
        id="c1",
        name=name,
        input={"n": n},
        status=status,  # type: ignore[arg-type]
        interrupts=list(entries),
        attempts=attempts,
    )


CASES: list[tuple[str, ToolCall, type, dict[str, Any]]] = [
    ("new call runs as attempt 1", record("plain", "pending"), Invoke, {"attempt": 1}),
    (
        "a call left running by a crash runs again",
        record("plain", "running", attempts=1),
        Invoke,
        {"attempt": 2, "resumption": None},
    ),
    ("succeeded is settled", record("plain", "succeeded", attempts=1), Settled, {}),
    ("failed is settled", record("plain", "failed"), Settled, {}),
    ("rejected is settled", record("plain", "rejected"), Settled, {}),
    ("cancelled is settled, never re-run", record("plain", "cancelled", attempts=1), Settled, {}),
    ("a pending question waits", record("plain", "interrupted", entry()), Wait, {}),
    (
        "an answered question resumes with the answer and checkpoint",
        record("plain", "interrupted", entry(answer={"ok": True}), attempts=1),
        Invoke,
        {"attempt": 2},
    ),
    (
        "a declined question rejects with the person's error",
        record("plain", "interrupted", entry(answer="reject")),
        Reject,
        {"error": ErrorInfo(name="No", message="not now")},
    ),
    ("unknown action fails", record("nope", "pending"), Fail, {}),
    ("bad input fails", record("plain", "pending", n="x"), Fail, {}),
    ("guarded call asks first", record("guarded", "pending"), AskApproval, {}),
    (
        "approved guarded call runs once as attempt 1",
        record("guarded", "interrupted", entry("tool-approval", True)),
        Invoke,
        {"attempt": 1, "resumption": None},
    ),
    (
        "declined guarded call is rejected without running",
        record("guarded", "interrupted", entry("tool-approval", False)),
        Reject,
        {},
    ),
    (
        "a guarded call waits on its approval",
        record("guarded", "interrupted", entry("tool-approval")),
        Wait,
        {},
    ),
]


@pytest.mark.parametrize(("case", "rec", "kind", "fields"), CASES, ids=[c[0] for c in CASES])
def test_next_step(case: str, rec: ToolCall, kind: type, fields: dict[str, Any]) -> None:
    step = next_step(rec, ACTIONS.get(rec.name), "guarded, plain")
    assert type(step) is kind
    for name, value in fields.items():
        assert getattr(step, name) == value


def test_a_resumed_call_gets_the_answer_and_the_checkpoint_of_the_entry() -> None:
    step = next_step(record("plain", "interrupted", entry(answer={"ok": True})), plain)
    assert isinstance(step, Invoke)
    assert step.resumption is not None
    assert (step.resumption.data, step.resumption.state) == ({"ok": True}, {"cp": 1})
    assert isinstance(step.input, BaseModel)


def test_the_unknown_action_error_names_the_known_ones() -> None:
    step = next_step(record("nope", "pending"), None, "guarded, plain")
    assert isinstance(step, Fail)
    assert step.error.name == "UnknownAction"
    assert "guarded, plain" in step.error.message


def test_next_step_changes_nothing() -> None:
    rec = record("guarded", "interrupted", entry("tool-approval", True))
    before = rec.model_dump_json()
    next_step(rec, guarded)
    assert rec.model_dump_json() == before
