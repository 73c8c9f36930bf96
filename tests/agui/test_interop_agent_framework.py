"""RemoteRun against a peer we did not write: a Microsoft Agent Framework agent served by
agent-framework-ag-ui's own FastAPI endpoint.

The agent (tests/agui/peers/agent_framework_app.py) streams "Refunding order 42." and a
call to ``refund``, a tool that always needs approval. The framework tells the pause three
ways at once: a CUSTOM ``function_approval_request`` event, a made-up ``confirm_changes``
tool call (for front ends that render approvals as a tool) and RUN_FINISHED's
``interrupt`` outcome, whose interrupt (a random ``af-call-…`` id, reason ``tool_call``)
carries no pausepoint binding, but RemoteRun reads its shape: an approval card answered
here (`resume`, `reject`) in the framework's own words, offering Approve, Edit arguments
and Reject (a denial carries no words to the model, so no Respond); AG-UI resume entries
(`continue_with`) answer it too. The peer writes each run of ``refund`` to a file, read
here to see what ran.

At ``/workflow`` the same server runs a workflow whose executor asks by ``request_info``
where an order ships from: an ``input_required`` interrupt with a string's schema, a
question card answered with the value the executor reads (and no Reject: cancelling it
tells the executor nothing). At ``/workflow-approval`` the refunds agent is a workflow's
executor: its approval comes by ``request_info``, a card offering Approve and Reject.

agent-framework-ag-ui pins ag-ui-protocol below 0.2, pausepoint needs 1.0: the two cannot
be installed together, so the agent runs in an interpreter of its own, as a process serving
127.0.0.1: .venv-agent-framework, which `make unit` builds from
tests/agui/peers/agent-framework.txt, or the one PAUSEPOINT_AGENT_FRAMEWORK_PYTHON names.
Without either these tests skip, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.agui.serving import free_port
from tests.helpers import until
from tests.widget.recording import RecordingComm, comms

from pausepoint import ToolCall
from pausepoint.agui import RemoteRun
from pausepoint.errors import InvalidResolutionError, RunSuspendedError
from pausepoint.transcript import AssistantMessage, UserMessage

__all__ = ["comms"]

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / ".venv-agent-framework" / "bin" / "python"  # `make unit` builds it
PYTHON = os.environ.get("PAUSEPOINT_AGENT_FRAMEWORK_PYTHON") or (
    str(BUILT) if BUILT.exists() else ""
)
if not PYTHON:
    if os.environ.get("CI") == "true":
        raise RuntimeError(
            "The Agent Framework peer's interpreter is missing: `make unit` builds "
            ".venv-agent-framework (or set PAUSEPOINT_AGENT_FRAMEWORK_PYTHON)."
        )
    pytest.skip(
        "the Agent Framework peer needs an interpreter of its own (agent-framework-ag-ui "
        "pins ag-ui-protocol<0.2): `make unit` builds .venv-agent-framework",
        allow_module_level=True,
    )
ASK = "Please refund order 42."
ASKING = "Refunding order 42."
CALL_ID = "call_refund_42"
DONE = 'Done: {"refunded": 30.0, "order_id": 42}'
DENIED = "Error: Tool call invocation was rejected by user."
QUESTION = "Which warehouse should order 42 ship from?"
Calls = Callable[[], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def peer() -> Iterator[tuple[str, Path]]:
    """The server's address, and the file its ``refund`` tool writes each run to."""
    port = free_port()
    with (
        tempfile.TemporaryDirectory() as place,
        tempfile.TemporaryFile() as log,
        subprocess.Popen(
            [PYTHON, "-m", "tests.agui.peers.agent_framework_app", str(port)],
            cwd=ROOT,
            env={
                **os.environ,
                "PYTHONPATH": str(ROOT),
                "PAUSEPOINT_PEER_CALLS": str(Path(place) / "calls.jsonl"),
            },
            stdout=log,
            stderr=subprocess.STDOUT,
        ) as server,
    ):
        try:
            deadline = time.monotonic() + 120  # a budget for a busy machine, not a requirement
            while True:
                if server.poll() is not None:
                    log.seek(0)
                    said = log.read().decode("utf-8", "replace")
                    pytest.fail(f"the Agent Framework server stopped while starting:\n{said}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "the Agent Framework server did not start"
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}", Path(place) / "calls.jsonl"
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:  # pragma: no cover - a stuck server
                server.kill()


