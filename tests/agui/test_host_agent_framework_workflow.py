"""A Microsoft Agent Framework workflow hosted in this kernel (`pausepoint.host`): the
framework's own streaming run of a `WorkflowBuilder` workflow whose executor asks a person
by `ctx.request_info(...)`, on agent-framework-core alone
(tests/agui/peers/agent_framework_workflow_hosted.py; the same workflow is served by
agent-framework-ag-ui in test_interop_agent_framework.py).

The request ends the run with an interrupt told as agent-framework-ag-ui tells it, so it is
the same question card read from the framework's pause, answered with a value the
framework hands to the executor's response handler. The checkpoint the workflow paused at
travels, by its id, in the AG-UI state: the answer restores it, so a new workflow object
(a new kernel) goes on where the first one paused. What the executor read is in the peer's
`HEARD`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import require_peer, until
from tests.widget.recording import RecordingComm, comms

from pausepoint import ToolCall
from pausepoint.agui import HostedRun, host
from pausepoint.errors import InvalidResolutionError, UsageError
from pausepoint.transcript import AssistantMessage, UserMessage

__all__ = ["comms"]

require_peer("agent_framework", "Microsoft Agent Framework (agent-framework-core)")

from agent_framework import FileCheckpointStorage  # noqa: E402
from tests.agui.peers import agent_framework_workflow_hosted as peer  # noqa: E402
from tests.agui.peers.agent_framework_workflow_hosted import (  # noqa: E402
    ASKED,
    ENDED,
    HEARD,
    QUESTION,
    build_refunds_workflow,
    build_workflow,
)

ASK = "Ship order 42."
STATE_KEY = "agentFrameworkWorkflow"


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for noted in (ASKED, HEARD, ENDED):
        noted.clear()
    monkeypatch.setattr(peer, "GATE", asyncio.Event())
    yield
    for noted in (ASKED, HEARD, ENDED):
        noted.clear()


def texts(run: HostedRun) -> list[tuple[str, str]]:
    """What was said (the assistant message without text holds the pause's record)."""
    return [
        (item.type, item.text)
        for item in run.prompt.items
        if isinstance(item, UserMessage | AssistantMessage) and item.text
    ]


def answers(run: HostedRun) -> list[tuple[str, Any]]:
    """Each pause's record: its status and the answer it was given."""
    return [(item.status, item.result) for item in run.prompt.items if isinstance(item, ToolCall)]


async def paused(run: HostedRun) -> str:
    result = await run.run(ASK)
    assert result.status == "interrupted"
    (interrupt,) = run.interrupts
    return str(interrupt["id"])


async def test_a_request_is_a_question_card_read_from_the_frameworks_pause_answered_with_a_value(
    comms: list[RecordingComm],
) -> None:
    run = host(build_workflow())

    result = await run.run(ASK)

    assert (result.status, run.status) == ("interrupted", "interrupted")
    assert ASKED == [[ASK]]  # the executor was started with the conversation
    (interrupt,) = run.interrupts
    request_id = str(interrupt["id"])
    checkpoint_id = run.state[STATE_KEY]["checkpointId"]
    asked = {"message": QUESTION, "order_id": 42}
    # As agent-framework-ag-ui tells it when it keeps checkpoints.
    assert interrupt == {
        "id": request_id,
        "reason": "input_required",
        "message": QUESTION,
        "responseSchema": {"type": "string"},
        "metadata": {
            "agent_framework": {
                "type": "workflow_request_info",
                "request_id": request_id,
                "source_executor_id": "dispatch",
                "request_type": "dict",
                "response_type": "str",
                "data": asked,
                "value": asked,
                "checkpoint_id": checkpoint_id,
            }
        },
    }
    assert run.foreign == []
    assert run.read_from(request_id) == "Agent Framework"
    (card,) = run.view.pending
    assert (card["kind"], card["canResolve"], card["readFrom"], card["message"]) == (
        "generic",
        True,
        "Agent Framework",
        QUESTION,
    )
    assert (card["responseSchema"], card["decisions"]) == ({"type": "string"}, [])
    assert run.view.meta["hosted"] == "Agent Framework"
    assert HEARD == []

    done = await run.resume("Leeds")

    assert (done.status, run.status) == ("completed", "completed")
    assert HEARD == ["Leeds"]
    assert texts(run) == [("user", ASK), ("assistant", "Shipping order 42 from Leeds.")]
    assert answers(run) == [("succeeded", "Leeds")]
    assert run.interrupts == []
    assert run.state == {STATE_KEY: {}}  # nothing left to answer
    view = run.view
    await until(lambda: view.status == "completed")
    assert view.pending == []


async def test_reject_and_a_value_outside_the_schema_are_refused_before_anything_is_sent() -> None:
    run = host(build_workflow())
    await paused(run)
    before = run.prompt.model_dump_json()
    heard = len(run.events)

    with pytest.raises(InvalidResolutionError, match="takes an answer to its question, not Reject"):
        await run.reject("Not today.")
    with pytest.raises(InvalidResolutionError, match="42 is not of type 'string'"):
        await run.resume(42)

    assert run.prompt.model_dump_json() == before
    assert len(run.events) == heard
    assert HEARD == []
    assert answers(run) == [("interrupted", None)]
    done = await run.resume("Gdańsk")
    assert done.status == "completed"
    assert HEARD == ["Gdańsk"]
    assert texts(run)[-1] == ("assistant", "Shipping order 42 from Gdańsk.")


async def test_an_unknown_or_mistyped_answer_fails_as_served_and_the_card_waits() -> None:
    run = host(build_workflow())
    request_id = await paused(run)

    unknown = await run.continue_with(
        [{"interruptId": "no-such-request", "status": "resolved", "payload": "Leeds"}]
    )
    mistyped = await run.continue_with(
        [{"interruptId": request_id, "status": "resolved", "payload": 42}]
    )

    assert (unknown.status, mistyped.status) == ("failed", "failed")
    assert unknown.error is not None
    assert mistyped.error is not None
    assert (unknown.error.name, mistyped.error.name) == (
        "WORKFLOW_RESUME_NOT_FOUND",
        "WORKFLOW_RESUME_INVALID_RESPONSE",
    )
    assert HEARD == []
    assert [p.id for p in run.pending] == [request_id]
    done = await run.resume("Leeds")
    assert done.status == "completed"
    assert HEARD == ["Leeds"]


async def test_saved_while_asking_and_loaded_with_a_new_workflow_and_file_storage_it_goes_on(
    tmp_path: Path,
) -> None:
    run = host(build_workflow(), checkpoint_storage=FileCheckpointStorage(tmp_path / "cp"))
    request_id = await paused(run)
    path = run.save(tmp_path / "ship.json")

    # A new kernel: a new workflow object and a new storage on the same folder.
    loaded = HostedRun.load(
        path, build_workflow(), checkpoint_storage=FileCheckpointStorage(tmp_path / "cp")
    )
    assert loaded.read_from(request_id) == "Agent Framework"
    assert [p.kind for p in loaded.pending] == ["generic"]
    done = await loaded.resume("Leeds")

    assert done.status == "completed", done.error
    assert HEARD == ["Leeds"]
    assert ASKED == [[ASK]]  # restored where it paused: the executor did not start again
    assert texts(loaded)[-1] == ("assistant", "Shipping order 42 from Leeds.")


async def test_a_saved_run_whose_checkpoint_stayed_in_the_old_kernel_fails_naming_the_fix(
    tmp_path: Path,
) -> None:
    run = host(build_workflow())  # its checkpoints are kept in memory
    request_id = await paused(run)

    loaded = HostedRun.load(run.save(tmp_path / "ship.json"), build_workflow())
    failed = await loaded.resume("Leeds")

    assert failed.status == "failed"
    assert failed.error is not None
    assert failed.error.name == "WORKFLOW_CHECKPOINT_NOT_FOUND"
    assert "checkpoint_storage=FileCheckpointStorage" in failed.error.message
    assert HEARD == []
    assert [p.id for p in loaded.pending] == [request_id]


async def test_the_thread_goes_on_with_a_new_run_of_the_workflow_after_its_output() -> None:
    run = host(build_workflow())
    await paused(run)
    await run.resume("Leeds")

    again = await run.run("Ship order 42 again.")

    assert again.status == "interrupted"
    # A new run of the workflow, started with the whole conversation.
    assert ASKED[-1] == [ASK, "Shipping order 42 from Leeds.", "Ship order 42 again."]
    await run.resume("York")
    assert HEARD == ["Leeds", "York"]
    assert texts(run)[-1] == ("assistant", "Shipping order 42 from York.")


async def test_stop_ends_the_workflows_run() -> None:
    run = host(build_workflow())
    task = asyncio.ensure_future(run.run("wait"))
    await until(lambda: ENDED == ["started"])

    stopped = await run.cancel("Enough.")

    assert stopped is not None
    assert (stopped.status, run.status) == ("cancelled", "cancelled")
    assert (await task).status == "cancelled"
    # The framework's own run was cancelled, its executor with it: it never asked.
    await until(lambda: ENDED == ["started", "cancelled"])
    assert run.interrupts == []
    assert HEARD == []
    # The workflow object is free again: the next message runs it anew.
    assert (await run.run(ASK)).status == "interrupted"
    assert (await run.resume("Leeds")).status == "completed"
    assert HEARD == ["Leeds"]


async def test_an_agent_executors_approval_is_a_card_without_edit_answered_there() -> None:
    from tests.agui.peers.agent_framework_hosted import RAN

    RAN.clear()
    approved, rejected = host(build_refunds_workflow()), host(build_refunds_workflow())
    await approved.run("Please refund order 42.")
    await rejected.run("Please refund order 42.")
    (interrupt,) = approved.interrupts
    assert (interrupt["reason"], interrupt["toolCallId"]) == ("tool_call", "call_refund_42")
    assert interrupt["metadata"]["agent_framework"]["source_executor_id"] == "refunds"
    (card,) = approved.view.pending
    assert (card["kind"], card["readFrom"], card["decisions"]) == (
        "tool-approval",
        "Agent Framework",
        ["approve", "reject"],  # the framework runs the call it stored: no Edit
    )
    assert RAN == []

    done = await approved.resume(True)
    assert done.status == "completed", done.error
    assert RAN == [("refund", {"order_id": 42, "amount": 30.0})]
    assert texts(approved)[-1] == ("assistant", 'Done: {"refunded": 30.0, "order_id": 42}')
    refused = await rejected.reject("Not this one.")
    assert refused.status == "completed", refused.error
    assert RAN == [("refund", {"order_id": 42, "amount": 30.0})]  # the rejected one never ran
    assert texts(rejected)[-1][1].startswith("Done: Error: Tool call invocation was rejected")
    RAN.clear()


def test_a_hosted_workflow_takes_no_message_responses_or_checkpoint_of_its_own() -> None:
    with pytest.raises(UsageError, match="checkpoint_id="):
        host(build_workflow(), checkpoint_id="x")


def test_an_agent_frameworks_agent_is_not_taken_for_a_workflow() -> None:
    from tests.agui.peers.agent_framework_hosted import build_agent

    with pytest.raises(UsageError, match="session="):  # the agent's own source refused it
        host(build_agent(), session=None)
    with pytest.raises(UsageError, match="responses="):
        host(build_workflow(), responses={})
