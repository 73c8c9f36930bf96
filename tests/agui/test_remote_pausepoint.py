"""RemoteRun against pausepoint's own server (`serve(agent)`): its pauses carry bindings,
so they are the usual cards, answered here and checked on both sides."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pausepoint import (
    ActionInterrupt,
    Agent,
    ModelResponse,
    ScriptedModel,
    SQLiteStore,
    ToolCall,
    action,
    call,
)
from pausepoint.agui import RemoteRun, serve
from pausepoint.errors import InvalidResolutionError, ServerStartError, UsageError

SPEED = {
    "type": "object",
    "properties": {"speed": {"enum": ["slow", "fast"]}},
    "required": ["speed"],
}
ran: list[tuple[str, Any]] = []


@action(needs_approval=True)
def refund(order_id: int, amount: float) -> dict[str, float]:
    """Refund an order."""
    ran.append(("refund", {"order_id": order_id, "amount": amount}))
    return {"refunded": amount}


@action
def ship(ctx: Any, order_id: int) -> str:
    """Ship an order at the speed a person picks."""
    if ctx.resumption is None:
        raise ActionInterrupt("How fast?", data={"order_id": order_id}, response_schema=SPEED)
    ran.append(("ship", ctx.resumption.data))
    return f"shipped {order_id} {ctx.resumption.data['speed']}"


def agent(store: SQLiteStore | None = None) -> Agent:
    turns = [
        ModelResponse(
            text="Refunding and shipping.",
            tool_calls=[call("refund", order_id=42, amount=30.0), call("ship", order_id=7)],
        ),
        "Refunded 42 and shipped 7.",
    ]
    return Agent(model=ScriptedModel(turns), actions=[refund, ship], store=store)


@pytest.mark.parametrize("kept", ["stateless", "stored"])
def test_its_cards_are_answered_here_and_the_run_goes_on_there(kept: str, tmp_path: Path) -> None:
    ran.clear()
    store = SQLiteStore(tmp_path / "runs.db") if kept == "stored" else None
    with serve(agent(store)) as server:
        remote = RemoteRun(server.url)
        paused = remote.run_sync("Refund order 42 and ship order 7")
        assert paused.status == "interrupted"
        approval, form = remote.pending
        assert (approval.kind, form.kind) == ("tool-approval", "generic")
        assert form.response_schema == SPEED
        assert form.data == {"order_id": 7}
        assert remote.foreign == []
        cards = remote.view.pending
        assert [c["canResolve"] for c in cards] == [True, True]

        # Checked here before anything is sent: a wrong value or wrong edited arguments.
        with pytest.raises(InvalidResolutionError):
            remote.resume_sync({"speed": "warp"}, interrupt=form.id)
        assert form.interrupt.resolution is None
        with pytest.raises(InvalidResolutionError):
            remote.resume_sync(
                {"approved": True, "editedArgs": {"order_id": "x"}}, interrupt=approval.id
            )

        half = remote.resume_sync(
            {"approved": True, "editedArgs": {"order_id": 42, "amount": 25.0}},
            interrupt=approval.id,
        )
        assert half.status == "interrupted"  # nothing sent until both are answered
        assert ran == []
        done = remote.resume_sync({"speed": "fast"}, interrupt=form.id)

    assert done.status == "completed"
    assert done.output == "Refunded 42 and shipped 7."
    assert ran == [("refund", {"order_id": 42, "amount": 25.0}), ("ship", {"speed": "fast"})]
    records = [item for item in remote.prompt.items if isinstance(item, ToolCall)]
    assert [(r.status, r.result) for r in records] == [
        ("succeeded", {"refunded": 25.0}),
        ("succeeded", "shipped 7 fast"),
    ]
    if store is not None:  # the server's own record of the run says the same
        stored = agent(store).load(remote.id)
        assert stored.status == "completed"
        assert stored.prompt.output == "Refunded 42 and shipped 7."


def test_a_decline_reaches_the_servers_model_with_its_reason() -> None:
    ran.clear()
    with serve(agent()) as server:
        remote = RemoteRun(server.url)
        remote.run_sync("Refund order 42 and ship order 7")
        approval, form = remote.pending
        remote.reject_sync("Order 42 was a gift.", interrupt=approval.id)
        done = remote.resume_sync({"speed": "slow"}, interrupt=form.id)

    assert done.status == "completed"
    assert ran == [("ship", {"speed": "slow"})]
    refund_record = next(i for i in remote.prompt.items if isinstance(i, ToolCall))
    assert refund_record.status == "rejected"
    assert refund_record.error is not None
    assert refund_record.error.message == "Order 42 was a gift."


async def test_a_response_in_words_reaches_the_servers_model_instead_of_the_action() -> None:
    """Respond on a remote card (or `respond()`) sends the words: the server's model reads
    them as the call's outcome, and the action does not run."""
    ran.clear()
    with serve(agent()) as server:
        remote = RemoteRun(server.url)
        await remote.run("Refund order 42 and ship order 7")
        approval, form = remote.pending
        with pytest.raises(UsageError, match="needs words"):
            await remote.respond("  ", interrupt=approval.id)
        with pytest.raises(UsageError, match="answers a tool approval"):
            await remote.respond("fast", interrupt=form.id)
        assert approval.interrupt.resolution is None  # refused calls recorded nothing
        await remote.respond("Only half: it arrived damaged.", interrupt=approval.id)
        done = await remote.resume({"speed": "fast"}, interrupt=form.id)

    assert done.status == "completed"
    assert ran == [("ship", {"speed": "fast"})]  # the refund did not run
    refund_record = next(i for i in remote.prompt.items if isinstance(i, ToolCall))
    assert refund_record.status == "responded"
    assert refund_record.result == "Only half: it arrived damaged."
    # what the server's model was given for the call is the person's words, not a result
    tool_message = next(m for m in remote.messages if m.get("toolCallId") == refund_record.id)
    assert "Only half: it arrived damaged." in tool_message["content"]


