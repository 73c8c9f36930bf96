"""RemoteRun against a server that sends scripted AG-UI events over real HTTP: what it
shows, what it sends back, and how each way a stream can end becomes a result."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pausepoint import UsageError
from pausepoint.agui import RemoteRun
from pausepoint.errors import (
    InterruptAlreadyResolvedError,
    NoPendingInterruptError,
    RunSuspendedError,
    UnknownInterruptError,
)
from pausepoint.transcript import AssistantMessage, ToolCall, UserMessage

from .canned import Canned, refused, serving, stream

START = {"type": "RUN_STARTED"}
DONE = {"type": "RUN_FINISHED"}


def text(message_id: str, *parts: str) -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": p} for p in parts),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def tool_call(call_id: str, name: str, args: str, parent: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": name,
            "parentMessageId": parent,
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": args[:5]},
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": args[5:]},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]


LANGGRAPH_STYLE = {
    "id": "9f1c",
    "reason": "refund_approval",
    "message": "Approve a refund of 30.0 for order 42?",
    "responseSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}}},
    "metadata": {"langgraph": {"raw": {"order_id": 42}}},
}


def test_a_streamed_answer_becomes_the_transcript_and_the_history_sent_back() -> None:
    server = Canned(stream(START, *text("m1", "Hello ", "there."), DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url, headers={"Authorization": "Bearer s3cret"})
        seen: list[str] = []
        remote.on("*", lambda e: seen.append(e.name))
        result = remote.run_sync("Hi")
        again = remote.run_sync("And again?")

    assert result.status == "completed"
    assert again.output == "Hello there."
    items = remote.prompt.items
    assert [type(i) for i in items] == [UserMessage, AssistantMessage] * 2
    assert seen[:5] == ["run_started", "text_delta", "text_delta", "message", "completed"]
    first, second = server.bodies
    assert first["threadId"] == second["threadId"] == remote.id
    assert "parentRunId" not in first
    assert second["parentRunId"] == first["runId"]  # the run it goes on from
    # A stateless server gets the whole conversation back.
    assert [(m["role"], m["content"]) for m in second["messages"]] == [
        ("user", "Hi"),
        ("assistant", "Hello there."),
        ("user", "And again?"),
    ]


def test_calls_and_their_results_become_tool_call_records() -> None:
    server = Canned(
        stream(
            START,
            *text("m1", "Looking."),
            *tool_call("c1", "lookup", '{"order_id": 42}', "m1"),
            {"type": "STEP_FINISHED", "stepName": "model"},
            {
                "type": "TOOL_CALL_RESULT",
                "messageId": "r1",
                "toolCallId": "c1",
                "content": '{"total": 30}',
            },
            *text("m2", "It was 30."),
            DONE,
        )
    )
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        result = remote.run_sync("How much was order 42?")

    assert result.status == "completed"
    message, record = remote.prompt.items[1], remote.prompt.items[2]
    assert isinstance(message, AssistantMessage)
    assert isinstance(record, ToolCall)
    assert message.text == "Looking."
    assert [(r.id, r.name, r.input) for r in message.tool_calls] == [
        ("c1", "lookup", {"order_id": 42})
    ]
    assert (record.status, record.result) == ("succeeded", {"total": 30})
    assert remote.prompt.output == "It was 30."
    assert [m["role"] for m in remote.messages] == ["user", "assistant", "tool", "assistant"]


def test_another_producers_interrupt_is_shown_not_answered_here_and_can_be_continued() -> None:
    paused = stream(
        START,
        *text("m1", "I need approval."),
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [LANGGRAPH_STYLE]}},
    )
    server = Canned(paused, stream(START, *text("m2", "Refunded."), DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        result = remote.run_sync("Refund order 42")
        assert result.status == "interrupted"
        assert remote.pending == ()
        assert [c.interrupt["id"] for c in remote.foreign] == ["9f1c"]
        assert remote.foreign[0].unbound_reason == "Paused elsewhere: it has no binding."
        assert remote.interrupts == [LANGGRAPH_STYLE]
        # The view shows it, read-only.
        cards = remote.view.pending
        assert [(c["id"], c["canResolve"]) for c in cards] == [("9f1c", False)]
        assert cards[0]["readOnlyReason"] == (
            "Paused elsewhere: it has no binding. Answer it from code with "
            "remote.continue_with([...]), in the form its server expects."
        )
        with pytest.raises(NoPendingInterruptError, match="continue_with"):
            remote.resume_sync(True)
        with pytest.raises(UnknownInterruptError, match="another producer"):
            remote.resume_sync(True, interrupt="9f1c")
        with pytest.raises(RunSuspendedError):
            remote.run_sync("Something else")
        assert len(server.bodies) == 1  # the refused calls sent nothing

        entry = {"interruptId": "9f1c", "status": "resolved", "payload": {"approved": True}}
        done = asyncio.run(remote.continue_with([entry]))

    assert done.status == "completed"
    assert done.output == "Refunded."
    assert server.bodies[1]["resume"] == [entry]
    assert server.bodies[1]["parentRunId"] == server.bodies[0]["runId"]
    assert remote.foreign == []
    assert remote.view.pending == []


def test_a_refused_request_and_a_cut_stream_end_as_failures_saying_why() -> None:
    server = Canned(
        refused(401, "missing token"),
        stream(START, *text("m1", "Half an ans")),  # no RUN_FINISHED
        stream(
            START, {"type": "RUN_ERROR", "message": "The model timed out.", "code": "model-timeout"}
        ),
    )
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        refusal = remote.run_sync("Hi")
        cut = remote.run_sync(None)
        error = remote.run_sync(None)

    assert refusal.status == "failed"
    assert refusal.error is not None
    assert refusal.error.name == "HTTP 401"
    assert "missing token" in refusal.error.message
    assert cut.status == "failed"
    assert cut.error is not None
    assert cut.error.name == "RemoteStreamEnded"
    assert remote.prompt.items[-1] == AssistantMessage(text="Half an ans")  # what arrived stays
    assert error.status == "failed"
    assert error.error is not None
    assert (error.error.name, error.error.message) == ("model-timeout", "The model timed out.")
    assert remote.status == "failed"


def test_stop_closes_the_stream_and_the_run_ends_cancelled() -> None:
    events = [START, *text("m1", *(f"word{i} " for i in range(200))), DONE]
    server = Canned(stream(*events), pause=0.02)

    async def go(url: str) -> Any:
        remote = RemoteRun(url)
        task = asyncio.ensure_future(remote.run("Write a lot"))
        while len(remote.events) < 5:  # noqa: ASYNC110 - the events arrive from the server
            await asyncio.sleep(0.01)
        stopped = await remote.cancel("Enough.")
        return remote, stopped, await task

    with serving(server.app()) as url:
        remote, stopped, result = asyncio.run(go(url))
        assert server.closed_early.wait(5)  # the server saw the client leave

    assert result.status == "cancelled"
    assert stopped is result
    assert result.error is not None
    assert result.error.message == "Enough."
    assert remote.status == "cancelled"
    assert len(remote.events) < len(events)


def test_a_bad_address_or_resume_entry_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(UsageError, match="http"):
        RemoteRun("ftp://example/agent")
    remote = RemoteRun("http://127.0.0.1:9/")
    with pytest.raises(UsageError, match="status"):
        asyncio.run(remote.continue_with([{"interruptId": "x", "status": "maybe"}]))
    with pytest.raises(UsageError, match="empty"):
        asyncio.run(remote.run("   "))
    assert remote.status == "idle"
    assert remote.prompt.items == []


def test_a_saved_remote_run_reopens_with_its_transcript_and_open_interrupts(tmp_path: Path) -> None:
    paused = stream(
        START,
        *text("m1", "I need approval."),
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [LANGGRAPH_STYLE]}},
    )
    server = Canned(paused, stream(START, *text("m2", "Refunded."), DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url, headers={"Authorization": "Bearer s3cret"})
        remote.run_sync("Refund order 42")
        saved = remote.save(tmp_path / "remote.json")
        assert "s3cret" not in saved.read_text(encoding="utf-8")

        reopened = RemoteRun.load(saved, headers={"Authorization": "Bearer s3cret"})
        assert reopened.status == "interrupted"
        assert reopened.prompt == remote.prompt
        assert reopened.interrupts == [LANGGRAPH_STYLE]
        assert reopened.messages == remote.messages
        entry = {"interruptId": "9f1c", "status": "resolved", "payload": {"approved": True}}
        done = asyncio.run(reopened.continue_with([entry]))

    assert done.output == "Refunded."
    assert server.bodies[1]["parentRunId"] == server.bodies[0]["runId"]
    assert server.bodies[1]["threadId"] == remote.id
    (tmp_path / "other.json").write_text(json.dumps({"format": "x"}), encoding="utf-8")
    with pytest.raises(UsageError, match="not a remote run"):
        RemoteRun.load(tmp_path / "other.json")


def test_a_saved_remote_run_is_checked_field_by_field_when_read(tmp_path: Path) -> None:
    server = Canned(stream(START, *text("m1", "Hello."), DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        remote.run_sync("Hi")
    good = json.loads(remote.save(tmp_path / "good.json").read_text(encoding="utf-8"))
    assert RemoteRun.load(tmp_path / "good.json").prompt == remote.prompt

    def broken(name: str, **changes: Any) -> Path:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({**good, **changes}), encoding="utf-8")
        return path

    with pytest.raises(UsageError, match="status"):
        RemoteRun.load(broken("status", status="finished-ish"))
    with pytest.raises(UsageError, match="messages"):
        RemoteRun.load(broken("messages", messages="not a list"))
    with pytest.raises(UsageError, match="password"):
        RemoteRun.load(broken("extra", password="hunter2"))
    items = [*good["prompt"]["items"], {"type": "tool", "id": "c9", "name": "x", "status": "odd"}]
    with pytest.raises(UsageError, match="prompt"):
        RemoteRun.load(broken("prompt", prompt={**good["prompt"], "items": items}))


def approval_then_done() -> tuple[dict[str, Any], Canned]:
    """An approval as pausepoint's server sends it (an AG-UI interrupt with its binding),
    and a server that pauses on it, then settles the call and answers."""
    from pausepoint import Agent, ModelResponse, ScriptedModel, action, call

    @action(needs_approval=True)
    def refund(order_id: int) -> str:
        """Refund an order."""
        return "ok"

    local = Agent(
        model=ScriptedModel([ModelResponse(tool_calls=[call("refund", order_id=42)]), "Done."]),
        actions=[refund],
    ).new_run("Refund order 42")
    local.run_sync()
    interrupt = local.agui_interrupts()[0]
    call_id = interrupt["toolCallId"]
    paused = stream(
        START,
        *tool_call(call_id, "refund", '{"order_id": 42}', "m1"),
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [interrupt]}},
    )
    settled = stream(
        START,
        {"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": call_id, "content": "ok"},
        *text("m2", "Refunded order 42."),
        DONE,
    )
    return interrupt, Canned(paused, settled)


def test_an_answer_given_twice_changes_nothing() -> None:
    interrupt, server = approval_then_done()
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        remote.run_sync("Refund order 42")
        assert [p.kind for p in remote.pending] == ["tool-approval"]
        # The edit form knows the arguments' schema from the approval's response schema.
        card = remote.view.pending[0]
        assert card["inputSchema"]["properties"]["order_id"]["type"] == "integer"
        done = remote.resume_sync({"approved": True, "editedArgs": {"order_id": 43}})
        with pytest.raises(InterruptAlreadyResolvedError):
            remote.resume_sync(False, interrupt=interrupt["id"])

    assert done.status == "completed"
    assert server.bodies[1]["resume"] == [
        {
            "interruptId": interrupt["id"],
            "status": "resolved",
            "payload": {"approved": True, "editedArgs": {"order_id": 43}},
        }
    ]
    assert len(server.bodies) == 2


def test_the_saved_snapshot_says_where_the_run_is_served_and_how_to_follow_it_again() -> None:
    from pausepoint.widget._snapshot import snapshot_html

    server = Canned(stream(START, *text("m1", "Hello."), DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        remote.run_sync("Hi")

    html = snapshot_html(remote)
    assert f"served from {url}" in html
    assert "RemoteRun.load(path)" in html
    assert "Hello." in html
    assert "Completed" in html


def test_a_call_the_server_never_settled_ends_cancelled_when_the_run_finishes(
    tmp_path: Path,
) -> None:
    from pausepoint.agui._mirror import UNSETTLED

    server = Canned(
        stream(
            START,
            *text("m1", "Please confirm."),
            *tool_call("c1", "confirm_changes", '{"steps": []}', "m1"),
            DONE,
        )
    )
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        result = remote.run_sync("Change it")

    assert result.status == "completed"
    (record,) = [item for item in remote.prompt.items if isinstance(item, ToolCall)]
    assert record.status == "cancelled"
    assert record.cancellation is not None
    assert (record.cancellation.by, record.cancellation.reason) == ("server", UNSETTLED)
    # What the loop accepted saves and loads back unchanged.
    assert RemoteRun.load(remote.save(tmp_path / "r.json")).prompt == remote.prompt


def test_an_answer_only_in_the_messages_snapshot_joins_the_transcript_once() -> None:
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "u1", "role": "user", "content": "Hi"},
            {"id": "m1", "role": "assistant", "content": "Streamed."},
            {"id": "m2", "role": "assistant", "content": "Written by a node, never streamed."},
        ],
    }
    server = Canned(stream(START, *text("m1", "Streamed."), snapshot, DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        result = remote.run_sync("Hi")

    texts = [i.text for i in remote.prompt.items if isinstance(i, AssistantMessage)]
    assert texts == ["Streamed.", "Written by a node, never streamed."]
    assert result.output == "Written by a node, never streamed."
    assert remote.messages == snapshot["messages"]
