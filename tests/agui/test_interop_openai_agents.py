"""An OpenAI Agents SDK agent hosted in this kernel (`pausepoint.host`): the SDK's own
`Runner.run_streamed`, its `needs_approval` tools and `RunState`, on the SDK's own test
model (tests/agui/peers/openai_agents_app.py). The SDK serves no AG-UI, so hosting is the
only way to reach it.

A call that needs approval stops the SDK's run with the call in `result.interruptions`;
here it is an approval card read from the SDK's pause, whose answers are the SDK's own:
`RunState.approve(item)`, or `RunState.reject(item, rejection_message=...)` for Reject and
Respond (the model reads the words in the call's place). What the tools really ran is in
the peer's `RAN`; what the model was sent is in its `ScriptedModel.calls`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import require_peer, until

from pausepoint import ToolCall
from pausepoint.agui import HostedRun, host
from pausepoint.errors import InvalidResolutionError, UsageError
from pausepoint.transcript import AssistantMessage, UserMessage

require_peer("agents", "the OpenAI Agents SDK (openai-agents)")

from agents import Agent, RunConfig  # noqa: E402
from tests.agui.peers import openai_agents_app  # noqa: E402
from tests.agui.peers.openai_agents_app import AMOUNT, RAN, build_agent  # noqa: E402

ASK = "Please refund order 42."
CALL_ID = "call_refund_42"
INTERRUPT_ID = "oa-call_refund_42"
QUIET = RunConfig(tracing_disabled=True)


@pytest.fixture(autouse=True)
def ran() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    RAN.clear()
    yield RAN
    RAN.clear()


def reach(agent: Agent[Any] | None = None) -> HostedRun:
    return host(agent or build_agent(), run_config=QUIET)


def texts(run: HostedRun) -> list[tuple[str, str]]:
    return [
        (item.type, item.text)
        for item in run.prompt.items
        if isinstance(item, UserMessage | AssistantMessage)
    ]


def records(run: HostedRun) -> list[ToolCall]:
    return [item for item in run.prompt.items if isinstance(item, ToolCall)]


def model_inputs(agent: Agent[Any]) -> list[Any]:
    return [call.input for call in agent.model.calls]  # type: ignore[union-attr]


async def test_a_call_that_needs_approval_is_a_card_read_from_the_sdk_and_approved_runs_once(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    run = reach()

    paused = await run.run(ASK)

    assert (paused.status, run.status) == ("interrupted", "interrupted")
    assert texts(run) == [("user", ASK), ("assistant", "Refunding order 42.")]
    (record,) = records(run)
    assert (record.id, record.name, record.input, record.status) == (
        CALL_ID,
        "refund",
        {"order_id": 42, "amount": AMOUNT},
        "interrupted",
    )
    assert ran == []  # the SDK stopped before the tool
    (interrupt,) = run.interrupts
    assert (interrupt["id"], interrupt["reason"], interrupt["toolCallId"]) == (
        INTERRUPT_ID,
        "tool_call",
        CALL_ID,
    )
    assert run.foreign == []
    assert run.read_from(INTERRUPT_ID) == "OpenAI Agents"
    (card,) = run.view.pending
    assert (card["kind"], card["canResolve"], card["readFrom"]) == (
        "tool-approval",
        True,
        "OpenAI Agents",
    )
    assert (card["toolName"], card["args"]) == ("refund", {"order_id": 42, "amount": AMOUNT})
    # The SDK runs a tool with its model's arguments: no Edit arguments on this card.
    assert card["decisions"] == ["approve", "respond", "reject"]
    assert run.view.meta["hosted"] == "OpenAI Agents"  # "OpenAI Agents agent in this kernel"

    done = await run.resume(True)

    assert (done.status, run.status) == ("completed", "completed")
    assert ran == [("refund", {"order_id": 42, "amount": AMOUNT})]
    assert record.status == "succeeded"
    assert record.result == {"refunded": AMOUNT, "order_id": 42}
    assert texts(run)[-1][0] == "assistant"
    assert "refunded" in texts(run)[-1][1]
    assert run.interrupts == []
    assert run.view.pending == []
    view = run.view
    await until(lambda: view.status == "completed")
    assert [item["type"] for item in view.items] == ["user", "assistant", "tool", "assistant"]


async def test_a_reject_with_a_reason_is_the_sdks_rejection_the_model_reads(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run = reach(agent)
    await run.run(ASK)

    done = await run.reject("Order 42 was a gift.")

    assert done.status == "completed"
    assert ran == []
    (record,) = records(run)
    assert record.status == "rejected"
    assert record.error is not None
    assert record.error.message == "Order 42 was a gift."
    # RunState.reject(rejection_message=...): the reason is the call's output for the model.
    last_sent = model_inputs(agent)[-1][-1]
    assert last_sent == {
        "call_id": CALL_ID,
        "output": "Order 42 was a gift.",
        "type": "function_call_output",
    }
    assert texts(run)[-1] == ("assistant", "Done: Order 42 was a gift.")


async def test_a_response_in_words_reaches_the_model_and_the_tool_never_runs(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run = reach(agent)
    await run.run(ASK)

    done = await run.respond("Only half: it arrived damaged.")

    assert done.status == "completed"
    assert ran == []
    (record,) = records(run)
    assert (record.status, record.result) == ("responded", "Only half: it arrived damaged.")
    assert model_inputs(agent)[-1][-1]["output"] == "Only half: it arrived damaged."
    assert texts(run)[-1] == ("assistant", "Done: Only half: it arrived damaged.")


async def test_edited_arguments_are_refused_before_anything_is_sent_or_recorded(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run = reach(agent)
    await run.run(ASK)
    before = run.prompt.model_dump_json()
    sent = len(agent.model.calls)  # type: ignore[union-attr]

    with pytest.raises(InvalidResolutionError, match="takes Approve or Respond or Reject"):
        await run.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 1.0}})

    assert run.prompt.model_dump_json() == before
    assert len(agent.model.calls) == sent  # type: ignore[union-attr]
    assert [p.id for p in run.pending] == [INTERRUPT_ID]
    done = await run.resume(True)
    assert done.status == "completed"
    assert ran == [("refund", {"order_id": 42, "amount": AMOUNT})]


async def test_two_calls_waiting_in_one_turn_are_two_cards_sent_together_once_both_are_answered(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run = reach(agent)
    await run.run("Refund orders 1 and 2.")
    assert [p.id for p in run.pending] == ["oa-call_refund_1", "oa-call_refund_2"]

    first = await run.resume(True, interrupt="oa-call_refund_1")
    assert first.status == "interrupted"  # one card still waits: nothing was sent yet
    assert ran == []
    done = await run.reject("Not this one.", interrupt="oa-call_refund_2")

    assert done.status == "completed"
    assert ran == [("refund", {"order_id": 1, "amount": AMOUNT})]
    assert [(r.id, r.status) for r in records(run)] == [
        ("call_refund_1", "succeeded"),
        ("call_refund_2", "rejected"),
    ]


async def test_saved_while_waiting_and_loaded_with_a_new_agent_the_sdks_run_goes_on(
    ran: list[tuple[str, dict[str, Any]]], tmp_path: Path
) -> None:
    run = reach()
    await run.run(ASK)
    path = run.save(tmp_path / "refund.json")

    # A new kernel: a new agent object, the paused run rebuilt from RunState.to_json().
    loaded = HostedRun.load(path, build_agent(), run_config=QUIET)
    assert loaded.read_from(INTERRUPT_ID) == "OpenAI Agents"
    assert [p.id for p in loaded.pending] == [INTERRUPT_ID]
    done = await loaded.resume(True)

    assert done.status == "completed"
    assert ran == [("refund", {"order_id": 42, "amount": AMOUNT})]
    assert records(loaded)[0].status == "succeeded"


async def test_the_thread_goes_on_with_the_conversation_the_sdk_had(
    ran: list[tuple[str, dict[str, Any]]],
) -> None:
    agent = build_agent()
    run = reach(agent)
    await run.run(ASK)
    await run.resume(True)

    done = await run.run("Now ship order 7.")

    assert done.status == "completed"
    assert ran[-1] == ("ship", {"order_id": 7})  # no approval needed: no card
    assert [r.status for r in records(run)] == ["succeeded", "succeeded"]
    # The SDK was given its own input list of the first turn, then the new message.
    sent = model_inputs(agent)[-2]
    assert sent[0] == {"content": ASK, "role": "user"}
    assert any(i.get("type") == "function_call_output" for i in sent if isinstance(i, dict))
    assert sent[-1] == {"role": "user", "content": "Now ship order 7."}
    assert texts(run)[-1] == ("assistant", "Done: order 7 left the dock")


async def test_a_model_that_fails_ends_the_run_failed_with_the_sdks_error() -> None:
    run = reach()

    failed = await run.run("Please fail.")

    assert (failed.status, run.status) == ("failed", "failed")
    assert failed.error is not None
    assert "the model is out of order" in failed.error.message
    assert run.events[-1]["type"] == "RUN_ERROR"
    # It can be told again: the next message runs.
    assert (await run.run(ASK)).status == "interrupted"


async def test_stop_ends_the_sdks_run_and_keeps_what_it_said() -> None:
    gate = asyncio.Event()
    ended: list[str] = []

    @openai_agents_app.function_tool
    async def wait() -> str:
        """Wait until told."""
        ended.append("started")
        try:
            await gate.wait()
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise
        return "waited"

    from agents.testing import ScriptedModel, assistant_message, function_call

    model = ScriptedModel(
        [[assistant_message("Waiting."), function_call("wait", {}, call_id="call_wait")]]
    )
    run = reach(Agent(name="Waiter", tools=[wait], model=model))
    task = asyncio.ensure_future(run.run("wait"))
    await until(lambda: any(r.status == "running" for r in records(run)))
    await until(lambda: ended == ["started"])

    stopped = await run.cancel("Enough.")

    assert stopped is not None
    assert (stopped.status, run.status) == ("cancelled", "cancelled")
    assert (await task).status == "cancelled"
    assert texts(run) == [("user", "wait"), ("assistant", "Waiting.")]
    assert [r.status for r in records(run)] == ["cancelled"]
    # The SDK's own run was cancelled (RunResultStreaming.cancel), its tool with it.
    await until(lambda: ended == ["started", "cancelled"])


def test_a_hosted_sdk_agent_takes_no_input_of_its_own() -> None:
    with pytest.raises(UsageError, match="input"):
        host(build_agent(), input="hello")
