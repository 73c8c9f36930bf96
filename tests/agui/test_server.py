"""The AG-UI server's protocol, through its ASGI interface (no sockets): one run per
thread, continuations checked as a whole batch, the sealed state of a stateless server,
refusals that change nothing, authorization and CORS."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.agui.served_agent import FINAL_TEXT, build, executions
from tests.agui.serving import (
    answer,
    client,
    ending,
    frames,
    interrupts,
    post,
    refused,
    run_input,
    said,
    state_of,
    types,
)

from pausepoint import Agent, ScriptedModel, UsageError
from pausepoint.agui import app, bearer
from pausepoint.errors import MissingDependencyError
from pausepoint.interrupts import BINDING_METADATA_KEY
from pausepoint.store import SQLiteStore
from pausepoint.transcript import Prompt

SECRET = "a secret of the tests, long enough"


@pytest.fixture
def count(tmp_path: Path) -> Path:
    return tmp_path / "executions.txt"


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "runs.db")


def stored(store: SQLiteStore, thread_id: str) -> str:
    prompt, _ = store.load_prompt(thread_id)
    return prompt.model_dump_json()


# -- a conversation from start to end ---------------------------------------------------


async def test_a_new_thread_runs_until_the_approval_and_names_the_clients_run(
    count: Path,
) -> None:
    async with client(app(build(count), secret=SECRET)) as c:
        seen = await post(c, run_input("thread-1", "client-run-1", text="Refund order 42"))

    assert seen[0] == {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "client-run-1"}
    assert types(seen)[-3:] == ["MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]
    finished = ending(seen)
    assert (finished["threadId"], finished["runId"]) == ("thread-1", "client-run-1")
    [pending] = interrupts(seen)
    binding = pending["metadata"][BINDING_METADATA_KEY]
    assert (binding["kind"], binding["toolName"]) == ("tool-approval", "refund")
    transcript = Prompt.model_validate_json(state_of(seen)["pausepoint"]["transcript"])
    assert (transcript.thread_id, transcript.run_id) == ("thread-1", "thread-1")
    [snapshot] = [e for e in seen if e["type"] == "MESSAGES_SNAPSHOT"]
    user, assistant = snapshot["messages"]
    assert (user["id"], user["content"]) == ("user-client-run-1", "Refund order 42")
    assert assistant["id"] == seen[2]["messageId"]  # the streamed message's id
    # The pause belongs to the request whose stream carried it, as TanStack's client checks.
    assert (binding["interruptedRunId"], binding["generation"]) == ("client-run-1", 0)
    [entry] = [e for _, e in transcript.pending()]
    assert entry.agui_run_id == "client-run-1"
    assert executions(count) == []


async def test_an_approval_then_an_answer_with_a_response_schema_take_a_stored_run_to_success(
    count: Path, store: SQLiteStore
) -> None:
    async with client(app(build(count), store)) as c:
        first = await post(c, run_input("t", "r1", text="Refund order 42"))
        [approval] = interrupts(first)
        second = await post(
            c,
            run_input(
                "t",
                "r2",
                resume=[answer(approval["id"], {"approved": True})],
                parent_run_id="r1",
            ),
        )
        assert second[0] == {
            "type": "RUN_STARTED",
            "threadId": "t",
            "runId": "r2",
            "parentRunId": "r1",
        }
        [question] = interrupts(second)
        assert question["responseSchema"]["required"] == ["speed"]
        assert question["metadata"][BINDING_METADATA_KEY]["kind"] == "generic"
        assert executions(count) == ["refund"]
        third = await post(
            c, run_input("t", "r3", resume=[answer(question["id"], {"speed": "fast"})])
        )

    assert ending(third)["outcome"] == {"type": "success"}
    assert "STATE_SNAPSHOT" not in types(first + second + third)  # the store keeps it
    assert said(third) == FINAL_TEXT
    assert executions(count) == ["refund", "ship fast"]
    prompt, _ = store.load_prompt("t")
    assert prompt.output == FINAL_TEXT


async def test_a_later_user_message_is_the_next_turn_and_sending_it_twice_adds_it_once(
    store: SQLiteStore,
) -> None:
    agent = Agent(model=ScriptedModel(["Hello.", "Hello again."]))
    async with client(app(agent, store)) as c:
        history = [{"id": "u1", "role": "user", "content": "Hi"}]
        await post(c, run_input("chat", "r1", history))
        history.append({"id": "chat-1", "role": "assistant", "content": "Hello."})
        later = run_input("chat", "r2", history, text="Hi again")
        first = await post(c, later)
        again = await post(c, later)

    assert ending(first)["outcome"] == {"type": "success"}
    assert said(first) == "Hello again."
    assert ending(again)["outcome"] == {"type": "success"}
    assert "TEXT_MESSAGE_CONTENT" not in types(again)
    prompt, _ = store.load_prompt("chat")
    assert [getattr(item, "text", None) for item in prompt.items] == [
        "Hi",
        "Hello.",
        "Hi again",
        "Hello again.",
    ]


# -- the stateless server's sealed state ---------------------------------------------------


async def test_a_stateless_server_continues_from_the_state_the_client_sends_back(
    count: Path,
) -> None:
    client_state = {"theme": "dark"}
    async with client(app(build(count), secret=SECRET)) as c:
        first = await post(c, run_input("t", "r1", text="Refund order 42", state=client_state))
        state = state_of(first)
        assert state["theme"] == "dark"  # the client's own keys are kept
        assert state["pausepoint"]["seal"].startswith("hmac-sha256:")
        [approval] = interrupts(first)
        second = await post(
            c,
            run_input("t", "r2", resume=[answer(approval["id"], {"approved": True})], state=state),
        )
        [question] = interrupts(second)
        third = await post(
            c,
            run_input(
                "t",
                "r3",
                resume=[answer(question["id"], {"speed": "slow"})],
                state=state_of(second),
            ),
        )

    assert ending(third)["outcome"] == {"type": "success"}
    assert executions(count) == ["refund", "ship slow"]
    assert types(third)[-2:] == ["STATE_SNAPSHOT", "RUN_FINISHED"]
    done = Prompt.model_validate_json(state_of(third)["pausepoint"]["transcript"])
    assert done.output == FINAL_TEXT


def _forge_seal(state: dict[str, Any]) -> None:
    state["pausepoint"]["seal"] = "hmac-sha256:" + "0" * 64


def _raise_the_amount(state: dict[str, Any]) -> None:
    transcript = json.loads(state["pausepoint"]["transcript"])
    for item in transcript["items"]:
        for call in item.get("tool_calls", []):
            call["input"]["amount"] = 3000.0
        if item["type"] == "tool":
            item["input"]["amount"] = 3000.0
    state["pausepoint"]["transcript"] = json.dumps(transcript)


def _drop_the_seal(state: dict[str, Any]) -> None:
    del state["pausepoint"]["seal"]


TAMPERING: dict[str, Callable[[dict[str, Any]], None]] = {
    "forged seal": _forge_seal,
    "tampered transcript": _raise_the_amount,
    "no seal": _drop_the_seal,
}


@pytest.mark.parametrize("tamper", TAMPERING.values(), ids=TAMPERING.keys())
async def test_a_forged_or_tampered_state_is_refused_as_bad_state_and_nothing_runs(
    count: Path, tamper: Callable[[dict[str, Any]], None]
) -> None:
    async with client(app(build(count), secret=SECRET)) as c:
        first = await post(c, run_input("t", "r1", text="Refund order 42", state={"x": 1}))
        [approval] = interrupts(first)
        state = copy.deepcopy(state_of(first))
        tamper(state)
        seen = await post(
            c,
            run_input(
                "t",
                "r2",
                messages=[{"id": "a", "role": "assistant", "content": "Refunding order 42."}],
                resume=[answer(approval["id"], {"approved": True})],
                state=state,
            ),
        )

    assert refused(seen)["code"] == "bad-state"
    assert executions(count) == []


async def test_a_state_sealed_by_another_secret_or_for_another_thread_is_bad_state(
    count: Path,
) -> None:
    async with client(app(build(count), secret=SECRET)) as c:
        first = await post(c, run_input("t", "r1", text="Refund order 42"))
        [approval] = interrupts(first)
        continuation = run_input(
            "t", "r2", resume=[answer(approval["id"], {"approved": True})], state=state_of(first)
        )
        elsewhere = {**continuation, "threadId": "another thread"}
        assert refused(await post(c, elsewhere))["code"] == "bad-state"
    async with client(app(build(count), secret="another secret, just as long")) as other:
        assert refused(await post(other, continuation))["code"] == "bad-state"
    async with client(app(build(count))) as default_secret:  # random: its own seals only
        assert refused(await post(default_secret, continuation))["code"] == "bad-state"
    assert executions(count) == []


# -- refused continuations change nothing ------------------------------------------------------


def _wrong_digest(approval: dict[str, Any]) -> dict[str, Any]:
    metadata = copy.deepcopy(approval["metadata"])
    metadata[BINDING_METADATA_KEY]["inputSchemaHash"] = "sha256:" + "1" * 64
    return {**answer(approval["id"], {"approved": True}), "metadata": metadata}


def _older_pause(approval: dict[str, Any]) -> dict[str, Any]:
    metadata = copy.deepcopy(approval["metadata"])
    metadata[BINDING_METADATA_KEY]["generation"] = 7
    return {**answer(approval["id"], {"approved": True}), "metadata": metadata}


REFUSALS: dict[str, tuple[Callable[[dict[str, Any]], list[dict[str, Any]]], list[str]]] = {
    "wrong binding digest": (lambda a: [_wrong_digest(a)], ["invalid-response-schema"]),
    "stale pause": (lambda a: [_older_pause(a)], ["stale"]),
    "unknown id": (
        lambda a: [answer("int_nobody", {"approved": True})],
        ["unknown-interrupt", "incomplete-batch"],
    ),
    "twice the same id": (
        lambda a: [answer(a["id"], {"approved": True}), answer(a["id"], {"approved": False})],
        ["conflict"],
    ),
    "answer off its schema": (
        lambda a: [answer(a["id"], {"approved": "yes"})],
        ["invalid-payload"],
    ),
    "cancelled with a payload": (
        lambda a: [{"interruptId": a["id"], "status": "cancelled", "payload": None}],
        ["invalid-payload"],
    ),
}


@pytest.mark.parametrize(("entries", "codes"), REFUSALS.values(), ids=REFUSALS.keys())
async def test_a_refused_continuation_is_one_run_error_and_the_stored_run_is_unchanged(
    count: Path,
    store: SQLiteStore,
    entries: Callable[[dict[str, Any]], list[dict[str, Any]]],
    codes: list[str],
) -> None:
    async with client(app(build(count), store)) as c:
        [approval] = interrupts(await post(c, run_input("t", "r1", text="Refund order 42")))
        before = stored(store, "t")
        seen = await post(c, run_input("t", "r2", resume=entries(approval)))

    error = refused(seen)
    assert error["code"] == "resume-batch"
    assert [e["code"] for e in error["metadata"]["errors"]] == codes
    assert stored(store, "t") == before
    assert executions(count) == []


async def test_a_stateless_refusal_sends_no_new_state_and_the_old_one_still_works(
    count: Path,
) -> None:
    async with client(app(build(count), secret=SECRET)) as c:
        first = await post(c, run_input("t", "r1", text="Refund order 42"))
        [approval] = interrupts(first)
        state = state_of(first)
        wrong = await post(c, run_input("t", "r2", resume=[_wrong_digest(approval)], state=state))
        assert refused(wrong)["code"] == "resume-batch"
        assert executions(count) == []
        right = await post(
            c, run_input("t", "r3", resume=[answer(approval["id"], True)], state=state)
        )

    assert [i["message"] for i in interrupts(right)] == ["How fast should order 42 ship?"]
    assert executions(count) == ["refund"]


async def test_an_answer_to_a_pause_already_answered_is_stale_and_changes_nothing(
    count: Path, store: SQLiteStore
) -> None:
    async with client(app(build(count), store)) as c:
        [approval] = interrupts(await post(c, run_input("t", "r1", text="Refund order 42")))
        await post(c, run_input("t", "r2", resume=[answer(approval["id"], {"approved": True})]))
        before = stored(store, "t")
        seen = await post(
            c, run_input("t", "r3", resume=[answer(approval["id"], {"approved": False})])
        )

    assert [e["code"] for e in refused(seen)["metadata"]["errors"]] == [
        "stale",
        "incomplete-batch",
    ]
    assert stored(store, "t") == before
    assert executions(count) == ["refund"]


@pytest.mark.parametrize("mode", ["store", "stateless"])
async def test_replaying_a_continuation_runs_nothing_again(
    count: Path, store: SQLiteStore, mode: str
) -> None:
    served = app(build(count), store if mode == "store" else None, secret=SECRET)
    async with client(served) as c:
        first = await post(c, run_input("t", "r1", text="Refund order 42"))
        [approval] = interrupts(first)
        continuation = run_input("t", "r2", resume=[answer(approval["id"], {"approved": True})])
        if mode == "stateless":
            continuation["state"] = state_of(first)
        applied = await post(c, continuation)
        if mode == "stateless":  # a client sends the newest state it holds
            continuation["state"] = state_of(applied)
        replayed = await post(c, continuation)

    assert interrupts(replayed) == interrupts(applied)
    assert executions(count) == ["refund"]


async def test_two_continuations_at_once_apply_one_and_the_other_is_a_run_error(
    tmp_path: Path, count: Path, store: SQLiteStore
) -> None:
    gate = tmp_path / "gate"
    async with client(app(build(count, gate), store)) as c:
        [approval] = interrupts(await post(c, run_input("t", "r1", text="Refund order 42")))
        continuation = run_input("t", "r2", resume=[answer(approval["id"], {"approved": True})])
        racing = [asyncio.ensure_future(post(c, continuation)) for _ in range(2)]
        # The winner's refund waits at the gate: the first answer back is the loser's.
        done, _ = await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
        first = done.pop()
        loser = first.result()
        gate.touch()
        winner = await next(task for task in racing if task is not first)

    assert refused(loser)["code"] in ("run-busy", "interrupt-already-resolved")
    assert [i["message"] for i in interrupts(winner)] == ["How fast should order 42 ship?"]
    assert executions(count) == ["refund"]


# -- malformed requests -------------------------------------------------------------------


BAD_BODIES: dict[str, bytes] = {
    "not JSON": b"refund order 42",
    "not an object": b"[1, 2]",
    "no threadId": b'{"runId": "r", "messages": []}',
    "messages not a list": b'{"threadId": "t", "runId": "r", "messages": "hi"}',
    "an empty threadId": b'{"threadId": "", "runId": "r", "messages": []}',
    "no user message": b'{"threadId": "t", "runId": "r", "messages": []}',
    "resume not entries": b'{"threadId": "t", "runId": "r", "messages": [], "resume": [1]}',
}


@pytest.mark.parametrize("body", BAD_BODIES.values(), ids=BAD_BODIES.keys())
async def test_a_body_that_is_not_a_usable_run_agent_input_is_a_bad_request(
    count: Path, store: SQLiteStore, body: bytes
) -> None:
    async with client(app(build(count), store)) as c:
        response = await c.post("/", content=body, headers={"content-type": "application/json"})

    assert response.status_code == 200
    assert refused(frames(response.text))["code"] == "bad-request"
    assert store.runs() == []


async def test_a_continuation_of_a_thread_the_store_does_not_hold_is_run_not_found(
    store: SQLiteStore,
) -> None:
    async with client(app(build(), store)) as c:
        seen = await post(c, run_input("nowhere", "r", resume=[answer("int_1", True)]))

    assert refused(seen)["code"] == "run-not-found"
    assert store.runs() == []


async def test_a_store_that_fails_is_an_internal_error_event_not_a_broken_response(
    tmp_path: Path,
) -> None:
    class Broken(SQLiteStore):
        def load_prompt(self, run_id: str) -> tuple[Prompt, int]:
            raise OSError("the disk is gone")

    broken = Broken(tmp_path / "broken.db")
    async with client(app(build(), broken)) as c:
        seen = await post(c, run_input("t", "r", text="Refund order 42"))

    assert refused(seen)["code"] == "internal-error"


# -- authorization, CORS, description -----------------------------------------------------------


@pytest.mark.parametrize(
    "header", [None, "Bearer wrong-token", "Basic c2VjcmV0LXRva2Vu", "secret-token"]
)
async def test_without_the_bearer_token_a_request_is_401_json_and_runs_nothing(
    count: Path, header: str | None
) -> None:
    headers = {} if header is None else {"authorization": header}
    async with client(app(build(count), authorize=bearer("secret-token"))) as c:
        response = await c.post(
            "/", json=run_input("t", "r", text="Refund order 42"), headers=headers
        )
        described = await c.get("/", headers=headers)

    assert response.status_code == 401
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"] == "unauthorized"
    assert response.headers["www-authenticate"] == "Bearer"
    assert described.status_code == 401
    assert executions(count) == []


async def test_with_the_bearer_token_the_request_runs() -> None:
    async with client(app(build(), authorize=bearer("secret-token"))) as c:
        seen = await post(
            c, run_input("t", "r", text="Refund order 42"), authorization="Bearer secret-token"
        )

    assert ending(seen)["outcome"]["type"] == "interrupt"


async def test_an_async_authorize_hook_decides_from_the_request() -> None:
    async def only_alice(request: Any) -> bool:
        await asyncio.sleep(0)
        return bool(request.headers.get("x-user") == "alice")

    async with client(app(build(), authorize=only_alice)) as c:
        alice = await c.post("/", json=run_input("t", "r", text="Hi"), headers={"x-user": "alice"})
        bob = await c.post("/", json=run_input("t", "r", text="Hi"), headers={"x-user": "bob"})

    assert (alice.status_code, bob.status_code) == (200, 401)


async def test_cors_preflight_is_answered_for_the_listed_origins_only() -> None:
    preflight = {
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
    }
    listed = app(build(), cors_origins=["https://app.example"], authorize=bearer("t0ken"))
    async with client(listed) as c:
        allowed = await c.options("/", headers={"origin": "https://app.example", **preflight})
        other = await c.options("/", headers={"origin": "https://evil.example", **preflight})
        posted = await c.post(
            "/",
            json=run_input("t", "r", text="Hi"),
            headers={"origin": "https://app.example", "authorization": "Bearer t0ken"},
        )
    async with client(app(build())) as c:
        off = await c.options("/", headers={"origin": "https://app.example", **preflight})

    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert "POST" in allowed.headers["access-control-allow-methods"]
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    assert other.status_code == 400
    assert "access-control-allow-origin" not in other.headers
    assert posted.headers["access-control-allow-origin"] == "https://app.example"
    assert off.status_code == 405
    assert "access-control-allow-origin" not in off.headers


async def test_a_get_describes_the_agent_and_its_actions(store: SQLiteStore) -> None:
    async with client(app(build(), store, path="/refunds")) as c:
        described = (await c.get("/refunds")).json()
        elsewhere = await c.get("/")

    assert described["agent"] == "refunds"
    assert described["mode"] == "store"
    assert [a["name"] for a in described["actions"]] == ["refund", "ship"]
    assert described["actions"][0]["inputSchema"]["required"] == ["order_id", "amount"]
    assert [a["needsApproval"] for a in described["actions"]] == [True, False]
    assert described["toolDefinitions"] == [
        {
            "name": "refund",
            "description": "Refund an order.",
            "needsApproval": True,
            "inputSchema": described["actions"][0]["inputSchema"],
        }
    ]
    assert elsewhere.status_code == 404


# -- building the app -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"path": "agent"},
        {"cors_origins": "https://app.example"},
        {"secret": "short"},
        {"secret": 42},
        {"authorize": "token"},
        {"store": "runs.db"},
    ],
)
def test_app_refuses_options_it_cannot_use(options: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        app(build(), **options)


def test_bearer_needs_a_token() -> None:
    with pytest.raises(UsageError):
        bearer("  ")


def test_without_starlette_app_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "starlette.applications", None)

    with pytest.raises(MissingDependencyError, match=r"pip install 'pausepoint\[agui\]'"):
        app(build())


def test_importing_pausepoint_agui_does_not_import_starlette() -> None:
    code = "import sys, pausepoint.agui; print('starlette' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert done.stdout.strip() == "False"
