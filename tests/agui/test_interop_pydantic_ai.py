"""RemoteRun against a peer we did not write: a Pydantic AI agent served by Pydantic AI's
own AG-UI adapter (``AGUIAdapter.dispatch_request``).

The agent (tests/agui/peers/pydantic_ai_app.py) streams "Refunding order 42." and a call
to ``refund``, a tool declared ``requires_approval=True``; the run ends deferred, and the
adapter tells it as AG-UI 1.0 does: RUN_FINISHED with an ``interrupt`` outcome whose
interrupt has id ``int-<toolCallId>``, reason ``tool_call`` and a response schema asking
for ``approved`` (``editedArgs`` and ``reason`` optional). It carries no pausepoint
binding, but RemoteRun reads its shape: an approval card answered here (`resume`,
`reject`, `respond`) in Pydantic AI's own words; AG-UI resume entries (`continue_with`)
answer it too. uvicorn serves the app on a free 127.0.0.1 port in a thread.

Every test runs against both of the app's routes: one where the client's ``messages``
are the whole conversation (so the resume only works because RemoteRun sends the
assistant message with its tool call back), one where the server keeps the history;
and against the same agent hosted in this kernel (`pausepoint.host`), no server between.

The peer package is a test pin of its own: without it these tests skip, except under
CI=true, where it must be installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.agui.canned import serving
from tests.helpers import require_peer, until
from tests.widget.recording import RecordingComm, comms

from pausepoint import ToolCall
from pausepoint.agui import HostedRun, RemoteRun, host
from pausepoint.errors import RunSuspendedError, UsageError
from pausepoint.transcript import AssistantMessage, UserMessage

__all__ = ["comms"]

require_peer("pydantic_ai", "the Pydantic AI peer (pydantic-ai-slim)")

ASK = "Please refund order 42."
ASKING = "Refunding order 42."
CALL_ID = "call_refund_42"
INTERRUPT_ID = "int-call_refund_42"
APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "reason": {"type": "string"},
    },
    "required": ["approved"],
}


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    from tests.agui.peers.pydantic_ai_app import build_app

    with serving(build_app()) as url:
        yield url.rstrip("/")


HOSTED = "hosted"


@pytest.fixture(params=["client-history", "server-history", HOSTED])
def agent_url(served: str, request: pytest.FixtureRequest) -> str:
    """Where the agent is: one of the server's routes, or HOSTED in this kernel."""
    from tests.agui.peers.pydantic_ai_app import PATH, STORED_PATH

    if request.param == HOSTED:
        return HOSTED
    return served + (PATH if request.param == "client-history" else STORED_PATH)


def reach(agent_url: str) -> RemoteRun:
    """A new run of the agent at `agent_url`: followed over HTTP, or hosted here."""
    from tests.agui.peers.pydantic_ai_app import build_agent

    return host(build_agent()) if agent_url == HOSTED else RemoteRun(agent_url)


def load(agent_url: str, path: Path) -> RemoteRun:
    from tests.agui.peers.pydantic_ai_app import build_agent

    if agent_url == HOSTED:
        return HostedRun.load(path, build_agent())
    return RemoteRun.load(path)


def texts(remote: RemoteRun) -> list[tuple[str, str]]:
    return [
        (item.type, item.text)
        for item in remote.prompt.items
        if isinstance(item, UserMessage | AssistantMessage)
    ]


def records(remote: RemoteRun) -> list[ToolCall]:
    return [item for item in remote.prompt.items if isinstance(item, ToolCall)]


def answer(interrupt_id: str = INTERRUPT_ID, **payload: Any) -> list[dict[str, Any]]:
    return [{"interruptId": interrupt_id, "status": "resolved", "payload": payload}]


def since_last_start(remote: RemoteRun) -> list[dict[str, Any]]:
    """The raw events of the latest request's stream."""
    starts = [i for i, event in enumerate(remote.events) if event["type"] == "RUN_STARTED"]
    return remote.events[starts[-1] :]


