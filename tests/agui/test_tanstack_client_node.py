"""The released ``@tanstack/ai-client`` drives our server as a web developer would use it:
a ChatClient on its default ``fetchServerSentEvents`` connection, the approval tools
declared from the server's GET description, no adapter code. The client resolves each
pause itself and POSTs the continuation it builds (a new runId, ``state: {}``, the whole
message history); each test then checks what the server did: the executions the actions
wrote and, with a store, the stored transcript.

tests/node/tanstack_client.mjs holds the client side; its header documents the scenario
spec and the report. The pinned packages (tests/node/package.json) are installed as the
TanStack cross-check's are; skipped without node and npm, required when CI=true."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.agui.foreign_pause import FOREIGN_INTERRUPT, with_foreign_pause
from tests.agui.served_agent import FINAL_TEXT, build, executions
from tests.agui.serving import Served, ending, frames
from tests.interrupts.tanstack_node import NODE_DIR, _unavailable, install_pinned_package

from pausepoint.agui import app
from pausepoint.store import SQLiteStore
from pausepoint.transcript import Prompt, ToolCall

pytestmark = pytest.mark.node

SCRIPT = NODE_DIR / "tanstack_client.mjs"
CALL_TIMEOUT_SECONDS = 300  # a safety net for a hung client on a busy machine, not a budget
VERSIONS = {"@tanstack/ai-client": "0.33.2", "@tanstack/ai": "0.58.0"}
SECRET = "shared by the tests, long enough"
MODES = ["stateless", "store"]
THREAD = "tanstack-thread"

APPROVE = {"kind": "tool-approval", "approved": True}
DECLINE = {"kind": "tool-approval", "approved": False}


def answer(value: Any) -> dict[str, Any]:
    return {"kind": "generic", "value": value}


@pytest.fixture(scope="module")
def node_modules() -> tuple[str, Path]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _unavailable("node and npm are needed to drive the server with @tanstack/ai-client.")
    return node, install_pinned_package(npm)


@dataclass(frozen=True)
class Backend:
    """The served agent, in one mode, and where the server leaves its record."""

    count: Path
    store: SQLiteStore | None

    def app(self) -> Any:
        return app(build(self.count), self.store, secret=SECRET)

    def stored(self) -> Prompt:
        assert self.store is not None
        return self.store.load_prompt(THREAD)[0]


def backend(tmp_path: Path, mode: str) -> Backend:
    store = SQLiteStore(tmp_path / "runs.db") if mode == "store" else None
    return Backend(tmp_path / "executions.txt", store)


def converse(
    node_modules: tuple[str, Path], url: str, steps: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """One conversation through the released client: "Refund order 42", then `steps`."""
    node, modules = node_modules
    spec = {"url": url + "/", "threadId": THREAD, "message": "Refund order 42", "steps": steps}
    done = subprocess.run(
        [node, str(SCRIPT)],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        timeout=CALL_TIMEOUT_SECONDS,
        env={**os.environ, "PAUSEPOINT_NODE_MODULES": str(modules)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["versions"] == VERSIONS
    assert not any(state["timedOut"] for state in report["states"]), story(report)
    return report


def posts(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The POSTs the client sent, each with the events the server answered."""
    return [request for request in report["requests"] if request["method"] == "POST"]


