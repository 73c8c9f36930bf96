"""LangGraph nodes that ask a person with a plain `interrupt()`, no tool call: each
question is a card "read from LangGraph's pause", held by a pause record (a call this
client makes up, named `interrupt`, never sent back in the history), and answered with
the value the node reads. The graph (tests/agui/peers/langgraph_questions.py) asks twice:
a form from a schema, then a question in words. Every test runs against the graph served
by ag-ui-langgraph and hosted in this kernel (`pausepoint.host`).

The peer packages are test pins of their own: without them these tests skip, except under
CI=true, where they must be installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.agui.canned import serving
from tests.helpers import require_peer
from tests.widget.recording import RecordingComm, comms

from pausepoint import ToolCall
from pausepoint.agui import HostedRun, RemoteRun, host
from pausepoint.errors import InvalidResolutionError
from pausepoint.transcript import AssistantMessage

__all__ = ["comms"]

pytestmark = pytest.mark.filterwarnings(
    "ignore:`get_config_jsonschema` is deprecated:DeprecationWarning"
)

require_peer("ag_ui_langgraph", "the LangGraph peer (ag-ui-langgraph)")

ASK = "Please refund order 42."


class Graph:
    """The graph, `served` or hosted: `run()` a new run, `load(path)` a saved one."""

    def __init__(self, place: str, url: str = "") -> None:
        from tests.agui.peers.langgraph_questions import build_graph

        self.place, self.url = place, url
        self.graph = build_graph()

    def run(self) -> RemoteRun:
        return RemoteRun(self.url) if self.place == "served" else host(self.graph)

    def load(self, path: Path) -> RemoteRun:
        if self.place == "served":
            return RemoteRun.load(path)
        return HostedRun.load(path, self.graph)


@pytest.fixture(params=["served", "hosted"])
def graph(request: pytest.FixtureRequest) -> Iterator[Graph]:
    from tests.agui.peers.langgraph_questions import build_app

    if request.param == "hosted":
        yield Graph("hosted")
        return
    with serving(build_app()) as url:
        yield Graph("served", url)


def said(run: RemoteRun) -> list[str]:
    return [i.text for i in run.prompt.items if isinstance(i, AssistantMessage) and i.text]


def pauses(run: RemoteRun) -> list[ToolCall]:
    return [i for i in run.prompt.items if isinstance(i, ToolCall)]


async def test_a_nodes_question_is_a_card_on_a_pause_record_answered_with_its_value(
    graph: Graph, comms: list[RecordingComm]
) -> None:
    from tests.agui.peers.langgraph_questions import DECISION, NAME_QUESTION, QUESTION, READING

    run = graph.run()
    paused = await run.run(ASK)

    assert paused.status == "interrupted"
    assert said(run) == [READING]
    (interrupt,) = run.interrupts
    assert "toolCallId" not in interrupt  # the node's question names no call
    (record,) = pauses(run)
    assert (record.id, record.name, record.status) == (
        f"pause-{interrupt['id']}",
        "interrupt",
        "interrupted",
    )
    (card,) = run.view.pending
    assert (card["kind"], card["readFrom"], card["toolName"]) == (
        "generic",
        "LangGraph",
        "interrupt",
    )
    assert (card["message"], card["responseSchema"], card["decisions"]) == (QUESTION, DECISION, [])
    assert run.foreign == []
    # The pause record is this client's: the history sent back holds only the agent's turns.
    assert [m["role"] for m in run.messages] == ["user", "assistant"]
    assert all("toolCalls" not in m for m in run.messages)

    before = run.prompt.model_dump_json()
    with pytest.raises(InvalidResolutionError, match="takes an answer to its question"):
        await run.reject("No.")
    with pytest.raises(InvalidResolutionError, match=r"\$\.approved: Field required"):
        await run.resume({"amount": 5})
    assert run.prompt.model_dump_json() == before

    asked = await run.resume({"approved": True, "amount": 25.0})

    # The graph went on to its next question: the first pause ended with its answer.
    assert asked.status == "interrupted"
    first, second = pauses(run)
    assert (first.status, first.result) == ("succeeded", {"approved": True, "amount": 25.0})
    assert second.status == "interrupted"
    (card,) = run.view.pending
    assert (card["message"], card["responseSchema"]) == (NAME_QUESTION, {"type": "string"})

    done = await run.resume("Ada Lovelace")

    assert done.status == "completed", done.error
    assert said(run) == [READING, "Refunded 25.00 to Ada Lovelace."]
    assert [(p.status, p.result) for p in pauses(run)] == [
        ("succeeded", {"approved": True, "amount": 25.0}),
        ("succeeded", "Ada Lovelace"),
    ]
    assert run.state["decision"] == {"approved": True, "amount": 25.0}
    assert [m["role"] for m in run.messages] == ["user", "assistant", "assistant"]


async def test_a_run_saved_at_a_nodes_question_is_answered_after_loading(
    graph: Graph, tmp_path: Path
) -> None:
    run = graph.run()
    await run.run(ASK)
    await run.resume({"approved": False})
    saved = run.save(tmp_path / "questions.json")

    loaded = graph.load(saved)

    assert loaded.prompt == run.prompt
    (card,) = loaded.view.pending
    assert (card["readFrom"], card["toolName"]) == ("LangGraph", "interrupt")
    done = await loaded.resume("Grace Hopper")
    assert done.status == "completed", done.error
    assert said(loaded)[-1] == "Refunded 0.00 to Grace Hopper."