async def test_an_approval_is_an_interrupt_outcome_shown_read_only_and_continued_to_the_end(
    agent_url: str, comms: list[RecordingComm]
) -> None:
    remote = reach(agent_url)

    paused = await remote.run(ASK)

    assert (paused.status, remote.status) == ("interrupted", "interrupted")
    assert texts(remote) == [("user", ASK), ("assistant", ASKING)]
    (record,) = records(remote)
    assert (record.id, record.name, record.input) == (
        CALL_ID,
        "refund",
        {"order_id": 42, "amount": 30.0},
    )
    assert [r.status for r in records(remote)] == ["interrupted"]
    # What the adapter sent: the pause is RUN_FINISHED's interrupt outcome, nothing else.
    finished = remote.events[-1]
    assert finished["type"] == "RUN_FINISHED"
    assert finished["outcome"]["type"] == "interrupt"
    assert not [e for e in remote.events if e["type"] in ("RUN_ERROR", "TOOL_CALL_RESULT")]
    (interrupt,) = remote.interrupts
    assert interrupt == finished["outcome"]["interrupts"][0]
    assert interrupt["id"] == INTERRUPT_ID
    assert interrupt["reason"] == "tool_call"
    assert interrupt["toolCallId"] == CALL_ID
    assert interrupt["message"] == 'Approve refund({"order_id":42,"amount":30.0})?'
    assert interrupt["responseSchema"] == APPROVAL_SCHEMA
    # No pausepoint binding, but the shape of Pydantic AI's approval: a card answered
    # here, which says where it was read from.
    assert remote.foreign == []
    (pending,) = remote.pending
    assert (pending.id, pending.kind, pending.tool_call) == (INTERRUPT_ID, "tool-approval", record)
    assert remote.read_from(INTERRUPT_ID) == "Pydantic AI"
    (card,) = remote.view.pending
    assert (card["id"], card["kind"], card["canResolve"]) == (INTERRUPT_ID, "tool-approval", True)
    assert (card["readFrom"], card["toolCallId"], card["toolName"]) == (
        "Pydantic AI",
        CALL_ID,
        "refund",
    )

    done = await remote.resume(True)

    assert (done.status, remote.status) == ("completed", "completed")
    continued = since_last_start(remote)
    assert [e["type"] for e in continued if e["type"] != "CUSTOM"] == [
        "RUN_STARTED",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert continued[-1]["outcome"] == {"type": "success"}
    # The tool ran on the server once approved: its result settled the streamed call.
    assert [r.status for r in records(remote)] == ["succeeded"]
    assert record.result == {"refunded": 30.0, "order_id": 42}
    assert texts(remote) == [
        ("user", ASK),
        ("assistant", ASKING),
        ("assistant", 'Done: {"refunded":30.0,"order_id":42}'),
    ]
    assert remote.interrupts == []
    assert remote.view.pending == []
    # The history sent back holds the call the approval answers, as the server needs.
    assert [(m["role"], [c["id"] for c in m.get("toolCalls", [])]) for m in remote.messages] == [
        ("user", []),
        ("assistant", [CALL_ID]),
        ("tool", []),
        ("assistant", []),
    ]
    view = remote.view
    await until(lambda: view.status == "completed")
    await until(lambda: len(view.items) == len(remote.prompt.items))
    assert [item["type"] for item in view.items] == ["user", "assistant", "tool", "assistant"]
    assert view.items[2]["status"] == "succeeded"
    assert view.items[-1]["text"] == 'Done: {"refunded":30.0,"order_id":42}'


async def test_edited_arguments_are_what_the_tool_runs_with(agent_url: str) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)

    done = await remote.continue_with(
        answer(approved=True, editedArgs={"order_id": 42, "amount": 12.5})
    )

    assert done.status == "completed"
    (record,) = records(remote)
    assert record.result == {"refunded": 12.5, "order_id": 42}
    assert texts(remote)[-1] == ("assistant", 'Done: {"refunded":12.5,"order_id":42}')