@pytest.fixture
def agent_url(peer: tuple[str, Path]) -> str:
    return peer[0] + "/agent"


@pytest.fixture
def workflow_url(peer: tuple[str, Path]) -> str:
    return peer[0] + "/workflow"


@pytest.fixture
def ran(peer: tuple[str, Path]) -> Calls:
    """The arguments of each run of the peer's ``refund`` since the test began."""
    calls = peer[1]
    calls.write_text("")
    return lambda: [json.loads(line) for line in calls.read_text().splitlines()]


def texts(remote: RemoteRun) -> list[tuple[str, str]]:
    return [
        (item.type, item.text)
        for item in remote.prompt.items
        if isinstance(item, UserMessage | AssistantMessage)
    ]


def records(remote: RemoteRun) -> dict[str, ToolCall]:
    return {item.name: item for item in remote.prompt.items if isinstance(item, ToolCall)}


def since_last_start(remote: RemoteRun) -> list[dict[str, Any]]:
    """The raw events of the latest request's stream."""
    starts = [i for i, event in enumerate(remote.events) if event["type"] == "RUN_STARTED"]
    return remote.events[starts[-1] :]


def answer(interrupt_id: str, **payload: Any) -> list[dict[str, Any]]:
    return [{"interruptId": interrupt_id, "status": "resolved", "payload": payload}]


async def paused(url: str) -> tuple[RemoteRun, str]:
    remote = RemoteRun(url)
    result = await remote.run(ASK)
    assert result.status == "interrupted"
    (interrupt,) = remote.interrupts
    return remote, str(interrupt["id"])


async def test_an_approval_is_an_interrupt_outcome_read_as_a_card_and_approved_to_the_end(
    agent_url: str, ran: Calls, comms: list[RecordingComm]
) -> None:
    remote = RemoteRun(agent_url)

    result = await remote.run(ASK)

    assert (result.status, remote.status) == ("interrupted", "interrupted")
    assert texts(remote) == [("user", ASK), ("assistant", ASKING)]
    calls = records(remote)
    assert sorted(calls) == ["confirm_changes", "refund"]
    assert (calls["refund"].id, calls["refund"].input) == (
        CALL_ID,
        {"order_id": 42, "amount": 30.0},
    )
    assert calls["confirm_changes"].input["function_call_id"] == CALL_ID
    (interrupt,) = remote.interrupts
    assert str(interrupt["id"]).startswith("af-call-")
    assert interrupt["reason"] == "tool_call"
    assert interrupt["toolCallId"] == CALL_ID
    assert interrupt["message"] == "Approve running refund?"
    schema = interrupt["responseSchema"]
    assert schema["anyOf"] == [{"required": ["approved"]}, {"required": ["accepted"]}]
    assert schema["properties"]["approved"] == {
        "type": "boolean",
        "description": "Whether the requested tool call is approved.",
    }
    assert schema["properties"]["editedArgs"]["required"] == ["order_id", "amount"]
    assert interrupt["metadata"]["agent_framework"]["function_call"]["call_id"] == CALL_ID
    # The same pause, told the framework's older way too: a CUSTOM event with its id.
    (custom,) = [e for e in remote.events if e["type"] == "CUSTOM"]
    assert custom["name"] == "function_approval_request"
    assert custom["value"]["id"] == interrupt["id"]
    assert remote.events[-1]["outcome"]["type"] == "interrupt"
    # No pausepoint binding, but the shape of the framework's approval: a card answered
    # here, which says where it was read from and offers what the framework takes.
    assert remote.foreign == []
    (pending,) = remote.pending
    assert (pending.id, pending.kind, pending.tool_call) == (
        interrupt["id"],
        "tool-approval",
        calls["refund"],
    )
    assert remote.read_from(interrupt["id"]) == "Agent Framework"
    with pytest.raises(RunSuspendedError):
        await remote.run("Never mind.")
    (card,) = remote.view.pending
    assert (card["id"], card["kind"], card["canResolve"]) == (
        interrupt["id"],
        "tool-approval",
        True,
    )
    assert (card["readFrom"], card["toolCallId"], card["toolName"], card["args"]) == (
        "Agent Framework",
        CALL_ID,
        "refund",
        {"order_id": 42, "amount": 30.0},
    )
    assert card["decisions"] == ["approve", "edit", "reject"]
    assert ran() == []

    done = await remote.resume(True)

    assert (done.status, remote.status) == ("completed", "completed")
    continued = since_last_start(remote)
    assert [e["type"] for e in continued] == [
        "RUN_STARTED",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT",
        "RUN_FINISHED",
    ]
    assert "outcome" not in continued[-1]  # an AG-UI 0.1 producer: absent means success
    assert ran() == [{"order_id": 42, "amount": 30.0}]
    assert (calls["refund"].status, calls["refund"].result) == (
        "succeeded",
        {"refunded": 30.0, "order_id": 42},
    )
    assert texts(remote) == [("user", ASK), ("assistant", ASKING), ("assistant", DONE)]
    # confirm_changes was never a call to run: no result ever names it.
    results = [e["toolCallId"] for e in remote.events if e["type"] == "TOOL_CALL_RESULT"]
    assert results == [CALL_ID]
    assert remote.interrupts == []
    assert remote.view.pending == []
    assert [m["role"] for m in remote.messages] == [
        "user",
        "assistant",
        "assistant",
        "tool",
        "assistant",
    ]
    view = remote.view
    await until(lambda: view.status == "completed")
    await until(lambda: len(view.items) == len(remote.prompt.items))
    assert [item["type"] for item in view.items] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert view.items[-1]["text"] == DONE