def tool_results(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool-result parts of the client's messages, in order."""
    return [
        part
        for message in report["messages"]
        for part in message["parts"]
        if part["type"] == "tool-result"
    ]


def tool_call(prompt: Prompt, name: str) -> ToolCall:
    [call] = [item for item in prompt.items if isinstance(item, ToolCall) and item.name == name]
    return call


def shown(interrupts: Iterable[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (i["kind"], i["canResolve"], i["status"], [e["code"] for e in i["errors"]])
        for i in interrupts
    ]


def story(report: Mapping[str, Any]) -> str:
    """What the client declared, saw and sent, and how the server answered: the message
    of the assertions a server change is most likely to break."""
    lines = [f"declared tools: {report['tools']}"]
    for number, state in enumerate(report["states"]):
        lines.append(
            f"state {number}: interrupts (kind, canResolve, status, errors) "
            f"{shown(state['interrupts'])}; batch errors {state['interruptErrors']}; "
            f"client error {state['error']!r}"
        )
    for request in posts(report):
        end = request["events"][-1] if request["events"] else None
        if end is not None and end.get("type") == "RUN_FINISHED":
            outcome = end.get("outcome") or {"type": "success"}
            end = {"type": "RUN_FINISHED", "outcome": outcome.get("type")}
        lines.append(f"POST resume={request['body'].get('resume')} -> {end}")
    if report["stopped"] is not None:
        lines.append(f"stopped: {report['stopped']}")
    return "\n".join(lines)


def the_approval(state: Mapping[str, Any]) -> dict[str, Any]:
    """The refund's approval as the client shows it (the one pause that is ours)."""
    [approval] = [i for i in state["interrupts"] if i["id"] != FOREIGN_INTERRUPT["id"]]
    return dict(approval)


# -- the approval ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_released_tanstack_client_approves_a_refund_that_runs_once(
    node_modules: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    served = backend(tmp_path, mode)
    with Served(served.app()) as server:
        report = converse(node_modules, server.url, [APPROVE])

    asked, approved = report["states"][0], report["states"][-1]
    approval = the_approval(asked)
    assert (approval["kind"], approval["canResolve"], approval["status"]) == (
        "tool-approval",
        True,
        "pending",
    ), story(report)
    assert approval["toolName"] == "refund"
    assert approval["originalArgs"] == {"order_id": 42, "amount": 30}
    assert report["stopped"] is None, story(report)
    assert (approved["interruptErrors"], approved["error"]) == ([], None), story(report)
    [question] = approved["interrupts"]
    assert (question["kind"], question["canResolve"], question["status"]) == (
        "generic",
        True,
        "pending",
    ), story(report)
    assert question["message"] == "How fast should order 42 ship?"
    assert [json.loads(r["content"]) for r in tool_results(report)] == [{"refunded": 30}]
    assert executions(served.count) == ["refund"]
    if served.store is not None:
        refund = tool_call(served.stored(), "refund")
        assert (refund.status, refund.result) == ("succeeded", {"refunded": 30.0})


@pytest.mark.parametrize("mode", MODES)
def test_the_released_tanstack_client_declines_a_refund_that_never_runs_and_the_model_hears_it(
    node_modules: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    served = backend(tmp_path, mode)
    with Served(served.app()) as server:
        report = converse(node_modules, server.url, [DECLINE])

    approval = the_approval(report["states"][0])
    assert (approval["kind"], approval["canResolve"]) == ("tool-approval", True), story(report)
    assert report["stopped"] is None, story(report)
    declined = report["states"][-1]
    assert (declined["interruptErrors"], declined["error"]) == ([], None), story(report)
    [question] = declined["interrupts"]  # the model heard "no" and went on to shipping
    assert (question["kind"], question["canResolve"]) == ("generic", True), story(report)
    [refusal] = tool_results(report)
    assert refusal["toolCallId"] == approval["toolCallId"]
    assert "declined" in refusal["content"]
    assert executions(served.count) == []
    if served.store is not None:
        transcript = served.stored()
        assert tool_call(transcript, "refund").status == "rejected"
        assert tool_call(transcript, "ship").status == "interrupted"


@pytest.mark.parametrize("mode", MODES)
def test_the_released_tanstack_client_approves_edited_arguments_and_the_refund_runs_with_them(
    node_modules: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    served = backend(tmp_path, mode)
    edited = {"order_id": 42, "amount": 10}
    with Served(served.app()) as server:
        report = converse(node_modules, server.url, [{**APPROVE, "editedArgs": edited}])

    assert report["stopped"] is None, story(report)
    continuation = posts(report)[-1]["body"]
    [entry] = continuation["resume"]
    assert entry["payload"] == {"approved": True, "editedArgs": edited}
    approved = report["states"][-1]
    assert (approved["interruptErrors"], approved["error"]) == ([], None), story(report)
    assert [json.loads(r["content"]) for r in tool_results(report)] == [{"refunded": 10}]
    assert executions(served.count) == ["refund"]
    if served.store is not None:
        refund = tool_call(served.stored(), "refund")
        assert refund.effective_input == edited
        assert (refund.status, refund.result) == ("succeeded", {"refunded": 10.0})


# -- the question with a response schema ---------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_released_tanstack_client_answers_the_shipping_question_and_the_run_completes(
    node_modules: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    served = backend(tmp_path, mode)
    with Served(served.app()) as server:
        report = converse(node_modules, server.url, [APPROVE, answer({"speed": "fast"})])

    assert report["stopped"] is None, story(report)
    done = report["states"][-1]
    assert (done["interrupts"], done["interruptErrors"], done["error"]) == ([], [], None), story(
        report
    )
    assert (report["status"], report["error"]) == ("ready", None)
    assert report["messages"][-1]["text"] == FINAL_TEXT
    assert [r["content"] for r in tool_results(report)][1:] == ["shipping fast"]
    assert executions(served.count) == ["refund", "ship fast"]
    if served.store is not None:
        assert served.stored().output == FINAL_TEXT


@pytest.mark.parametrize("mode", MODES)
def test_an_answer_off_the_schema_shows_on_its_interrupt_and_the_corrected_answer_completes(
    node_modules: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    served = backend(tmp_path, mode)
    steps = [APPROVE, answer({"speed": "warp"}), answer({"speed": "slow"})]
    with Served(served.app()) as server:
        report = converse(node_modules, server.url, steps)

    assert report["stopped"] is None, story(report)
    _, asked, refused, done = report["states"]
    [question] = asked["interrupts"]
    assert (question["kind"], question["canResolve"]) == ("generic", True), story(report)
    [wrong] = refused["interrupts"]
    assert (wrong["id"], wrong["status"], wrong["canResolve"]) == (question["id"], "error", True), (
        story(report)
    )
    [error] = wrong["errors"]
    assert (error["scope"], error["code"], error["source"]) == ("item", "invalid-payload", "server")
    assert "transport" not in [e["code"] for e in refused["interruptErrors"]], story(report)
    refusal = posts(report)[2]
    assert [event["type"] for event in refusal["events"]] == ["RUN_ERROR"], story(report)
    assert report["resolved"][1:] == [question["id"], question["id"]]
    assert (done["interrupts"], done["interruptErrors"], done["error"]) == ([], [], None), story(
        report
    )
    assert report["messages"][-1]["text"] == FINAL_TEXT
    # ship ran once, with the corrected answer; the refused one ran nothing
    assert executions(served.count) == ["refund", "ship slow"]
    if served.store is not None:
        ship = tool_call(served.stored(), "ship")
        assert (ship.status, ship.result) == ("succeeded", "shipping slow")


# -- a pause from another producer -----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_pause_from_another_producer_is_shown_read_only_and_left_out_of_the_continuation(
    node_modules: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    served = backend(tmp_path, mode)
    with Served(with_foreign_pause(served.app())) as server:
        report = converse(node_modules, server.url, [APPROVE])

    asked, approved = report["states"][0], report["states"][-1]
    [foreign] = [i for i in asked["interrupts"] if i["id"] == FOREIGN_INTERRUPT["id"]]
    assert (foreign["kind"], foreign["canResolve"]) == ("unbound", False)
    assert foreign["message"] == FOREIGN_INTERRUPT["message"]
    approval = the_approval(asked)
    assert (approval["kind"], approval["canResolve"]) == ("tool-approval", True), story(report)
    assert report["stopped"] is None, story(report)
    continuation = posts(report)[-1]["body"]
    assert [entry["interruptId"] for entry in continuation["resume"]] == [approval["id"]]
    assert (approved["interruptErrors"], approved["error"]) == ([], None), story(report)
    assert sorted(shown(approved["interrupts"])) == [
        ("generic", True, "pending", []),
        ("unbound", False, "pending", []),
    ], story(report)
    assert executions(served.count) == ["refund"]
    if served.store is not None:
        assert tool_call(served.stored(), "refund").status == "succeeded"


# -- the continuation as the client builds it ------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_continuation_the_client_builds_is_accepted_as_sent_and_a_replay_runs_nothing_again(
    node_modules: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    served = backend(tmp_path, mode)
    with Served(served.app()) as server:
        report = converse(node_modules, server.url, [APPROVE])
        assert report["stopped"] is None, story(report)
        first, continuation = posts(report)
        approval = the_approval(report["states"][0])
        body = continuation["body"]
        assert body["runId"] != first["body"]["runId"]
        assert body["parentRunId"] == first["body"]["runId"]
        assert body["state"] == {}
        assert body["resume"] == [
            {"interruptId": approval["id"], "status": "resolved", "payload": {"approved": True}}
        ]
        answered = ending(continuation["events"])
        assert answered["type"] == "RUN_FINISHED", story(report)
        assert answered["outcome"]["type"] == "interrupt"
        assert executions(served.count) == ["refund"]
        before = served.stored().model_dump_json() if served.store is not None else None

        replay = httpx.post(
            server.url + "/",
            content=continuation["bodyText"].encode("utf-8"),
            headers=continuation["headers"],
            timeout=CALL_TIMEOUT_SECONDS,
        )

    assert replay.status_code == 200, replay.text
    ending(frames(replay.text))  # one RUN_FINISHED or RUN_ERROR ends it
    assert executions(served.count) == ["refund"]
    if served.store is not None:
        assert served.stored().model_dump_json() == before
