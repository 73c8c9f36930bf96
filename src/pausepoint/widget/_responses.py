"""The replies of the views' request/response protocol (js/README.md), built in one place."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidResolutionError

__all__ = ["failure", "failure_of"]


def failure(
    request_id: str, name: str, message: str, problems: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    """A refused request: the error's name and message, and its per-field problems."""
    error: dict[str, Any] = {"name": name, "message": message}
    if problems is not None:
        error["problems"] = problems
    return {"type": "response", "requestId": request_id, "ok": False, "error": error}


def failure_of(request_id: str, exc: BaseException) -> dict[str, Any]:
    """A refused request from the exception that refused it."""
    problems = None
    if isinstance(exc, InvalidResolutionError):
        problems = [{"path": p.path, "message": p.message} for p in exc.problems]
    return failure(request_id, type(exc).__name__, str(exc), problems)
