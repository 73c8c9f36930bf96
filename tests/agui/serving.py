"""Helpers for the server tests: AG-UI requests, SSE frames, and real servers on a port.

`Served(app)` runs an ASGI app under uvicorn in a thread, on a socket bound to a free
port of 127.0.0.1; `Command([...])` runs ``python -m pausepoint.agui ...`` as a process
and waits until it answers. Both are context managers that stop what they started.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from pausepoint.agui import serve

ROOT = Path(__file__).resolve().parents[2]
START_BUDGET = 60.0  # seconds a busy machine may take to start a server; not a speed test


def run_input(
    thread_id: str,
    run_id: str,
    messages: Sequence[Mapping[str, Any]] = (),
    *,
    text: str | None = None,
    state: Any = None,
    resume: Sequence[Mapping[str, Any]] | None = None,
    parent_run_id: str | None = None,
) -> dict[str, Any]:
    """A RunAgentInput body; `text` appends a user message to `messages`."""
    body: dict[str, Any] = {"threadId": thread_id, "runId": run_id, "messages": list(messages)}
    if text is not None:
        body["messages"].append({"id": f"user-{run_id}", "role": "user", "content": text})
    if state is not None:
        body["state"] = state
    if resume is not None:
        body["resume"] = list(resume)
    if parent_run_id is not None:
        body["parentRunId"] = parent_run_id
    return body


def frames(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body, one per ``data:`` frame, in order."""
    out = []
    for block in text.split("\n\n"):
        data = [line[len("data: ") :] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            out.append(json.loads("\n".join(data)))
    return out


def types(events: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(event["type"]) for event in events]


def ending(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The one RUN_FINISHED or RUN_ERROR, which ends the stream."""
    endings = [e for e in events if e["type"] in ("RUN_FINISHED", "RUN_ERROR")]
    assert len(endings) == 1, types(events)
    assert events[-1] is endings[0], types(events)
    return dict(endings[0])


def interrupts(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    end = ending(events)
    assert end["type"] == "RUN_FINISHED", end
    assert end["outcome"]["type"] == "interrupt", end
    return list(end["outcome"]["interrupts"])


def state_of(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The state the stream's STATE_SNAPSHOT hands the client."""
    snapshots = [e for e in events if e["type"] == "STATE_SNAPSHOT"]
    assert len(snapshots) == 1, types(events)
    return dict(snapshots[0]["snapshot"])


def refused(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The RUN_ERROR of a refused request, which must be the stream's only event."""
    assert types(events) == ["RUN_ERROR"], types(events)
    return dict(events[0])


def said(events: Sequence[Mapping[str, Any]]) -> str:
    """The assistant's text in the stream, its deltas joined."""
    return "".join(str(e["delta"]) for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def answer(interrupt_id: str, payload: Any) -> dict[str, Any]:
    return {"interruptId": interrupt_id, "status": "resolved", "payload": payload}


@asynccontextmanager
async def client(served: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client that calls the ASGI app `served` in this process."""
    transport = httpx.ASGITransport(app=served)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c


async def post(c: httpx.AsyncClient, body: Any, **headers: str) -> list[dict[str, Any]]:
    """POST `body` and return the events of the SSE stream that answers it."""
    response = await c.post("/", json=body, headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return frames(response.text)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """`app` served from a thread of this process (`pausepoint.agui.serve`); `url` is its
    address, without the closing slash."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self.url = ""

    def __enter__(self) -> Served:
        self._serving = serve(self._app)
        self.url = self._serving.url.rstrip("/")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._serving.stop()


class Command:
    """``python -m pausepoint.agui *args`` in `cwd`, serving on a free port of 127.0.0.1."""

    def __init__(self, args: Sequence[str], *, cwd: Path, env: Mapping[str, str] = {}) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = [sys.executable, "-m", "pausepoint.agui", *args, "--port", str(self.port)]
        self.cwd = cwd
        self.env = {**os.environ, **env}
        self.log = cwd / f"server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Command:
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                self.args, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + START_BUDGET
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited:\n{self.output()}")
            try:
                httpx.get(self.url + "/", timeout=5)
                return self
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the server did not answer:\n{self.output()}") from None
                time.sleep(0.05)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        assert self.process is not None
        self.process.terminate()
        try:
            self.process.wait(START_BUDGET)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