async def test_edited_arguments_are_what_the_tool_runs_with(agent_url: str) -> None:
    remote, interrupt_id = await paused(agent_url)

    done = await remote.continue_with(
        answer(interrupt_id, approved=True, editedArgs={"order_id": 42, "amount": 12.5})
    )

    assert done.status == "completed"
    assert records(remote)["refund"].result == {"refunded": 12.5, "order_id": 42}


async def test_a_denial_reaches_the_model_but_only_the_snapshot_carries_it(
    agent_url: str,
) -> None:
    remote, interrupt_id = await paused(agent_url)

    done = await remote.continue_with(answer(interrupt_id, approved=False))

    assert done.status == "completed"
    assert texts(remote)[-1] == ("assistant", f"Done: {DENIED}")
    assert not [e for e in since_last_start(remote) if e["type"] == "TOOL_CALL_RESULT"]
    (denial,) = [m for m in remote.messages if m["role"] == "tool"]
    assert (denial["toolCallId"], denial["content"]) == (CALL_ID, DENIED)


async def test_a_cancelled_entry_ends_the_run_with_nothing_said(agent_url: str) -> None:
    remote, interrupt_id = await paused(agent_url)

    done = await remote.continue_with([{"interruptId": interrupt_id, "status": "cancelled"}])

    assert done.status == "completed"
    assert [e["type"] for e in since_last_start(remote)] == ["RUN_STARTED", "RUN_FINISHED"]
    assert texts(remote) == [("user", ASK), ("assistant", ASKING)]
    assert remote.interrupts == []


async def test_refused_answers_fail_with_the_frameworks_codes(agent_url: str) -> None:
    remote, interrupt_id = await paused(agent_url)

    unknown = await remote.continue_with(answer("af-call-unknown", approved=True))

    assert unknown.status == "failed"
    assert unknown.error is not None
    assert unknown.error.name == "APPROVAL_RESUME_NOT_FOUND"

    malformed = await remote.continue_with(answer(interrupt_id, ok=True))

    assert malformed.status == "failed"
    assert malformed.error is not None
    assert malformed.error.name == "APPROVAL_RESUME_INVALID"

    done = await remote.continue_with(answer(interrupt_id, approved=True))

    assert done.status == "completed"
    assert records(remote)["refund"].result == {"refunded": 30.0, "order_id": 42}


