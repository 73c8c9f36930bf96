"""A LangGraph node that asks the Agent Inbox way (`interrupt([HumanInterrupt])`, answered
with `[HumanResponse]`) before it sends an email: the question names no call, so a pause
record holds it, drawn as a tool approval "read from LangGraph's pause" of the action it
names (`send_email`, its args the input) and answered with clicks: Approve is `accept`,
Edit arguments `edit`, Respond `response` and Reject `ignore`. What the node did is read
from the graph itself (the emails it sent, its state). Every test but the last runs
against the graph served by ag-ui-langgraph and hosted in this kernel (`pausepoint.host`).

ag-ui-langgraph 0.0.47 drops the request's `config` (the `allow_*` flags) before it sends
the interrupt, so these cards offer what the action implies; the last test is a server
that keeps the flags, whose card offers only what they allow.

The peer packages are test pins of their own: without them these tests skip, except under
CI=true, where they must be installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.agui.canned import Canned, serving, stream
from tests.helpers import require_peer, until
from tests.widget.recording import RecordingComm, comms, recording_of, response_to

from pausepoint import ToolCall
from pausepoint.agui import HostedRun, RemoteRun, host
from pausepoint.transcript import AssistantMessage
from pausepoint.transcript.decisions import respond_answer

__all__ = ["comms"]

pytestmark = pytest.mark.filterwarnings(
    "ignore:`get_config_jsonschema` is deprecated:DeprecationWarning"
)

require_peer("ag_ui_langgraph", "the LangGraph peer (ag-ui-langgraph)")

ASK = "Tell Ada her refund went through."
EDITED = {"to": "ada@example.com", "subject": "Refunded", "body": "Order 42: 30.00 back."}


class Graph:
    """The graph, `served` or hosted: `run()` a new run, `load(path)` a saved one; the
    emails it sent are in `outbox`."""

    def __init__(self, place: str) -> None:
        from tests.agui.peers.langgraph_inbox import build_graph

        self.place, self.url = place, ""
        self.outbox: list[dict[str, Any]] = []
        self.graph = build_graph(self.outbox)

    def run(self) -> RemoteRun:
        return RemoteRun(self.url) if self.place == "served" else host(self.graph)

    def load(self, path: Path) -> RemoteRun:
        if self.place == "served":
            return RemoteRun.load(path)
        return HostedRun.load(path, self.graph)


@pytest.fixture(params=["served", "hosted"])
def graph(request: pytest.FixtureRequest) -> Iterator[Graph]:
    from tests.agui.peers.langgraph_inbox import build_app

    graph = Graph(request.param)
    if graph.place == "hosted":
        yield graph
        return
    with serving(build_app(graph.outbox)) as url:
        graph.url = url
        yield graph


def said(run: RemoteRun) -> list[str]:
    return [i.text for i in run.prompt.items if isinstance(i, AssistantMessage) and i.text]


def records(run: RemoteRun) -> list[ToolCall]:
    return [i for i in run.prompt.items if isinstance(i, ToolCall)]


async def asked(graph: Graph) -> tuple[RemoteRun, str]:
    """A run at the node's question, and its card's id."""
    run = graph.run()
    paused = await run.run(ASK)
    assert paused.status == "interrupted", paused.error
    (card,) = run.view.pending
    return run, card["id"]


async def click(run: RemoteRun, kind: str, interrupt: str, **fields: Any) -> None:
    """The card's button, as the front end sends it: it must be taken; then the run
    goes on to its end."""
    request = {"type": kind, "requestId": f"{kind}-1", "interrupt": interrupt, **fields}
    reply = await response_to(recording_of(run), request)
    assert reply["ok"] is True, reply
    # The reply comes once the answer is recorded; the continuation may not have begun.
    await until(lambda: run.status != "running" and interrupt not in {p.id for p in run.pending})
    await run.wait()


async def test_the_inbox_question_is_a_tool_approval_of_its_action_and_approve_sends_once(
    graph: Graph, comms: list[RecordingComm]
) -> None:
    from tests.agui.peers.langgraph_inbox import DESCRIPTION, DRAFTED, EMAIL

    run, interrupt = await asked(graph)

    (wire,) = run.interrupts
    assert "toolCallId" not in wire  # the node's question names no call
    (request,) = wire["metadata"]["langgraph"]["raw"]
    assert request["action_request"] == {"action": "send_email", "args": EMAIL}
    assert "config" not in request  # dropped by ag-ui-langgraph before it is sent
    (record,) = records(run)
    assert (record.id, record.name, record.input, record.status) == (
        f"pause-{wire['id']}",
        "send_email",
        EMAIL,
        "interrupted",
    )
    (card,) = run.view.pending
    assert (card["kind"], card["readFrom"], card["toolName"], card["args"]) == (
        "tool-approval",
        "LangGraph",
        "send_email",
        EMAIL,
    )
    assert card["message"] == DESCRIPTION
    assert card["decisions"] == ["approve", "edit", "respond", "reject"]
    assert run.foreign == []
    assert graph.outbox == []
    # The pause record is this client's: the history sent back holds only the agent's turns.
    assert [m["role"] for m in run.messages] == ["user", "assistant"]

    await click(run, "resume", interrupt, data=True)

    assert run.status == "completed", run.result
    assert graph.outbox == [EMAIL]
    assert said(run) == [DRAFTED, "Sent 'Your refund' to ada@example.com."]
    (record,) = records(run)
    assert (record.status, record.result) == ("succeeded", None)
    assert run.view.pending == []


async def test_edited_arguments_send_the_email_once_with_them(
    graph: Graph, comms: list[RecordingComm]
) -> None:
    run, interrupt = await asked(graph)

    await click(run, "resume", interrupt, data={"approved": True, "editedArgs": EDITED})

    assert run.status == "completed", run.result
    assert graph.outbox == [EDITED]
    assert said(run)[-1] == "Sent 'Refunded' to ada@example.com."
    (record,) = records(run)
    assert (record.status, record.effective_input) == ("succeeded", EDITED)


async def test_a_response_sends_nothing_and_the_node_reads_the_words(
    graph: Graph, comms: list[RecordingComm]
) -> None:
    words = "Wait until the refund clears."
    run, interrupt = await asked(graph)

    await click(run, "resume", interrupt, data=respond_answer(words))

    assert run.status == "completed", run.result
    assert graph.outbox == []
    assert run.state["note"] == words
    assert said(run)[-1] == f"Not sent: {words}"
    (record,) = records(run)
    assert (record.status, record.result) == ("responded", words)


async def test_reject_is_ignore_and_sends_nothing(graph: Graph, comms: list[RecordingComm]) -> None:
    run, interrupt = await asked(graph)

    await click(run, "reject", interrupt, reason="Ada already knows.")

    assert run.status == "completed", run.result
    assert graph.outbox == []
    assert said(run)[-1] == "Not sent."
    assert "note" not in run.state
    # `ignore` carries no words: the reason is kept here only.
    (record,) = records(run)
    assert record.status == "rejected"
    assert record.error is not None
    assert record.error.message == "Ada already knows."


async def test_a_run_saved_at_the_inbox_question_is_answered_after_loading(
    graph: Graph, tmp_path: Path
) -> None:
    from tests.agui.peers.langgraph_inbox import EMAIL

    run = graph.run()
    await run.run(ASK)
    saved = run.save(tmp_path / "inbox.json")

    loaded = graph.load(saved)

    assert loaded.prompt == run.prompt
    (card,) = loaded.view.pending
    assert (card["kind"], card["readFrom"], card["toolName"], card["args"]) == (
        "tool-approval",
        "LangGraph",
        "send_email",
        EMAIL,
    )
    done = await loaded.resume({"approved": True, "editedArgs": EDITED})
    assert done.status == "completed", done.error
    assert graph.outbox == [EDITED]


async def test_a_server_that_keeps_the_inbox_flags_offers_only_what_they_allow(
    comms: list[RecordingComm],
) -> None:
    from tests.agui.peers.langgraph_inbox import DESCRIPTION, EMAIL

    request = {
        "action_request": {"action": "send_email", "args": EMAIL},
        "config": {
            "allow_accept": True,
            "allow_edit": False,
            "allow_respond": False,
            "allow_ignore": True,
        },
        "description": DESCRIPTION,
    }
    inbox = {
        "id": "20835ed7",
        "reason": "langgraph:interrupt",
        "metadata": {"langgraph": {"raw": [request], "ns": None}},
    }
    asking = stream(
        {"type": "RUN_STARTED"},
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [inbox]}},
    )
    server = Canned(asking, stream({"type": "RUN_STARTED"}, {"type": "RUN_FINISHED"}))
    with serving(server.app()) as url:
        run = RemoteRun(url)
        await run.run(ASK)
        (card,) = run.view.pending
        assert card["decisions"] == ["approve", "reject"]
        comm = recording_of(run)
        before = run.prompt.model_dump_json()

        forbidden = ({"approved": True, "editedArgs": EDITED}, respond_answer("Not yet."))
        for n, data in enumerate(forbidden):
            reply = await response_to(
                comm,
                {"type": "resume", "requestId": f"r{n}", "interrupt": card["id"], "data": data},
            )
            assert reply["ok"] is False
            assert reply["error"]["name"] == "InvalidResolutionError"
            assert "takes Approve or Reject" in reply["error"]["message"]
        assert run.prompt.model_dump_json() == before
        assert len(server.bodies) == 1

        await click(run, "reject", card["id"])

        assert server.bodies[-1]["resume"] == [
            {
                "interruptId": "20835ed7",
                "status": "resolved",
                "payload": [{"type": "ignore", "args": None}],
            }
        ]