async def test_a_denial_reaches_the_model_as_the_calls_result(agent_url: str) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)

    done = await remote.continue_with(answer(approved=False, reason="Not this one."))

    assert done.status == "completed"
    (record,) = records(remote)
    # The adapter sends the denial as the call's TOOL_CALL_RESULT; only a
    # REASONING_ENCRYPTED_VALUE on that result's message says it was denied.
    (result,) = [e for e in since_last_start(remote) if e["type"] == "TOOL_CALL_RESULT"]
    assert (result["toolCallId"], result["content"]) == (CALL_ID, "Not this one.")
    (marker,) = [e for e in remote.events if e["type"] == "REASONING_ENCRYPTED_VALUE"]
    assert marker["entityId"] == result["messageId"]
    assert marker["encryptedValue"] == '{"pydantic_ai": {"outcome": "denied"}}'
    assert record.result == "Not this one."
    assert texts(remote)[-1] == ("assistant", "Done: Not this one.")


async def test_a_cancelled_entry_is_a_denial_without_the_reason(agent_url: str) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)

    done = await remote.continue_with(
        [{"interruptId": INTERRUPT_ID, "status": "cancelled", "metadata": {"reason": "No."}}]
    )

    assert done.status == "completed"
    assert texts(remote)[-1] == ("assistant", "Done: Cancelled by user.")


async def test_an_answer_outside_the_schema_fails_and_a_corrected_one_goes_on(
    agent_url: str,
) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)

    refused = await remote.continue_with(answer(ok=True))

    assert (refused.status, remote.status) == ("failed", "failed")
    assert remote.events[-1]["type"] == "RUN_ERROR"
    assert refused.error is not None
    assert refused.error.message == (
        f"`ResumeEntry` payload for interrupt '{INTERRUPT_ID}' does not match the "
        "`responseSchema` advertised on the interrupt (approved: missing)."
    )
    (record,) = records(remote)
    assert record.result is None
    # Refused before it did anything, so the server still waits: the pause stays open
    # here, its card shown as it was, beside the refusal.
    assert [p.id for p in remote.pending] == [INTERRUPT_ID]
    assert [i["id"] for i in remote.interrupts] == [INTERRUPT_ID]
    view = remote.view
    assert [card["id"] for card in view.pending] == [INTERRUPT_ID]
    await until(lambda: view.status == "failed")
    assert view.error is not None
    assert "approved: missing" in view.error["message"]

    done = await remote.continue_with(answer(approved=True))

    assert done.status == "completed"
    assert record.result == {"refunded": 30.0, "order_id": 42}
    await until(lambda: view.pending == [])


async def test_an_unknown_interrupt_id_fails_the_request(agent_url: str) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)

    refused = await remote.continue_with(answer(CALL_ID, approved=True))

    assert refused.status == "failed"
    assert refused.error is not None
    assert "does not start with the expected 'int-' prefix" in refused.error.message


async def test_the_thread_goes_on_after_an_approval_and_pauses_anew(agent_url: str) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)
    await remote.continue_with(answer(approved=True))

    again = await remote.run("And order 43?")

    assert again.status == "interrupted"
    (second,) = remote.interrupts
    assert (second["id"], second["toolCallId"]) == ("int-call_refund_43", "call_refund_43")
    assert texts(remote) == [
        ("user", ASK),
        ("assistant", ASKING),
        ("assistant", 'Done: {"refunded":30.0,"order_id":42}'),
        ("user", "And order 43?"),
        ("assistant", "Refunding order 43."),
    ]

    done = await remote.continue_with(answer(second["id"], approved=True))

    assert done.status == "completed"
    assert [(r.id, r.status, r.result) for r in records(remote)] == [
        (CALL_ID, "succeeded", {"refunded": 30.0, "order_id": 42}),
        ("call_refund_43", "succeeded", {"refunded": 30.0, "order_id": 43}),
    ]


SHIP = "Please ship order 7."


