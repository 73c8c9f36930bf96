"""Asking the model for one assistant turn, streamed or not."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ..models import Model, ModelError, ModelRequest, ModelResponse, ModelTimeoutError, TextDelta
from ..transcript import ToolCallRequest, new_id

__all__ = ["ask_model", "unique_calls"]


async def ask_model(
    model: Model,
    request: ModelRequest,
    on_text: Callable[[str], Awaitable[None]],
    seconds: float | None = None,
) -> ModelResponse:
    """One turn: through `stream` when the model has it (text goes to `on_text` as it
    arrives), else through `request`. Past `seconds` (None: no limit), raises
    `ModelTimeoutError`, whatever the model is."""
    if seconds is None:
        return await _ask(model, request, on_text)
    # A bare timer rather than asyncio.timeout(): this runs once per model turn.
    task = asyncio.current_task()
    assert task is not None
    expired: list[bool] = []

    def expire() -> None:
        expired.append(True)
        task.cancel()

    timer = asyncio.get_running_loop().call_later(seconds, expire)
    try:
        return await _ask(model, request, on_text)
    except asyncio.CancelledError:
        if not expired or task.uncancel() > 0:
            raise  # a cancel() or an outside cancellation, not the deadline
        raise ModelTimeoutError(
            f"The model did not answer within {seconds:g} s (model_timeout). Check the "
            "endpoint, then call run() again to retry from here; or raise "
            "Agent(model_timeout=...).",
            retryable=True,
        ) from None
    finally:
        timer.cancel()


async def _ask(
    model: Model, request: ModelRequest, on_text: Callable[[str], Awaitable[None]]
) -> ModelResponse:
    stream: Any = getattr(model, "stream", None)
    if stream is None:
        return await model.request(request)
    final: ModelResponse | None = None
    async for event in stream(request):
        if isinstance(event, TextDelta):
            await on_text(event.text)
        elif isinstance(event, ModelResponse):
            final = event
    if final is None:
        raise ModelError(
            "The model's stream ended without a complete response. Check the endpoint, "
            "then call run() again to retry from here."
        )
    return final


def unique_calls(calls: list[ToolCallRequest]) -> list[ToolCallRequest]:
    """The model's calls, with a fresh id for any that is empty or repeats one in the turn
    (answers, views and the wire all name a call by its id)."""
    seen: set[str] = set()
    out = []
    for call in calls:
        if not call.id or call.id in seen:
            call = call.model_copy(update={"id": new_id("call")})
        seen.add(call.id)
        out.append(call)
    return out