async def test_edited_arguments_from_the_card_are_what_the_tool_runs_with_once(
    agent_url: str, ran: Calls
) -> None:
    remote, _ = await paused(agent_url)

    done = await remote.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 12.5}})

    assert done.status == "completed"
    assert ran() == [{"order_id": 42, "amount": 12.5}]
    assert records(remote)["refund"].result == {"refunded": 12.5, "order_id": 42}
    assert texts(remote)[-1] == ("assistant", 'Done: {"refunded": 12.5, "order_id": 42}')


async def test_edited_arguments_missing_one_are_refused_by_the_framework_and_the_card_waits(
    agent_url: str, ran: Calls
) -> None:
    remote, interrupt_id = await paused(agent_url)

    refused = await remote.resume({"approved": True, "editedArgs": {"amount": 12.5}})

    # The framework takes edited arguments only as a full replacement.
    assert refused.status == "failed"
    assert refused.error is not None
    assert refused.error.name == "APPROVAL_RESUME_INVALID_RESPONSE"
    assert ran() == []
    assert [p.id for p in remote.pending] == [interrupt_id]
    assert records(remote)["refund"].status == "interrupted"

    done = await remote.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 5.0}})

    assert done.status == "completed"
    assert ran() == [{"order_id": 42, "amount": 5.0}]


async def test_a_reject_from_the_card_is_the_frameworks_denial_and_the_tool_never_runs(
    agent_url: str, ran: Calls
) -> None:
    remote, _ = await paused(agent_url)

    done = await remote.reject("Order 42 was a gift.")

    assert done.status == "completed"
    assert ran() == []
    record = records(remote)["refund"]
    assert record.status == "rejected"
    assert record.error is not None
    assert record.error.message == "Order 42 was a gift."
    # The framework's denial carries no words: its model read its own refusal.
    assert texts(remote)[-1] == ("assistant", f"Done: {DENIED}")
    assert not [e for e in since_last_start(remote) if e["type"] == "TOOL_CALL_RESULT"]
    (denial,) = [m for m in remote.messages if m["role"] == "tool"]
    assert (denial["toolCallId"], denial["content"]) == (CALL_ID, DENIED)
    assert remote.view.pending == []


async def test_a_response_in_words_is_refused_as_the_framework_takes_none_and_nothing_is_recorded(
    agent_url: str, ran: Calls
) -> None:
    remote, interrupt_id = await paused(agent_url)
    before = remote.prompt.model_dump_json()
    heard = len(remote.events)

    with pytest.raises(
        InvalidResolutionError,
        match="Agent Framework's pause takes Approve or Edit arguments or Reject, not Respond",
    ):
        await remote.respond("Only half: it arrived damaged.")

    assert remote.prompt.model_dump_json() == before
    assert len(remote.events) == heard  # nothing was sent
    assert [p.id for p in remote.pending] == [interrupt_id]
    assert remote.view.pending[0]["id"] == interrupt_id
    assert ran() == []

    done = await remote.resume(True)

    assert done.status == "completed"
    assert ran() == [{"order_id": 42, "amount": 30.0}]


async def test_a_workflow_request_is_a_question_card_answered_with_the_value_its_executor_reads(
    workflow_url: str, comms: list[RecordingComm]
) -> None:
    remote = RemoteRun(workflow_url)

    result = await remote.run("Ship order 42.")

    assert result.status == "interrupted"
    (interrupt,) = remote.interrupts
    assert (interrupt["reason"], interrupt["message"], interrupt["responseSchema"]) == (
        "input_required",
        QUESTION,
        {"type": "string"},
    )
    framework = interrupt["metadata"]["agent_framework"]
    assert (framework["type"], framework["source_executor_id"]) == (
        "workflow_request_info",
        "dispatch",
    )
    assert remote.foreign == []
    (pending,) = remote.pending
    assert (pending.id, pending.kind) == (interrupt["id"], "generic")
    assert remote.read_from(interrupt["id"]) == "Agent Framework"
    (card,) = remote.view.pending
    assert (card["kind"], card["canResolve"], card["readFrom"], card["message"]) == (
        "generic",
        True,
        "Agent Framework",
        QUESTION,
    )
    assert (card["responseSchema"], card["decisions"]) == ({"type": "string"}, [])

    done = await remote.resume("Leeds")

    assert done.status == "completed", done.error
    # (The assistant messages without text hold the framework's `request_info` call.)
    assert [t for t in texts(remote) if t[1]] == [
        ("user", "Ship order 42."),
        ("assistant", "Shipping order 42 from Leeds."),
    ]
    assert remote.interrupts == []
    assert remote.pending == ()
    view = remote.view
    await until(lambda: view.status == "completed")
    assert view.pending == []


