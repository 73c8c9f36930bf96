"""RemoteRun against a peer we did not write: a Microsoft Agent Framework agent served by
agent-framework-ag-ui's own FastAPI endpoint.

The agent (tests/agui/peers/agent_framework_app.py) streams "Refunding order 42." and a
call to ``refund``, a tool that always needs approval. The framework tells the pause three
ways at once: a CUSTOM ``function_approval_request`` event, a made-up ``confirm_changes``
tool call (for front ends that render approvals as a tool) and RUN_FINISHED's
``interrupt`` outcome, whose interrupt (a random ``af-call-…`` id, reason ``tool_call``)
carries no pausepoint binding. RemoteRun lists it and shows it read-only; AG-UI resume
entries (`continue_with`) answer it.

agent-framework-ag-ui pins ag-ui-protocol below 0.2, pausepoint needs 1.0: the two cannot
be installed together, so the agent runs in an interpreter of its own, as a process serving
127.0.0.1: .venv-agent-framework, which `make unit` builds from
tests/agui/peers/agent-framework.txt, or the one PAUSEPOINT_AGENT_FRAMEWORK_PYTHON names.
Without either these tests skip, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.agui.serving import free_port
from tests.helpers import until
from tests.widget.recording import RecordingComm, comms

from pausepoint import ToolCall
from pausepoint.agui import RemoteRun
from pausepoint.errors import NoPendingInterruptError, RunSuspendedError
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


@pytest.fixture(scope="module")
def agent_url() -> Iterator[str]:
    port = free_port()
    with (
        tempfile.TemporaryFile() as log,
        subprocess.Popen(
            [PYTHON, "-m", "tests.agui.peers.agent_framework_app", str(port)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
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
            yield f"http://127.0.0.1:{port}/agent"
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:  # pragma: no cover - a stuck server
                server.kill()


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


async def test_an_approval_is_an_interrupt_outcome_shown_read_only_and_continued_to_the_end(
    agent_url: str, comms: list[RecordingComm]
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
    # No pausepoint binding: listed and shown, but not a pause resume() can answer.
    assert remote.pending == ()
    (foreign,) = remote.foreign
    assert (foreign.kind, foreign.can_resolve) == ("unbound", False)
    with pytest.raises(NoPendingInterruptError):
        await remote.resume(True)
    with pytest.raises(RunSuspendedError):
        await remote.run("Never mind.")
    (card,) = remote.view.pending
    assert (card["id"], card["canResolve"], card["toolCallId"]) == (
        interrupt["id"],
        False,
        CALL_ID,
    )

    done = await remote.continue_with(answer(interrupt["id"], approved=True))

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
    assert calls["refund"].result == {"refunded": 30.0, "order_id": 42}
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
