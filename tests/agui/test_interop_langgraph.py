"""RemoteRun against a peer we did not write: a LangGraph graph served by ag-ui-langgraph.

The graph (tests/agui/peers/langgraph_app.py) streams some text and a ``refund`` tool
call, then its ``approve`` node stops on LangGraph's ``interrupt()``; the value it is
resumed with decides what is refunded, and the closing text repeats it. uvicorn serves it
on a free 127.0.0.1 port in a thread.

LangGraph's interrupts carry no pausepoint binding; this one asks a question with a
schema, so RemoteRun reads it as a form on the refund call ("read from LangGraph's pause"),
answered with the value the node reads; AG-UI resume entries (`continue_with`) answer it
too. The form is tested served and hosted in this kernel (`pausepoint.host`). The
package's default way of telling a pause (a ``CUSTOM on_interrupt`` event, no outcome on
RUN_FINISHED, no interrupt id) is answered through ``forwardedProps.command.resume``
(`send`).

The peer packages are test pins of their own: without them these tests skip, except under
CI=true, where they must be installed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.agui.canned import serving
from tests.helpers import require_peer
from tests.widget.recording import RecordingComm, comms

from pausepoint import ToolCall
from pausepoint.agui import RemoteRun, host
from pausepoint.errors import InvalidResolutionError
from pausepoint.transcript import AssistantMessage, UserMessage

__all__ = ["comms"]

pytestmark = pytest.mark.filterwarnings(
    "ignore:`get_config_jsonschema` is deprecated:DeprecationWarning"
)

require_peer("ag_ui_langgraph", "the LangGraph peer (ag-ui-langgraph)")

ASK = "Please refund order 42."
ASKING = "Order 42 qualifies for a refund; I'll ask for approval first."
QUESTION = "Approve a refund of 30.0 for order 42?"
DECISION_SCHEMA = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "amount": {"type": "number", "minimum": 0},
    },
    "required": ["approved"],
}


@pytest.fixture(scope="module")
def graph_url() -> Iterator[str]:
    """The graph, telling a pause as AG-UI 1.0 does (and by its own CUSTOM event too)."""
    from tests.agui.peers.langgraph_app import build_app

    with serving(build_app(interrupt_outcome=True)) as url:
        yield url


@pytest.fixture(scope="module")
def legacy_graph_url() -> Iterator[str]:
    """The graph as the package serves it by default: pauses told by CUSTOM on_interrupt."""
    from tests.agui.peers.langgraph_app import build_app

    with serving(build_app(interrupt_outcome=False)) as url:
        yield url


def texts(remote: RemoteRun) -> list[tuple[str, str]]:
    return [
        (item.type, item.text)
        for item in remote.prompt.items
        if isinstance(item, UserMessage | AssistantMessage)
    ]


def calls(remote: RemoteRun) -> list[tuple[str, dict[str, Any]]]:
    return [(item.name, item.input) for item in remote.prompt.items if isinstance(item, ToolCall)]


def approval(interrupt_id: str, **payload: Any) -> list[dict[str, Any]]:
    return [{"interruptId": interrupt_id, "status": "resolved", "payload": payload}]


@pytest.fixture(params=["served", "hosted"])
def desk(request: pytest.FixtureRequest, graph_url: str) -> Callable[[], RemoteRun]:
    """New runs of the graph: followed from its server, or hosted in this kernel."""
    from tests.agui.peers.langgraph_app import build_graph

    if request.param == "served":
        return lambda: RemoteRun(graph_url)
    graph = build_graph()
    return lambda: host(graph)


async def test_a_langgraph_question_is_a_form_read_from_its_pause_answered_with_its_value(
    desk: Callable[[], RemoteRun], comms: list[RecordingComm]
) -> None:
    remote = desk()

    paused = await remote.run(ASK)

    assert (paused.status, remote.status) == ("interrupted", "interrupted")
    assert texts(remote) == [("user", ASK), ("assistant", ASKING)]
    assert calls(remote) == [("refund", {"order_id": 42, "amount": 30.0})]
    (interrupt,) = remote.interrupts
    assert interrupt["reason"] == "refund_approval"
    assert interrupt["toolCallId"] == "call_refund_42"
    assert interrupt["metadata"]["langgraph"]["raw"]["amount"] == 30.0
    # No pausepoint binding, but a shape: a question on the refund call, with its schema.
    assert remote.foreign == []
    (pending,) = remote.pending
    assert (pending.id, pending.kind, pending.tool_call.id) == (
        interrupt["id"],
        "generic",
        "call_refund_42",
    )
    (card,) = remote.view.pending
    assert (card["kind"], card["readFrom"], card["canResolve"]) == ("generic", "LangGraph", True)
    assert card["message"] == QUESTION
    assert card["responseSchema"] == DECISION_SCHEMA
    assert card["decisions"] == []  # a plain interrupt() cannot be refused: no Reject
    before = remote.prompt.model_dump_json()
    with pytest.raises(InvalidResolutionError, match="takes an answer to its question"):
        await remote.reject("No.")
    with pytest.raises(InvalidResolutionError, match="'yes' is not of type 'boolean'"):
        await remote.resume({"approved": "yes"})
    assert remote.prompt.model_dump_json() == before

    done = await remote.resume({"approved": True, "amount": 25.0})

    assert (done.status, remote.status) == ("completed", "completed")
    assert remote.interrupts == []
    assert remote.view.pending == []
    # The answer reached the node: it refunded the amount given, and the model said so.
    assert remote.state["decision"] == {"approved": True, "amount": 25.0}
    assert remote.state["refunded"] == 25.0
    assert texts(remote) == [
        ("user", ASK),
        ("assistant", ASKING),
        ("assistant", "Done: refunded 25.0 on order 42."),
    ]
    # Its result came only in the messages snapshot: the call is settled from there.
    (record,) = [item for item in remote.prompt.items if isinstance(item, ToolCall)]
    assert (record.status, record.result) == ("succeeded", "refunded 25.0 on order 42.")
    assert [(m["role"], m.get("content")) for m in remote.messages] == [
        ("user", ASK),
        ("assistant", ASKING),
        ("tool", "refunded 25.0 on order 42."),
        ("assistant", "Done: refunded 25.0 on order 42."),
    ]


async def test_resume_entries_of_its_own_continue_the_graph_too(graph_url: str) -> None:
    remote = RemoteRun(graph_url)
    await remote.run(ASK)
    (interrupt,) = remote.interrupts
    on_interrupt = [e for e in remote.events if e["type"] == "CUSTOM"]
    assert [e["name"] for e in on_interrupt] == ["on_interrupt"]
    assert json.loads(on_interrupt[0]["value"])["message"] == QUESTION

    done = await remote.continue_with(approval(interrupt["id"], approved=True, amount=25.0))

    assert done.status == "completed"
    assert remote.state["refunded"] == 25.0
    # The entry answered the card's question: recorded on it, as the card's answer is.
    (record,) = [item for item in remote.prompt.items if isinstance(item, ToolCall)]
    (entry,) = record.interrupts
    assert entry.resolution is not None
    assert entry.resolution.data == {"approved": True, "amount": 25.0}


async def test_a_cancelled_entry_reaches_the_graph_as_a_declined_refund(graph_url: str) -> None:
    remote = RemoteRun(graph_url)
    await remote.run(ASK)
    (interrupt,) = remote.interrupts

    done = await remote.continue_with([{"interruptId": interrupt["id"], "status": "cancelled"}])

    assert done.status == "completed"
    assert remote.state["refunded"] == 0.0
    assert remote.state["decision"]["__agui_cancelled__"] is True
    assert texts(remote)[-1] == ("assistant", "Done: the refund on order 42 was declined.")


async def test_the_thread_goes_on_after_a_resumed_pause_and_pauses_anew(graph_url: str) -> None:
    remote = RemoteRun(graph_url)
    await remote.run(ASK)
    (first,) = remote.interrupts
    await remote.continue_with(approval(first["id"], approved=True))

    again = await remote.run("And order 43?")

    assert again.status == "interrupted"
    (second,) = remote.interrupts
    assert second["id"] != first["id"]
    assert second["message"] == QUESTION
    assert texts(remote) == [
        ("user", ASK),
        ("assistant", ASKING),
        ("assistant", "Done: refunded 30.0 on order 42."),
        ("user", "And order 43?"),
        ("assistant", ASKING),
    ]


async def test_the_packages_default_pause_is_shown_and_resumes_through_forwarded_props(
    legacy_graph_url: str,
) -> None:
    remote = RemoteRun(legacy_graph_url)
    paused = await remote.run(ASK)

    # The pause is told only by CUSTOM on_interrupt: the value as a JSON string, no id,
    # and a RUN_FINISHED without an outcome. It is a pause all the same, shown read-only.
    (told,) = [e for e in remote.events if e["type"] == "CUSTOM"]
    assert told["name"] == "on_interrupt"
    assert json.loads(told["value"])["responseSchema"] == DECISION_SCHEMA
    finished = [e for e in remote.events if e["type"] == "RUN_FINISHED"]
    assert [e.get("outcome") for e in finished] == [None]
    assert (paused.status, remote.status) == ("interrupted", "interrupted")
    (interrupt,) = remote.interrupts
    assert interrupt["id"] == "on_interrupt-0"  # none on the wire: named here
    assert interrupt["message"] == QUESTION
    assert interrupt["responseSchema"] == DECISION_SCHEMA
    assert interrupt["toolCallId"] == "call_refund_42"
    (card,) = remote.view.pending
    assert card["canResolve"] is False

    done = await remote.send(
        forwarded_props={"command": {"resume": {"approved": True, "amount": 12.5}}}
    )

    assert done.status == "completed"
    assert remote.state["refunded"] == 12.5
    assert texts(remote)[-1] == ("assistant", "Done: refunded 12.5 on order 42.")
