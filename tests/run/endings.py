"""Actions and a model that end a run each way: a question, a call that never returns,
and a model whose endpoint is down."""

from __future__ import annotations

import asyncio

from pausepoint import ActionContext, ActionInterrupt, ModelRequest, ModelResponse, action

__all__ = ["Broken", "ask", "hang"]


@action
async def ask(ctx: ActionContext) -> str:
    """Ask first."""
    if ctx.resumption is None:
        raise ActionInterrupt("ok?")
    return "fine"


@action
async def hang() -> str:
    """Never return."""
    await asyncio.Event().wait()
    return "never"


class Broken:
    """A model whose endpoint is down."""

    async def request(self, request: ModelRequest) -> ModelResponse:
        raise ConnectionError("endpoint down")
