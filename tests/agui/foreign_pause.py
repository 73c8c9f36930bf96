"""A pause from another producer on pausepoint's stream, as a workflow engine sharing the
connection would add one: `with_foreign_pause(asgi_app)` forwards every request to the
app and appends `FOREIGN_INTERRUPT` (an AG-UI Interrupt with no binding) to each
RUN_FINISHED whose outcome is an interrupt. All other SSE frames pass byte for byte."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

FOREIGN_INTERRUPT: dict[str, Any] = {
    "id": "wf-approval-1",
    "reason": "workflow:approval",
    "message": "Waiting on the finance workflow",
}

_FRAME_END = b"\n\n"


def with_foreign_pause(app: ASGIApp, interrupt: dict[str, Any] = FOREIGN_INTERRUPT) -> ASGIApp:
    """`app`, whose interrupt outcomes also carry `interrupt`."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        pending = b""

        async def rewriting(message: Message) -> None:
            nonlocal pending
            if message["type"] != "http.response.body":
                await send(message)
                return
            pending += message.get("body", b"")
            more = bool(message.get("more_body", False))
            complete, end, rest = pending.rpartition(_FRAME_END)
            ready, pending = (complete + end, rest) if more else (pending, b"")
            frames = ready.split(_FRAME_END)
            body = _FRAME_END.join(_with_interrupt(frame, interrupt) for frame in frames)
            await send({**message, "body": body})

        await app(scope, receive, rewriting)

    return wrapped


def _with_interrupt(frame: bytes, interrupt: dict[str, Any]) -> bytes:
    prefix = b"data: "
    if not frame.startswith(prefix) or b"\n" in frame:
        return frame
    event = json.loads(frame[len(prefix) :])
    outcome = event.get("outcome") if event.get("type") == "RUN_FINISHED" else None
    if not isinstance(outcome, dict) or outcome.get("type") != "interrupt":
        return frame
    event["outcome"] = {**outcome, "interrupts": [*outcome["interrupts"], interrupt]}
    return prefix + json.dumps(event, separators=(",", ":")).encode("utf-8")
