"""A real HTTP server on 127.0.0.1 that answers each AG-UI request with events a test
scripted: for RemoteRun's view of what servers it did not write may send."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from pausepoint.agui import serve
from pausepoint.interrupts import BINDING_METADATA_KEY

Reply = Callable[[dict[str, Any]], list[dict[str, Any]] | Response]
"""What the server sends for a request body: the events of one stream, or a response."""

FOREIGN_RUN = "run_of_another_request"
"""An `interruptedRunId` that `stream` leaves as it is: a binding naming another run."""


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve the ASGI `app` on a free local port from a thread; its address."""
    with serve(app) as server:
        yield server.url


class Canned:
    """The requests received, and a reply per request (the last one repeats)."""

    def __init__(self, *replies: Reply, pause: float = 0.0) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []
        self.pause = pause
        self.closed_early = threading.Event()

    def app(self) -> Starlette:
        async def endpoint(request: Request) -> Response:
            body = await request.json()
            self.bodies.append(body)
            reply = self.replies[min(len(self.bodies), len(self.replies)) - 1](body)
            if isinstance(reply, Response):
                return reply
            return StreamingResponse(self._frames(reply), media_type="text/event-stream")

        return Starlette(routes=[Route("/", endpoint, methods=["POST"])])

    async def _frames(self, events: list[dict[str, Any]]) -> AsyncIterator[str]:
        try:
            for event in events:
                yield f"data: {json.dumps(event)}\n\n"
                if self.pause:
                    await asyncio.sleep(self.pause)
        except asyncio.CancelledError:
            self.closed_early.set()
            raise


def refused(status: int, detail: str) -> Reply:
    return lambda _: JSONResponse({"detail": detail}, status_code=status)


def stream(*events: dict[str, Any]) -> Reply:
    """The same events for every request, with the thread and run ids it names."""

    def reply(body: dict[str, Any]) -> list[dict[str, Any]]:
        ids = {"threadId": body["threadId"], "runId": body["runId"]}
        return [
            _bound_to(body["runId"], {**event, **ids})
            if event["type"] in ("RUN_STARTED", "RUN_FINISHED")
            else event
            for event in events
        ]

    return reply


def _bound_to(run_id: str, event: dict[str, Any]) -> dict[str, Any]:
    """A RUN_FINISHED whose pausepoint-bound interrupts name the request that carries
    them, as a server writes them; interrupts bound elsewhere or unbound stay as given."""
    outcome = event.get("outcome")
    if not isinstance(outcome, dict) or outcome.get("type") != "interrupt":
        return event
    interrupts = []
    for interrupt in outcome.get("interrupts") or []:
        binding = (interrupt.get("metadata") or {}).get(BINDING_METADATA_KEY)
        if isinstance(binding, dict) and binding.get("interruptedRunId") != FOREIGN_RUN:
            metadata = {
                **interrupt["metadata"],
                BINDING_METADATA_KEY: {**binding, "interruptedRunId": run_id},
            }
            interrupt = {**interrupt, "metadata": metadata}
        interrupts.append(interrupt)
    return {**event, "outcome": {**outcome, "interrupts": interrupts}}
