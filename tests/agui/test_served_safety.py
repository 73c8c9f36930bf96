"""What a web page, a rebinding DNS name or another caller can make a served agent do:
nothing that is not theirs. Requests go over real HTTP (uvicorn on 127.0.0.1) where the
`Host` a client sends matters, in process otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.agui.served_agent import build, executions
from tests.agui.serving import (
    Served,
    answer,
    client,
    ending,
    frames,
    interrupts,
    refused,
    run_input,
    state_of,
)

from pausepoint.agui import ThreadAccess, app, bearer
from pausepoint.agui._server import LOOPBACK_HOSTS, hosts_for
from pausepoint.store import RunNotFoundError, SQLiteStore

ALICE, BOB = "token-of-alice-7f3a9c", "token-of-bob-2e81d4"
CALLERS = {ALICE: "alice", BOB: "bob"}


def raw_post(url: str, body: bytes, content_type: str | None, **headers: str) -> httpx.Response:
    sent = dict(headers)
    if content_type is not None:
        sent["content-type"] = content_type
    return httpx.post(url, content=body, headers=sent, timeout=60)


def first_request(thread: str = "thread-1") -> dict[str, Any]:
    return run_input(thread, "r1", text="Refund order 42")


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", None],
)
def test_a_post_a_page_can_send_without_preflight_runs_nothing(
    tmp_path: Path, content_type: str | None
) -> None:
    count, store = tmp_path / "count.txt", SQLiteStore(tmp_path / "runs.db")
    with Served(app(build(count), store)) as server:
        response = raw_post(server.url, json.dumps(first_request()).encode(), content_type)

    assert response.status_code == 415
    assert response.json()["error"] == "unsupported-media-type"
    assert "application/json" in response.json()["message"]
    with pytest.raises(RunNotFoundError):
        store.load_prompt("thread-1")
    assert executions(count) == []


def test_json_with_a_charset_is_json(tmp_path: Path) -> None:
    with Served(app(build(tmp_path / "count.txt"))) as server:
        response = raw_post(
            server.url, json.dumps(first_request()).encode(), "application/json; charset=utf-8"
        )
    assert response.status_code == 200
    assert ending(frames(response.text))["type"] == "RUN_FINISHED"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example"])
def test_a_host_other_than_loopback_is_refused_before_anything_runs(
    tmp_path: Path, host: str
) -> None:
    """A DNS-rebinding page reaches 127.0.0.1 under its own name: the Host tells it."""
    count, store = tmp_path / "count.txt", SQLiteStore(tmp_path / "runs.db")
    with Served(app(build(count), store)) as server:
        response = raw_post(
            server.url, json.dumps(first_request()).encode(), "application/json", host=host
        )
        described = httpx.get(server.url, headers={"host": host})

    assert response.status_code == 400
    assert described.status_code == 400
    assert "refunds" not in described.text
    with pytest.raises(RunNotFoundError):
        store.load_prompt("thread-1")
    assert executions(count) == []


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "LOCALHOST:8000", "[::1]:8000"])
def test_loopback_names_are_answered(tmp_path: Path, host: str) -> None:
    with Served(app(build(tmp_path / "count.txt"))) as server:
        response = httpx.get(server.url, headers={"host": host})
    assert response.status_code == 200
    assert response.json()["agent"] == "refunds"


async def test_allowed_hosts_names_the_hosts_a_deployment_answers_as(tmp_path: Path) -> None:
    served = app(build(tmp_path / "count.txt"), allowed_hosts=["agent.example.com"])
    transport = httpx.ASGITransport(app=served)
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.example.com") as c:
        assert (await c.get("/")).status_code == 200
        assert (await c.get("/", headers={"host": "127.0.0.1"})).status_code == 400


def test_the_command_line_checks_hosts_when_it_listens_on_loopback_alone() -> None:
    assert hosts_for("127.0.0.1") == LOOPBACK_HOSTS
    assert hosts_for("::1") == LOOPBACK_HOSTS
    assert hosts_for("localhost") == LOOPBACK_HOSTS
    assert hosts_for("0.0.0.0") is None
    assert hosts_for("10.1.2.3") is None


async def test_a_page_of_another_origin_is_refused_even_with_json(tmp_path: Path) -> None:
    count = tmp_path / "count.txt"
    async with client(app(build(count))) as c:
        response = await c.post(
            "/", json=first_request(), headers={"origin": "https://evil.example"}
        )
    assert response.status_code == 403
    body = response.json()
    assert body["error"] == "forbidden-origin"
    assert "https://evil.example" in body["message"]
    assert "cors_origins" in body["message"]
    assert executions(count) == []


async def test_the_servers_own_page_and_allowed_origins_may_call(tmp_path: Path) -> None:
    served = app(build(tmp_path / "count.txt"), cors_origins=["https://app.example"])
    async with client(served) as c:
        own = await c.post("/", json=first_request("a"), headers={"origin": "http://127.0.0.1"})
        allowed = await c.post(
            "/", json=first_request("b"), headers={"origin": "https://app.example"}
        )
    assert own.status_code == 200
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"


# Owners of threads


def post_as(c: httpx.AsyncClient, token: str, body: dict[str, Any]) -> Any:
    return c.post("/", json=body, headers={"authorization": f"Bearer {token}"})


async def test_bob_can_neither_read_nor_answer_alices_stored_thread(tmp_path: Path) -> None:
    count, store = tmp_path / "count.txt", SQLiteStore(tmp_path / "runs.db")
    served = app(build(count), store, authorize=bearer(CALLERS))
    async with client(served) as c:
        started = frames((await post_as(c, ALICE, first_request())).text)
        [approval] = interrupts(started)
        before, _ = store.load_prompt("thread-1")

        answering = run_input(
            "thread-1",
            "r2",
            resume=[answer(approval["id"], {"approved": True})],
            parent_run_id="r1",
        )
        attempts = [
            answering,
            run_input("thread-1", "r3", text="Show me everything"),
            run_input("thread-1", "r4", text="Refund order 42"),  # as if starting it
            run_input("thread-1", "r5", resume=[answer("made-up", {"approved": True})]),
        ]
        refusals = [refused(frames((await post_as(c, BOB, body)).text)) for body in attempts]
        after_bob, _ = store.load_prompt("thread-1")

        done = frames((await post_as(c, ALICE, answering)).text)

    for refusal in refusals:
        assert refusal["code"] == "forbidden"
        shown = json.dumps(refusal)
        assert approval["id"] not in shown
        assert "Refund" not in shown
        assert "42" not in shown
        assert "metadata" not in refusal or not refusal["metadata"]
    assert after_bob == before
    assert before.owner == "alice"
    assert executions(count) == ["refund"]  # Alice's answer ran it, once
    [question] = interrupts(done)
    assert question["id"] != approval["id"]


async def test_a_sealed_state_is_its_owners_alone(tmp_path: Path) -> None:
    count = tmp_path / "count.txt"
    served = app(build(count), secret="8c1f0e6b2d9a4c7e5f3b1a0d", authorize=bearer(CALLERS))
    async with client(served) as c:
        started = frames((await post_as(c, ALICE, first_request())).text)
        [approval] = interrupts(started)
        state = state_of(started)
        continuation = run_input(
            "thread-1",
            "r2",
            state=state,
            resume=[answer(approval["id"], {"approved": True})],
            parent_run_id="r1",
        )
        by_bob = refused(frames((await post_as(c, BOB, continuation)).text))
        by_alice = frames((await post_as(c, ALICE, continuation)).text)

    assert by_bob["code"] == "forbidden"
    assert approval["id"] not in json.dumps(by_bob)
    assert interrupts(by_alice)  # the next question
    assert executions(count) == ["refund"]


async def test_pause_ids_from_the_history_answer_only_for_their_caller(tmp_path: Path) -> None:
    """A stateless server keeps nothing; a pause id it gave Alice is sealed for her."""
    count = tmp_path / "count.txt"
    served = app(build(count), secret="8c1f0e6b2d9a4c7e5f3b1a0d", authorize=bearer(CALLERS))
    async with client(served) as c:
        started = frames((await post_as(c, ALICE, first_request())).text)
        [approval] = interrupts(started)
        [snapshot] = [e for e in started if e["type"] == "MESSAGES_SNAPSHOT"]
        continuation = run_input(
            "thread-1",
            "r2",
            snapshot["messages"],
            resume=[answer(approval["id"], {"approved": True})],
            parent_run_id="r1",
        )
        by_bob = refused(frames((await post_as(c, BOB, continuation)).text))
        after_bob = executions(count)
        by_alice = frames((await post_as(c, ALICE, continuation)).text)

    assert by_bob["code"] != "internal-error"
    assert after_bob == []
    assert interrupts(by_alice)
    assert executions(count) == ["refund"]


async def test_a_thread_hook_sees_who_asks_what_of_which_thread(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    seen: list[ThreadAccess] = []

    def reviewers_too(request: Any, access: ThreadAccess) -> bool:
        seen.append(access)
        return access.new or access.caller in (access.owner, "bob")

    served = app(
        build(tmp_path / "count.txt"),
        store,
        authorize=bearer(CALLERS),
        authorize_thread=reviewers_too,
    )
    async with client(served) as c:
        started = frames((await post_as(c, ALICE, first_request())).text)
        [approval] = interrupts(started)
        answered = frames(
            (
                await post_as(
                    c,
                    BOB,
                    run_input(
                        "thread-1",
                        "r2",
                        resume=[answer(approval["id"], {"approved": True})],
                        parent_run_id="r1",
                    ),
                )
            ).text
        )

    assert interrupts(answered)  # Bob, a reviewer, may answer Alice's pause
    assert [(a.thread_id, a.caller, a.owner, a.new, a.answers) for a in seen] == [
        ("thread-1", "alice", None, True, False),
        ("thread-1", "bob", "alice", False, True),
    ]


async def test_one_shared_token_names_no_caller_and_threads_have_no_owner(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    served = app(build(tmp_path / "count.txt"), store, authorize=bearer(ALICE))
    async with client(served) as c:
        interrupts(frames((await post_as(c, ALICE, first_request())).text))
        stranger = await post_as(c, BOB, first_request("thread-2"))
    prompt, _ = store.load_prompt("thread-1")
    assert prompt.owner is None
    assert stranger.status_code == 401
