"""What one request may make a served agent hold, and the errors past it: each names the
input and the `Limits` field that raises it, and nothing runs or is stored."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import BaseEvent, StateSnapshotEvent
from tests.agui.served_agent import build, executions
from tests.agui.serving import Served, client, frames, refused, run_input

from pausepoint import Agent, ScriptedModel, UsageError, action, call
from pausepoint.agui import Limits, app, events
from pausepoint.agui._encode import coalesce, encode
from pausepoint.store import RunNotFoundError, SQLiteStore


async def post_raw(served: Any, body: bytes) -> list[dict[str, Any]]:
    async with client(served) as c:
        response = await c.post("/", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 200, response.text
    return frames(response.text)


def bad_request(events: list[dict[str, Any]]) -> str:
    refusal = refused(events)
    assert refusal["code"] == "bad-request", refusal
    return str(refusal["message"])


async def test_a_body_past_the_limit_is_refused_413_before_the_rest_is_read(
    tmp_path: Path,
) -> None:
    """Called as an ASGI app: the test counts the body chunks the server asked for."""
    served = app(build(tmp_path / "count.txt"), limits=Limits(max_body_bytes=1000))
    asked, sent = 0, []

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        return {"type": "http.request", "body": b" " * 100, "more_body": asked < 10_000}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1", "method": "POST", "scheme": "http", "path": "/",
        "raw_path": b"/", "query_string": b"", "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
    }  # fmt: skip
    await served(scope, receive, send)

    assert sent[0]["status"] == 413
    body = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert body["error"] == "too-large"
    assert "max_body_bytes" in body["message"]
    assert "1,000" in body["message"]
    assert asked <= 11  # 1,000 bytes and the chunk past them, never the 1 MB sent


async def test_a_declared_length_past_the_limit_is_refused_unread(tmp_path: Path) -> None:
    served = app(build(tmp_path / "count.txt"), limits=Limits(max_body_bytes=1000))
    async with client(served) as c:
        response = await c.post("/", json=run_input("t", "r1", text="x" * 2000))
    assert response.status_code == 413
    assert executions(tmp_path / "count.txt") == []


async def test_more_messages_than_the_limit_is_a_bad_request(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    served = app(build(tmp_path / "count.txt"), store, limits=Limits(max_messages=50))
    many = [{"id": f"m{i}", "role": "user", "content": "hi"} for i in range(51)]
    message = bad_request(await post_raw(served, json.dumps(run_input("t", "r1", many)).encode()))
    assert "51 messages" in message
    assert "max_messages" in message
    with pytest.raises(RunNotFoundError):
        store.load_prompt("t")


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


async def test_json_nested_past_what_the_parser_reads_is_a_bad_request(tmp_path: Path) -> None:
    body = ('{"threadId":"t","runId":"r","messages":[],"state":' + nested(100_000) + "}").encode()
    message = bad_request(await post_raw(app(build(tmp_path / "count.txt")), body))
    assert "max_depth" in message


@pytest.mark.parametrize("field", ["state", "forwardedProps"])
async def test_a_deep_free_form_value_is_refused_with_its_path(tmp_path: Path, field: str) -> None:
    body = run_input("t", "r1", text="Refund order 42")
    raw = json.dumps(body)[:-1] + f',"{field}":' + nested(900) + "}"
    message = bad_request(await post_raw(app(build(tmp_path / "count.txt")), raw.encode()))
    assert message.startswith(f"{field}.a.a.a")
    assert "64 levels" in message
    assert executions(tmp_path / "count.txt") == []


async def test_a_deep_resume_payload_is_refused_with_its_path(tmp_path: Path) -> None:
    payload = json.loads(nested(200))
    body = run_input("t", "r2", resume=[{"interruptId": "i", "status": "resolved",
                                         "payload": payload}])  # fmt: skip
    message = bad_request(
        await post_raw(app(build(tmp_path / "count.txt")), json.dumps(body).encode())
    )
    assert message.startswith("resume.0.payload.a")


@pytest.mark.parametrize(
    ("thread", "said"),
    [
        ("bad\\ud800id", "lone surrogate"),
        ("bad\\u0000id", "control character"),
        ("x" * 9000, "9,000 characters"),
    ],
)
async def test_a_thread_id_no_store_can_keep_is_a_bad_request(
    tmp_path: Path, thread: str, said: str
) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    served = app(build(tmp_path / "count.txt"), store)
    body = json.dumps(run_input("PLACE", "r1", text="Refund order 42")).replace("PLACE", thread)
    message = bad_request(await post_raw(served, body.encode()))
    assert message.startswith("threadId")
    assert said in message
    assert store.runs() == []
    assert executions(tmp_path / "count.txt") == []


async def test_nul_or_a_lone_surrogate_in_a_message_is_refused_with_its_path(
    tmp_path: Path,
) -> None:
    served = app(build(tmp_path / "count.txt"), SQLiteStore(tmp_path / "runs.db"))
    for escape, said in (("\\u0000", "NUL"), ("\\udc00", "lone surrogate")):
        body = json.dumps(run_input("t", "r1", text="Refund PLACE")).replace("PLACE", escape)
        message = bad_request(await post_raw(served, body.encode()))
        assert message.startswith("messages.0.content")
        assert said in message


@pytest.mark.parametrize(
    "secret",
    ["a" * 32, "passwordpassword", "abcabcabcabcabcabcabc", "0123456701234567"],
)
def test_a_guessable_secret_is_refused(tmp_path: Path, secret: str) -> None:
    with pytest.raises(UsageError, match="too easy to guess"):
        app(build(tmp_path / "count.txt"), secret=secret)


def test_a_random_secret_is_taken(tmp_path: Path) -> None:
    app(build(tmp_path / "count.txt"), secret="8c1f0e6b2d9a4c7e5f3b1a0d9e8f7a6b")


@pytest.mark.parametrize("field", ["max_body_bytes", "send_timeout"])
def test_limits_are_positive(field: str) -> None:
    with pytest.raises(UsageError, match=field):
        Limits(**{field: 0})


# A client that does not read


async def test_frames_read_ahead_of_a_client_that_does_not_read_are_bounded() -> None:
    """While the client has not taken a write, what is read ahead stops at max_buffered:
    the producer (the run's stream) waits, goes on when the client takes the next write,
    and is closed with the stream."""
    made, closed = 0, False

    async def endless() -> AsyncIterator[str]:
        nonlocal made, closed
        try:
            while True:
                made += 1
                yield "x" * 1000
        finally:
            closed = True

    chunks = coalesce(endless(), max_buffered=50_000)
    first = await anext(chunks)  # the write the client does not take
    for _ in range(100):  # a while of the event loop: the producer would run on
        await asyncio.sleep(0)
    waiting = made
    second = await anext(chunks)
    for _ in range(100):
        await asyncio.sleep(0)
    after = made
    await chunks.aclose()  # type: ignore[attr-defined]

    assert 50 <= waiting - len(first) // 1000 <= 52  # 50 KB read ahead, then it waited
    assert len(second) >= 50_000  # the client's next write takes what waited
    assert after > waiting  # room again: it went on
    assert closed


def chatty_agent(count: Path) -> Agent:
    @action
    def note(text: str) -> str:
        """Note a text."""
        with count.open("a") as lines:
            lines.write("note\n")
        return text

    big = "y" * 20_000
    return Agent(
        model=ScriptedModel([call("note", text=big)] * 500 + ["Done."]),
        actions=[note],
        name="chatty",
        max_turns=1000,
    )


def test_a_client_that_never_reads_has_its_run_stopped(tmp_path: Path) -> None:
    """Over real HTTP with a socket that never receives: the run is stopped (cancelled in
    the store) long before its 500 steps, as if the client had left."""
    count, store = tmp_path / "count.txt", SQLiteStore(tmp_path / "runs.db")
    served = app(
        chatty_agent(count), store, limits=Limits(max_buffered_bytes=200_000, send_timeout=2)
    )
    with Served(served) as server:
        host, port = server.url.removeprefix("http://").split(":")
        body = json.dumps(run_input("slow", "r1", text="Go")).encode()
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect((host, int(port)))
            sock.sendall(
                b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            status = _wait_for_status(store, "slow")
    assert status == "cancelled"
    assert len(executions(count)) < 500


def _wait_for_status(store: SQLiteStore, run_id: str) -> str:
    """The run's status once it is no longer running (a busy machine's budget: 120 s)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            status: str | None = store.summary(run_id).status
        except RunNotFoundError:
            status = None
        if status not in (None, "running"):
            return str(status)
        time.sleep(0.05)
    raise AssertionError("the run never stopped")