def test_serve_takes_an_agent_or_an_asgi_app_and_says_what_else_it_needs() -> None:
    with pytest.raises(UsageError, match="Agent or an ASGI app"):
        serve(42)
    with pytest.raises(UsageError, match="app\\(\\) options"):
        serve(lambda scope, receive, send: None, cors_origins=["*"])
    with serve(agent()) as server:
        assert server.running
        assert server.url.startswith("http://127.0.0.1:")
        taken = int(server.url.rsplit(":", 1)[1].strip("/"))
        with pytest.raises(ServerStartError, match=f"127.0.0.1:{taken}"):
            serve(agent(), port=taken)
    assert not server.running


def test_a_waiting_remote_run_saved_and_reopened_is_answered_from_the_copy(tmp_path: Path) -> None:
    ran.clear()
    with serve(agent()) as server:
        remote = RemoteRun(server.url)
        remote.run_sync("Refund order 42 and ship order 7")
        approval, form = remote.pending
        remote.resume_sync(True, interrupt=approval.id)  # recorded here, not sent yet
        reopened = RemoteRun.load(remote.save(tmp_path / "waiting.json"))
        assert [p.id for p in reopened.pending] == [form.id]
        assert reopened.view.pending[0]["responseSchema"] == SPEED
        done = reopened.resume_sync({"speed": "fast"})

    assert done.status == "completed"
    assert ran == [("refund", {"order_id": 42, "amount": 30.0}), ("ship", {"speed": "fast"})]


def test_stop_here_stops_the_run_on_the_server(tmp_path: Path) -> None:
    from tests.helpers import until

    @action
    async def step(n: int) -> int:
        """One slow step."""
        await asyncio.sleep(0.02)
        return n

    turns = [call("step", n=n) for n in range(500)] + ["Done."]
    store = SQLiteStore(tmp_path / "runs.db")
    slow = Agent(model=ScriptedModel(turns), actions=[step], store=store)

    async def go(url: str) -> Any:
        remote = RemoteRun(url)
        task = asyncio.ensure_future(remote.run("Take your time"))
        await until(lambda: sum(e["type"] == "TOOL_CALL_RESULT" for e in remote.events) >= 3)
        result = await remote.cancel("Enough.")
        await task
        return remote, result

    with serve(slow) as server:
        remote, result = asyncio.run(go(server.url))
        assert result is not None
        assert result.status == "cancelled"
        # The server saw the client leave and stopped the run it was executing.
        asyncio.run(until(lambda: store.summary(remote.id).status == "cancelled"))
    assert store.summary(remote.id).status == "cancelled"