async def test_a_deferred_call_waits_for_the_clients_result_and_the_run_goes_on(
    agent_url: str,
) -> None:
    """A tool that raised `CallDeferred`: RemoteRun declares AG-UI 1.0, so Pydantic AI
    names the call in `pendingToolCallIds`; it waits (not cancelled) until `complete`
    gives its result, which the model then reads."""
    remote = reach(agent_url)

    done = await remote.run(SHIP)

    assert remote.events[0]["type"] == "RUN_STARTED"
    assert remote.events[-1]["outcome"] == {
        "type": "success",
        "pendingToolCallIds": ["call_ship_7"],
    }
    assert done.status == "completed"
    (record,) = records(remote)
    assert (record.name, record.status, record.cancellation) == ("ship", "pending", None)
    assert remote.deferred == [record]
    # Nothing else goes before the result the server waits for; a wrong id says which.
    with pytest.raises(RunSuspendedError, match=r"results of ship \(call_ship_7\)"):
        await remote.run("Anything else?")
    with pytest.raises(UsageError, match="the deferred calls are 'call_ship_7'"):
        await remote.complete("call_ship_8", "sent")
    assert texts(remote) == [("user", SHIP), ("assistant", "Shipping order 7.")]

    done = await remote.complete("call_ship_7", {"tracking": "NX-7"})

    assert done.status == "completed"
    assert (record.status, record.result) == ("succeeded", {"tracking": "NX-7"})
    assert remote.deferred == []
    assert texts(remote)[-1] == ("assistant", 'Done: {"tracking":"NX-7"}')
    tools = [m for m in remote.messages if m["role"] == "tool"]
    assert [(m["toolCallId"], m["content"]) for m in tools] == [
        ("call_ship_7", '{"tracking": "NX-7"}')
    ]


async def test_a_deferred_call_saved_and_loaded_in_a_new_kernel_is_completed_there(
    agent_url: str, tmp_path: Path
) -> None:
    remote = reach(agent_url)
    await remote.run(SHIP)
    path = remote.save(tmp_path / "ship.json")

    loaded = load(agent_url, path)

    assert loaded.prompt == remote.prompt
    assert [c.id for c in loaded.deferred] == ["call_ship_7"]
    done = await loaded.complete("call_ship_7", "left the dock")
    assert done.status == "completed"
    assert texts(loaded)[-1] == ("assistant", "Done: left the dock")


async def test_a_decline_from_the_card_is_pydantic_ais_own_denial_with_the_reason(
    agent_url: str,
) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)

    done = await remote.reject("Order 42 was a gift.")

    assert done.status == "completed"
    (record,) = records(remote)
    assert record.status == "rejected"
    assert record.error is not None
    assert record.error.message == "Order 42 was a gift."
    # Sent as `approved: false` with the reason, so the model read the reason itself
    # (a `cancelled` entry would have reached it as "Cancelled by user.").
    assert texts(remote)[-1] == ("assistant", "Done: Order 42 was a gift.")


async def test_a_response_in_words_reaches_pydantic_ais_model_and_the_tool_never_runs(
    agent_url: str,
) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)

    done = await remote.respond("Only half: it arrived damaged.")

    assert done.status == "completed"
    (record,) = records(remote)
    assert (record.status, record.result) == ("responded", "Only half: it arrived damaged.")
    assert texts(remote)[-1] == ("assistant", "Done: Only half: it arrived damaged.")


async def test_edited_arguments_from_the_card_are_what_pydantic_ais_tool_runs_with(
    agent_url: str, tmp_path: Path
) -> None:
    remote = reach(agent_url)
    await remote.run(ASK)
    # Saved and loaded in a new kernel, the pause is still read from its shape.
    loaded = load(agent_url, remote.save(tmp_path / "refund.json"))
    assert loaded.read_from(INTERRUPT_ID) == "Pydantic AI"

    done = await loaded.resume({"approved": True, "editedArgs": {"order_id": 42, "amount": 12.5}})

    assert done.status == "completed"
    (record,) = records(loaded)
    assert record.result == {"refunded": 12.5, "order_id": 42}
    assert texts(loaded)[-1] == ("assistant", 'Done: {"refunded":12.5,"order_id":42}')