async def test_a_workflow_request_refuses_reject_and_a_value_outside_its_schema(
    workflow_url: str,
) -> None:
    remote = RemoteRun(workflow_url)
    await remote.run("Ship order 42.")
    before = remote.prompt.model_dump_json()
    heard = len(remote.events)

    with pytest.raises(InvalidResolutionError, match="takes an answer to its question, not Reject"):
        await remote.reject("Not today.")
    with pytest.raises(InvalidResolutionError, match="42 is not of type 'string'"):
        await remote.resume(42)

    assert remote.prompt.model_dump_json() == before
    assert len(remote.events) == heard
    done = await remote.resume("Gdańsk")
    assert done.status == "completed"
    assert texts(remote)[-1] == ("assistant", "Shipping order 42 from Gdańsk.")


async def test_a_pause_saved_and_loaded_in_a_new_kernel_is_still_a_card_answered_there(
    agent_url: str, workflow_url: str, ran: Calls, tmp_path: Path
) -> None:
    remote, interrupt_id = await paused(agent_url)
    question = RemoteRun(workflow_url)
    await question.run("Ship order 42.")

    loaded = RemoteRun.load(remote.save(tmp_path / "refund.json"))
    asked = RemoteRun.load(question.save(tmp_path / "ship.json"))

    assert loaded.read_from(interrupt_id) == "Agent Framework"
    assert loaded.view.pending[0]["decisions"] == ["approve", "edit", "reject"]
    assert [p.kind for p in asked.pending] == ["generic"]
    approved = await loaded.resume(
        {"approved": True, "editedArgs": {"order_id": 42, "amount": 1.0}}
    )
    answered = await asked.resume("Leeds")
    assert (approved.status, answered.status) == ("completed", "completed")
    assert ran() == [{"order_id": 42, "amount": 1.0}]
    assert texts(asked)[-1] == ("assistant", "Shipping order 42 from Leeds.")


async def test_a_workflows_approval_is_a_card_without_edit_approved_and_rejected_there(
    peer: tuple[str, Path], ran: Calls
) -> None:
    """The framework's workflow runs the call it stored, whatever edit it is sent (the
    adapter checks it, then core drops it): the card offers Approve and Reject only."""
    url = peer[0] + "/workflow-approval"
    approving, rejecting = RemoteRun(url), RemoteRun(url)
    for remote in (approving, rejecting):
        assert (await remote.run(ASK)).status == "interrupted"
    (interrupt,) = approving.interrupts
    assert (interrupt["reason"], interrupt["toolCallId"]) == ("tool_call", CALL_ID)
    assert interrupt["metadata"]["agent_framework"]["source_executor_id"] == "refunds"
    assert "editedArgs" in interrupt["responseSchema"]["properties"]
    (card,) = approving.view.pending
    assert (card["readFrom"], card["toolName"], card["decisions"]) == (
        "Agent Framework",
        "refund",
        ["approve", "reject"],
    )
    before = approving.prompt.model_dump_json()

    with pytest.raises(InvalidResolutionError, match="takes Approve or Reject, not Edit arguments"):
        await approving.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 1.0}})
    with pytest.raises(InvalidResolutionError, match="not Respond"):
        await approving.respond("Only half.")

    assert approving.prompt.model_dump_json() == before
    approved = await approving.resume(True)
    assert approved.status == "completed", approved.error
    assert ran() == [{"order_id": 42, "amount": 30.0}]
    assert texts(approving)[-1] == ("assistant", DONE)

    rejected = await rejecting.reject("Not today.")

    assert rejected.status == "completed", rejected.error
    assert ran() == [{"order_id": 42, "amount": 30.0}]  # the approved one alone
    assert records(rejecting)["refund"].status == "rejected"
    assert texts(rejecting)[-1] == ("assistant", f"Done: {DENIED}")