async def test_an_event_that_cannot_be_written_ends_the_stream_with_run_error() -> None:
    closed = False

    async def stream() -> AsyncIterator[BaseEvent]:
        nonlocal closed
        deep: dict[str, Any] = {}
        for _ in range(5000):
            deep = {"a": deep}
        try:
            yield StateSnapshotEvent(snapshot={"ok": 1})
            yield StateSnapshotEvent(snapshot=deep)
            yield StateSnapshotEvent(snapshot={"never": "sent"})
        finally:
            closed = True

    written = [frame async for frame in encode(stream())]

    events = [frames(frame)[0] for frame in written]
    assert [e["type"] for e in events] == ["STATE_SNAPSHOT", "RUN_ERROR"]
    assert events[-1]["code"] == "internal-error"
    assert closed


async def test_a_run_waits_for_a_consumer_that_takes_its_events_slowly(tmp_path: Path) -> None:
    count = tmp_path / "count.txt"
    run = chatty_agent(count).new_run("Go")
    stream = events(run, "Go", max_queued=20)
    await anext(stream)  # RUN_STARTED, then nothing is taken
    for _ in range(2000):
        await asyncio.sleep(0)
    stalled = len(executions(count))
    await stream.aclose()  # type: ignore[attr-defined]

    assert stalled < 10  # of 500 steps: it waited for the consumer
    assert run.status == "cancelled"  # closing the stream stopped it
