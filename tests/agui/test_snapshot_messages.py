"""MESSAGES_SNAPSHOT's messages: built once per item and place, never stale."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pausepoint import Agent, ModelResponse, ModelTurn, ScriptedModel, action, call
from pausepoint.agui import snapshot_messages


@action(needs_approval=True)
def refund(order_id: int) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


def agent() -> Agent:
    return Agent(
        model=ScriptedModel(
            lambda request: (
                "Done."
                if request.items[-1].type == "tool"
                else ModelResponse(text="On it.", tool_calls=[call("refund", order_id=42)])
            )
        ),
        actions=[refund],
    )


def test_a_later_snapshot_reuses_what_did_not_change_and_adds_what_did() -> None:
    run = agent().new_run("Refund order 42")
    run.run_sync()
    waiting = snapshot_messages(run.prompt)
    assert [m.role for m in waiting] == ["user", "assistant"]  # no tool message yet
    run.resume_sync(True)
    done = snapshot_messages(run.prompt)
    assert [m.role for m in done] == ["user", "assistant", "tool", "assistant"]
    assert done[0] is waiting[0]
    assert done[1] is waiting[1]
    assert done[2].content == "refunded 42"


def test_an_edited_fork_is_built_from_its_edits() -> None:
    run = agent().new_run("Refund order 42")
    run.run_sync()
    run.resume_sync(True)
    before = snapshot_messages(run.prompt)
    fork = run.fork(at=ModelTurn(0))
    snapshot_messages(fork.prompt)
    fork.edit_item(0, text="Refund order 7")
    edited = snapshot_messages(fork.prompt)
    assert edited[0].content == "Refund order 7"
    assert before[0].content == "Refund order 42"


def test_a_messages_snapshot_is_framed_as_the_ag_ui_encoder_frames_it() -> None:
    import asyncio

    from ag_ui.core import MessagesSnapshotEvent
    from ag_ui.encoder import EventEncoder

    from pausepoint.agui import encode

    run = agent().new_run("Refund order 42")
    run.run_sync()
    run.resume_sync(True)
    event = MessagesSnapshotEvent(messages=snapshot_messages(run.prompt))

    async def frames() -> list[str]:
        async def one() -> AsyncIterator[MessagesSnapshotEvent]:
            yield event

        return [frame async for frame in encode(one())]

    assert asyncio.run(frames()) == [EventEncoder().encode(event)]
