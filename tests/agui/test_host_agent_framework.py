"""A Microsoft Agent Framework agent hosted in this kernel (`pausepoint.host`): the
framework's own streaming run, its `approval_mode="always_require"` tools and its
`AgentSession`, on agent-framework-core alone, with a scripted chat client
(tests/agui/peers/agent_framework_hosted.py). Its AG-UI server cannot be installed beside
pausepoint (test_interop_agent_framework.py serves it from an interpreter of its own).

A call that needs approval ends the framework's run with a `function_approval_request`;
here it is told as agent-framework-ag-ui tells it, so it is the same approval card read
from the framework's pause, answered in the framework's own words:
`to_function_approval_response(approved)`, edited arguments replacing the call the
session stored. What the tools really ran is in the peer's `RAN`; what the model was sent
is in its client's `calls`.
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

from agent_framework import Agent, Message, tool  # noqa: E402
from tests.agui.peers.agent_framework_hosted import AMOUNT, RAN, build_agent  # noqa: E402

ASK = "Please refund order 42."
ASKING = "Refunding order 42."
CALL_ID = "call_refund_42"
DONE = 'Done: {"refunded": 30.0, "order_id": 42}'
DENIED = "Error: Tool call invocation was rejected by user."
ARGS = {"order_id": 42, "amount": AMOUNT}


@pytest.fixture(autouse=True)
def ran() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    RAN.clear()
    yield RAN
    RAN.clear()


def texts(run: HostedRun) -> list[tuple[str, str]]:
    return [
        (item.type, item.text)
        for item in run.prompt.items
        if isinstance(item, UserMessage | AssistantMessage)
    ]


def records(run: HostedRun) -> list[ToolCall]:
    return [item for item in run.prompt.items if isinstance(item, ToolCall)]


def model_calls(agent: Agent) -> list[list[Message]]:
    return agent.client.calls  # type: ignore[attr-defined, no-any-return]


def contents(messages: list[Message]) -> list[tuple[str, str, Any]]:
    """Each content the model was sent: its role, type and text or result."""
    return [
        (m.role, c.type, c.text if c.type == "text" else getattr(c, "result", None))
        for m in messages
        for c in m.contents
    ]


def since_last_start(run: HostedRun) -> list[dict[str, Any]]:
    starts = [i for i, event in enumerate(run.events) if event["type"] == "RUN_STARTED"]
    return run.events[starts[-1] :]


async def paused(agent: Agent | None = None) -> tuple[HostedRun, str]:
    run = host(agent or build_agent())
    result = await run.run(ASK)
    assert result.status == "interrupted"
    (interrupt,) = run.interrupts
    return run, str(interrupt["id"])


async def test_an_approval_is_a_card_read_from_the_frameworks_pause_and_approved_runs_once(
    ran: list[tuple[str, dict[str, Any]]], comms: list[RecordingComm]
) -> None:
    run = host(build_agent())

    result = await run.run(ASK)

    assert (result.status, run.status) == ("interrupted", "interrupted")
    assert texts(run) == [("user", ASK), ("assistant", ASKING)]
    (record,) = records(run)
    assert (record.id, record.name, record.input, record.status) == (
        CALL_ID,
        "refund",
        ARGS,
        "interrupted",
    )
    assert ran == []  # the framework asked instead of running it
    (interrupt,) = run.interrupts
    # As agent-framework-ag-ui tells it: the call's occurrence id, the framework's words.
    assert str(interrupt["id"]).startswith("af-call-")
    assert (interrupt["reason"], interrupt["toolCallId"], interrupt["message"]) == (
        "tool_call",
        CALL_ID,
        "Approve running refund?",
    )
    schema = interrupt["responseSchema"]
    assert schema["anyOf"] == [{"required": ["approved"]}, {"required": ["accepted"]}]
    assert schema["properties"]["editedArgs"]["required"] == ["order_id", "amount"]
    framework = interrupt["metadata"]["agent_framework"]
    assert framework["type"] == "function_approval_request"
    assert framework["function_call"] == {"call_id": CALL_ID, "name": "refund", "arguments": ARGS}
    assert run.foreign == []
    assert run.read_from(interrupt["id"]) == "Agent Framework"
    (card,) = run.view.pending
    assert (card["kind"], card["canResolve"], card["readFrom"]) == (
        "tool-approval",
        True,
        "Agent Framework",
    )
    assert (card["toolName"], card["args"]) == ("refund", ARGS)
    assert card["decisions"] == ["approve", "edit", "reject"]
    assert run.view.meta["hosted"] == "Agent Framework"
    # A model turn is a step: its call ended with it, before the framework asked.
    told = [e["type"] for e in run.events]
    assert told.index("TOOL_CALL_END") < told.index("STEP_FINISHED")

    done = await run.resume(True)

    assert (done.status, run.status) == ("completed", "completed")
    assert ran == [("refund", ARGS)]
    assert (record.status, record.result) == ("succeeded", {"refunded": 30.0, "order_id": 42})
    assert texts(run) == [("user", ASK), ("assistant", ASKING), ("assistant", DONE)]
    assert run.interrupts == []
    assert run.view.pending == []
    view = run.view
    await until(lambda: view.status == "completed")
    assert [item["type"] for item in view.items] == ["user", "assistant", "tool", "assistant"]


async def test_edited_arguments_from_the_card_are_what_the_tool_runs_with_once(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run, _ = await paused(agent)

    done = await run.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 12.5}})

    assert done.status == "completed"
    assert ran == [("refund", {"order_id": 42, "amount": 12.5})]
    (record,) = records(run)
    assert (record.status, record.result) == ("succeeded", {"refunded": 12.5, "order_id": 42})
    assert contents(model_calls(agent)[-1])[-1][2] == '{"refunded": 12.5, "order_id": 42}'
    assert texts(run)[-1] == ("assistant", 'Done: {"refunded": 12.5, "order_id": 42}')


async def test_edited_arguments_missing_one_are_refused_as_the_framework_does_and_the_card_waits(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    run, interrupt_id = await paused()

    refused = await run.resume({"approved": True, "editedArgs": {"amount": 12.5}})

    assert refused.status == "failed"
    assert refused.error is not None
    assert refused.error.name == "APPROVAL_RESUME_INVALID_RESPONSE"
    assert ran == []
    assert [p.id for p in run.pending] == [interrupt_id]
    done = await run.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 5.0}})
    assert done.status == "completed"
    assert ran == [("refund", {"order_id": 42, "amount": 5.0})]


async def test_a_reject_is_the_frameworks_denial_the_model_reads_and_the_tool_never_runs(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run, _ = await paused(agent)

    done = await run.reject("Order 42 was a gift.")

    assert done.status == "completed"
    assert ran == []
    (record,) = records(run)
    assert record.status == "rejected"
    assert record.error is not None
    assert record.error.message == "Order 42 was a gift."
    # The framework's denial carries no words: its model read its own refusal.
    assert contents(model_calls(agent)[-1])[-1] == ("tool", "function_result", DENIED)
    assert texts(run)[-1] == ("assistant", f"Done: {DENIED}")
    (denial,) = [m for m in run.messages if m["role"] == "tool"]
    assert (denial["toolCallId"], denial["content"]) == (CALL_ID, DENIED)
    assert run.view.pending == []


async def test_a_response_in_words_is_refused_as_the_framework_takes_none_and_nothing_is_recorded(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run, interrupt_id = await paused(agent)
    before = run.prompt.model_dump_json()
    heard, sent = len(run.events), len(model_calls(agent))

    with pytest.raises(
        InvalidResolutionError,
        match="Agent Framework's pause takes Approve or Edit arguments or Reject, not Respond",
    ):
        await run.respond("Only half: it arrived damaged.")

    assert run.prompt.model_dump_json() == before
    assert (len(run.events), len(model_calls(agent))) == (heard, sent)
    assert [p.id for p in run.pending] == [interrupt_id]
    assert ran == []
    done = await run.resume(True)
    assert done.status == "completed"
    assert ran == [("refund", ARGS)]


async def test_an_answer_to_an_unknown_or_malformed_interrupt_fails_and_the_card_waits(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    run, interrupt_id = await paused()

    unknown = await run.continue_with(
        [{"interruptId": "af-call-unknown", "status": "resolved", "payload": {"approved": True}}]
    )
    malformed = await run.continue_with(
        [{"interruptId": interrupt_id, "status": "resolved", "payload": {"ok": True}}]
    )

    assert (unknown.status, malformed.status) == ("failed", "failed")
    assert unknown.error is not None
    assert malformed.error is not None
    assert (unknown.error.name, malformed.error.name) == (
        "APPROVAL_RESUME_NOT_FOUND",
        "APPROVAL_RESUME_INVALID",
    )
    assert ran == []
    done = await run.resume(True)
    assert done.status == "completed"
    assert ran == [("refund", ARGS)]


async def test_two_calls_waiting_in_one_turn_are_two_cards_sent_together_once_both_are_answered(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    run = host(build_agent())
    await run.run("Refund orders 1 and 2.")
    first, second = (str(i["id"]) for i in run.interrupts)
    assert [i["toolCallId"] for i in run.interrupts] == ["call_refund_1", "call_refund_2"]

    waiting = await run.resume(True, interrupt=first)
    assert waiting.status == "interrupted"  # one card still waits: nothing was sent yet
    assert ran == []
    done = await run.reject("Not this one.", interrupt=second)

    assert done.status == "completed"
    assert ran == [("refund", {"order_id": 1, "amount": AMOUNT})]
    assert [(r.id, r.status) for r in records(run)] == [
        ("call_refund_1", "succeeded"),
        ("call_refund_2", "rejected"),
    ]


async def test_saved_while_waiting_and_loaded_with_a_new_agent_the_frameworks_run_goes_on(
    ran: list[tuple[str, dict[str, Any]]], tmp_path: Path
) -> None:
    run, interrupt_id = await paused()
    path = run.save(tmp_path / "refund.json")

    # A new kernel: a new agent object, its session rebuilt by AgentSession.from_dict.
    agent = build_agent()
    loaded = HostedRun.load(path, agent)
    assert loaded.read_from(interrupt_id) == "Agent Framework"
    assert loaded.view.pending[0]["decisions"] == ["approve", "edit", "reject"]
    done = await loaded.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 1.0}})

    assert done.status == "completed"
    assert ran == [("refund", {"order_id": 42, "amount": 1.0})]
    assert records(loaded)[0].status == "succeeded"
    # The new agent was given the conversation the first one had.
    assert contents(model_calls(agent)[-1])[-4:] == [
        ("user", "text", ASK),
        ("assistant", "text", ASKING),
        ("assistant", "function_call", None),
        ("tool", "function_result", '{"refunded": 1.0, "order_id": 42}'),
    ]


async def test_the_thread_goes_on_with_the_conversation_the_framework_had(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run, _ = await paused(agent)
    await run.resume(True)

    done = await run.run("Now ship order 7.")

    assert done.status == "completed"
    assert ran == [("refund", ARGS), ("ship", {"order_id": 7})]  # no approval: no card
    assert [r.status for r in records(run)] == ["succeeded", "succeeded"]
    # The framework's session held the first turn; the new message came after it.
    sent = contents(model_calls(agent)[-2])
    assert ("user", "text", ASK) in sent
    assert ("tool", "function_result", '{"refunded": 30.0, "order_id": 42}') in sent
    assert sent.index(("user", "text", ASK)) < sent.index(("assistant", "text", DONE))
    assert sent[-1] == ("user", "text", "Now ship order 7.")
    assert texts(run)[-1] == ("assistant", "Done: order 7 left the dock")


async def test_a_model_that_fails_ends_the_run_failed_with_the_frameworks_error() -> None:
    run = host(build_agent())

    failed = await run.run("Please fail.")

    assert (failed.status, run.status) == ("failed", "failed")
    assert failed.error is not None
    assert "the model is out of order" in failed.error.message
    assert run.events[-1]["type"] == "RUN_ERROR"
    # It can be told again: the next message runs.
    assert (await run.run(ASK)).status == "interrupted"


async def test_stop_ends_the_frameworks_run_and_keeps_what_it_said() -> None:
    gate = asyncio.Event()
    ended: list[str] = []

    @tool
    async def wait() -> str:
        """Wait until told."""
        ended.append("started")
        try:
            await gate.wait()
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise
        return "waited"

    run = host(build_agent(wait))
    task = asyncio.ensure_future(run.run("wait"))
    # The model's turn ended before its tool ran: the call is shown running meanwhile.
    await until(lambda: any(r.status == "running" for r in records(run)))
    await until(lambda: ended == ["started"])

    stopped = await run.cancel("Enough.")

    assert stopped is not None
    assert (stopped.status, run.status) == ("cancelled", "cancelled")
    assert (await task).status == "cancelled"
    assert texts(run) == [("user", "wait"), ("assistant", "Waiting.")]
    assert [r.status for r in records(run)] == ["cancelled"]
    # The framework's own run was cancelled, its tool with it.
    await until(lambda: ended == ["started", "cancelled"])


def test_a_hosted_framework_agent_takes_no_messages_or_session_of_its_own() -> None:
    with pytest.raises(UsageError, match="session="):
        host(build_agent(), session=None)
