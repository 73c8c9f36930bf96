"""RemoteRun against langchain's human in the loop, served by ag-ui-langgraph: the agent
most LangGraph users pause (tests/agui/peers/langchain_hitl_app.py, `create_agent` with
`HumanInTheLoopMiddleware`, its model scripted).

One turn makes two gated calls, ``refund`` (every decision allowed) and ``notify``
(approve and reject only). The middleware pauses in its two ways, and every test runs
against both: ``batched``, one interrupt listing both calls, answered with
``{"decisions": [...]}`` in order; ``per_call``, one interrupt per call, answered with a
decision each, which go back keyed by id in ``forwardedProps.command.resume`` (the
adapter cannot read several resume entries). Either way each call is a card "read from
LangGraph's pause", answered with Approve, Edit arguments, Respond or Reject, and what
the agent then did is read from the agent itself: the tools that ran (`RAN`) and what its
model was sent (its last line repeats every tool message).

The peer packages are test pins of their own: without them these tests skip, except under
CI=true, where they must be installed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from tests.agui.canned import serving
from tests.helpers import require_peer
from tests.widget.recording import comms

from pausepoint import ToolCall
from pausepoint.agui import HostedRun, RemoteRun
from pausepoint.agui._host import source_of
from pausepoint.errors import InvalidResolutionError
from pausepoint.transcript import AssistantMessage

__all__ = ["comms"]

pytestmark = pytest.mark.filterwarnings(
    "ignore:`get_config_jsonschema` is deprecated:DeprecationWarning"
)

require_peer("ag_ui_langgraph", "the LangGraph peer (ag-ui-langgraph)")
require_peer("langchain", "langchain's create_agent and HumanInTheLoopMiddleware")

ASK = "Refund order 42 and tell Ada."
EDITED = {
    "type": "edit",
    "edited_action": {"name": "refund", "args": {"order_id": 42, "amount": 15.0}},
}
REFUSED = "User rejected the tool call for `notify` with reason: Ada asked not to be mailed"


class Recorded:
    """The ASGI `app`, keeping the JSON body of every request it is sent."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.bodies: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Callable[[], Any], send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def keep() -> Any:
            message = await receive()
            if message["type"] != "http.request":
                return message
            chunks.append(message.get("body", b""))
            if not message.get("more_body") and scope["method"] == "POST":
                self.bodies.append(json.loads(b"".join(chunks) or b"{}"))
            return message

        await self.app(scope, keep, send)


class Desk:
    """The agent in one of its pause `mode`s, reached `served` (over HTTP from its own
    server) or hosted in this kernel (`pausepoint.host`); `bodies` are the AG-UI requests
    it was sent, `run()` a new run of it and `load(path)` one saved."""

    def __init__(self, mode: str, place: str) -> None:
        from tests.agui.peers.langchain_hitl_app import RAN, build_agent, build_app

        RAN.clear()
        self.mode, self.place = mode, place
        self.bodies: list[dict[str, Any]] = []
        self.url = ""
        if place == "hosted":
            self.graph = build_agent(mode)
        else:
            self.app = Recorded(build_app(mode))
            self.bodies = self.app.bodies

    def run(self) -> RemoteRun:
        if self.place == "served":
            return RemoteRun(self.url)
        return HostedRun(self._source(), framework="LangGraph")

    def load(self, path: Path) -> RemoteRun:
        if self.place == "served":
            return RemoteRun.load(path)
        loaded = HostedRun.load(path, self.graph)
        loaded.source = self._source()
        return loaded

    def _source(self) -> Any:
        inner, _ = source_of(self.graph)

        def source(body: dict[str, Any]) -> Any:
            self.bodies.append(body)
            return inner(body)

        return source


@pytest.fixture(params=["served", "hosted"])
def place(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["batched", "per_call"])
def desk(request: pytest.FixtureRequest, place: str) -> Iterator[Desk]:
    """A fresh agent, served or hosted; what its tools did starts empty."""
    desk = Desk(request.param, place)
    if place == "hosted":
        yield desk
        return
    with serving(desk.app) as url:
        desk.url = url
        yield desk


def ran() -> list[tuple[str, dict[str, Any]]]:
    from tests.agui.peers.langchain_hitl_app import RAN

    return list(RAN)


def last_text(remote: RemoteRun) -> str:
    return [i.text for i in remote.prompt.items if isinstance(i, AssistantMessage)][-1]


def calls(remote: RemoteRun) -> dict[str, ToolCall]:
    return {i.name: i for i in remote.prompt.items if isinstance(i, ToolCall)}


async def paused(desk: Desk) -> tuple[RemoteRun, str, str]:
    """A run at the middleware's pause: the run and the cards' ids (refund, notify)."""
    remote = desk.run()
    result = await remote.run(ASK)
    assert result.status == "interrupted"
    by_name = {p.tool_call.name: p.id for p in remote.pending}
    return remote, by_name["refund"], by_name["notify"]


