"""The replies of the views' request/response protocol (`protocol.Reply`), built in one place.

A refused request's error carries `name` (what the card shows), `message` (what to do),
`code` (a `protocol.ErrorCode`: one short word a front end or a test can branch on) and,
for an answer that does not fit its schema, `problems` with a path each. The replies are
built as plain dicts, not through the models: a value may be large, and it was made by
the kernel (a test checks each kind of reply against `protocol.Reply`).
"""

from __future__ import annotations

from typing import Any

from ..errors import (
    AnswerTooLargeError,
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    InvalidResolutionError,
    NoPendingInterruptError,
    NotJSONError,
    PausepointError,
    RunBusyError,
    UnknownInterruptError,
)
from ..store import DamagedRunError, RunNotFoundError
from .protocol import ErrorCode

__all__ = ["code_of", "failure", "failure_of", "success"]

_CODES: tuple[tuple[type[BaseException], ErrorCode], ...] = (
    (AnswerTooLargeError, "too-large"),
    (InvalidResolutionError, "invalid-answer"),
    (NotJSONError, "invalid-answer"),
    (InterruptAlreadyResolvedError, "already-resolved"),
    (InterruptExpiredError, "expired"),
    (UnknownInterruptError, "not-found"),
    (NoPendingInterruptError, "not-found"),
    (RunNotFoundError, "not-found"),
    (DamagedRunError, "damaged"),
    (RunBusyError, "busy"),
    (PausepointError, "refused"),
)


def code_of(exc: BaseException) -> ErrorCode:
    """The error code of a request refused by `exc`: `internal` for anything that is not
    one of pausepoint's own refusals (a bug, logged where it is caught)."""
    for kind, code in _CODES:
        if isinstance(exc, kind):
            return code
    return "internal"


def success(request_id: str | None, value: Any = ...) -> dict[str, Any]:
    """A served request, with its value when it has one (`...`: none)."""
    reply: dict[str, Any] = {"type": "response", "requestId": request_id, "ok": True}
    if value is not ...:
        reply["value"] = value
    return reply


def failure(
    request_id: str | None,
    name: str,
    message: str,
    problems: list[dict[str, str]] | None = None,
    *,
    code: ErrorCode = "bad-request",
) -> dict[str, Any]:
    """A refused request: the error's name, message and code, and its per-field problems."""
    error: dict[str, Any] = {"name": name, "message": message, "code": code}
    if problems is not None:
        error["problems"] = problems
    return {"type": "response", "requestId": request_id, "ok": False, "error": error}


def failure_of(request_id: str | None, exc: BaseException) -> dict[str, Any]:
    """A refused request from the exception that refused it."""
    problems = None
    if isinstance(exc, InvalidResolutionError):
        problems = [{"path": p.path, "message": p.message} for p in exc.problems]
    return failure(request_id, type(exc).__name__, str(exc), problems, code=code_of(exc))