async def test_each_gated_call_is_a_card_read_from_langgraphs_pause(
    desk: Desk,
) -> None:
    mode = desk.mode
    remote, refund, notify = await paused(desk)

    assert [(p.tool_call.name, p.tool_call.input, p.kind) for p in remote.pending] == [
        ("refund", {"order_id": 42, "amount": 30.0}, "tool-approval"),
        ("notify", {"customer": "Ada"}, "tool-approval"),
    ]
    assert remote.foreign == []
    cards = {c["toolName"]: c for c in remote.view.pending}
    assert {c["readFrom"] for c in cards.values()} == {"LangGraph"}
    # The middleware's own words are the question.
    assert "Tool: refund" in cards["refund"]["message"]
    assert "Tool: notify" in cards["notify"]["message"]
    if mode == "batched":
        # One interrupt for the turn, a card per call, offering what its review allows.
        (interrupt,) = remote.interrupts
        assert (refund, notify) == (f"{interrupt['id']}#1", f"{interrupt['id']}#2")
        assert cards["refund"]["decisions"] == ["approve", "edit", "respond", "reject"]
        assert cards["notify"]["decisions"] == ["approve", "reject"]
    else:
        # The adapter drops the per-call response schema: all four are offered.
        assert [i["toolCallId"] for i in remote.interrupts] == ["call_refund", "call_notify"]
        assert cards["refund"]["decisions"] is None
    assert ran() == []


async def test_an_edit_and_a_reject_run_the_tool_once_edited_and_the_model_reads_the_refusal(
    desk: Desk,
) -> None:
    mode = desk.mode
    remote, refund, notify = await paused(desk)

    waiting = await remote.resume(
        {"approved": True, "editedArgs": {"order_id": 42, "amount": 15.0}}, interrupt=refund
    )
    assert waiting.status == "interrupted"  # nothing is sent until both have answers
    assert len(desk.bodies) == 1
    result = await remote.reject("Ada asked not to be mailed", interrupt=notify)

    assert result.status == "completed", result.error
    assert ran() == [("refund", {"order_id": 42, "amount": 15.0})]
    assert REFUSED in last_text(remote)
    assert "refunded 15.0 on order 42" in last_text(remote)
    assert calls(remote)["refund"].status == "succeeded"
    assert calls(remote)["notify"].status == "rejected"
    sent = desk.bodies[-1]
    if mode == "batched":
        (entry,) = sent["resume"]
        assert entry["payload"] == {
            "decisions": [
                EDITED,
                {"type": "reject", "message": "Ada asked not to be mailed"},
            ]
        }
    else:
        assert "resume" not in sent
        assert sorted(sent["forwardedProps"]["command"]["resume"].values(), key=str) == sorted(
            [
                EDITED,
                {"type": "reject", "message": "Ada asked not to be mailed"},
            ],
            key=str,
        )


async def test_respond_answers_for_the_tool_and_approve_runs_the_other(
    desk: Desk,
) -> None:
    remote, refund, notify = await paused(desk)

    await remote.respond("Refunds over 20 wait for Monday.", interrupt=refund)
    result = await remote.resume(True, interrupt=notify)

    assert result.status == "completed", result.error
    assert ran() == [("notify", {"customer": "Ada"})]
    record = calls(remote)["refund"]
    assert (record.status, record.result) == ("responded", "Refunds over 20 wait for Monday.")
    assert calls(remote)["notify"].status == "succeeded"
    assert "Refunds over 20 wait for Monday." in last_text(remote)
    assert "told Ada" in last_text(remote)


async def test_a_decision_the_review_does_not_allow_is_refused_and_nothing_is_recorded(
    place: str,
) -> None:
    desk = Desk("batched", place)
    with serving(desk.app) if place == "served" else nullcontext("") as url:
        desk.url = url
        remote, _, notify = await paused(desk)
        before = remote.prompt.model_dump_json()

        with pytest.raises(InvalidResolutionError, match="takes Approve or Reject, not Respond"):
            await remote.respond("Tell her tomorrow.", interrupt=notify)
        with pytest.raises(InvalidResolutionError, match="not Edit arguments"):
            await remote.resume(
                {"approved": True, "editedArgs": {"customer": "Bob"}}, interrupt=notify
            )

        assert remote.prompt.model_dump_json() == before
        assert len(desk.bodies) == 1
        assert [p.id for p in remote.pending][-1] == notify


async def test_a_run_saved_with_half_a_batch_answered_is_answered_after_loading(
    desk: Desk, tmp_path: Path
) -> None:
    remote, refund, notify = await paused(desk)
    await remote.resume(True, interrupt=refund)
    remote.save(tmp_path / "desk.json")

    loaded = desk.load(tmp_path / "desk.json")
    assert [p.id for p in loaded.pending] == [notify]
    assert loaded.read_from(notify) == "LangGraph"
    assert loaded.view.pending[0]["readFrom"] == "LangGraph"
    result = await loaded.reject("Ada asked not to be mailed", interrupt=notify)

    assert result.status == "completed", result.error
    assert ran() == [("refund", {"order_id": 42, "amount": 30.0})]
    assert REFUSED in last_text(loaded)
