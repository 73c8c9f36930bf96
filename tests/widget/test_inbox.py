"""The inbox's Python side, without a kernel: what it lists, and answers from its cards."""

from __future__ import annotations

import asyncio

import pytest
from tests.helpers import until
from tests.widget.inbox_agents import ops_agent, waiting
from tests.widget.recording import RecordingComm, comm_of

import pausepoint
from pausepoint import (
    Inbox,
)
from pausepoint.errors import UsageError
from pausepoint.store import RunStore


async def test_inbox_lists_waiting_runs_newest_first_with_their_cards(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    agent = ops_agent([])
    older = await waiting(agent, store, "Delete record 1")
    newer = await waiting(agent, store, "Delete record 2")
    done = await waiting(agent, store, "Delete record 3")
    await done.resume(True)  # no longer waits: not listed

    box = pausepoint.inbox(store, agents={"ops": agent}, poll=None)

    assert [e["runId"] for e in box.entries] == [newer.id, older.id]
    first = box.entries[0]
    assert first["title"] == "Delete record 2"
    assert first["reason"] is None
    [card] = first["cards"]
    assert card["id"] == newer.pending[0].interrupt.id
    assert (card["canResolve"], card["message"]) == (True, "Delete record 2?")
    assert comm_of(box).opened_state()["view"] == "inbox"


async def test_runs_of_unknown_agents_are_read_only_with_a_reason(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    await waiting(ops_agent([], name="legacy"), store, "Delete record 4")

    box = Inbox(store, agents={"ops": ops_agent([])}, poll=None)

    [entry] = box.entries
    assert "no agent 'legacy'" in entry["reason"]
    assert [(c["canResolve"], c["message"]) for c in entry["cards"]] == [
        (False, "Delete record 4?")
    ]


async def test_answering_a_card_continues_the_run_and_it_leaves_the_inbox(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    agent = ops_agent(executed)
    first = await waiting(agent, store, "Delete record 1")
    second = await waiting(agent, store, "Delete record 2")
    box = Inbox(store, agents={"ops": agent}, poll=None)
    interrupt = first.pending[0].interrupt.id

    comm_of(box).browser_send(
        {"type": "resume", "requestId": "r1", "interrupt": interrupt, "data": True}
    )

    response = await until(lambda: comm_of(box).custom("response"))
    assert response == [{"type": "response", "requestId": "r1", "ok": True}]
    await until(lambda: len(box.entries) == 1)
    await box.wait()
    assert [e["runId"] for e in box.entries] == [second.id]
    assert executed == [f"{first.id}:1"]
    assert store.summary(first.id).status == "completed"
    assert store.load_prompt(first.id)[0].output == "Done."
    answered = next(store.load_prompt(first.id)[0].tool_calls()).interrupts[0].resolution
    assert answered is not None
    assert answered.by == "inbox"  # the thread can say where the answer came from


async def test_a_card_answered_in_another_kernel_first_is_refused_and_removed(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    agent = ops_agent(executed)
    run = await waiting(agent, store, "Delete record 5")
    box = Inbox(store, agents={"ops": agent}, poll=None)
    interrupt = run.pending[0].interrupt.id
    await run.resume(True)  # the other kernel answers first

    comm_of(box).browser_send(
        {"type": "reject", "requestId": "r2", "interrupt": interrupt, "reason": "no"}
    )

    [response] = await until(lambda: comm_of(box).custom("response"))
    assert response["ok"] is False
    assert response["error"]["name"] == "InterruptAlreadyResolvedError"
    await until(lambda: box.entries == [])
    assert executed == [f"{run.id}:5"]  # the action ran once
    assert store.summary(run.id).status == "completed"


async def test_a_fork_waiting_on_its_parents_interrupt_is_answered_as_its_own_run(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    agent = ops_agent(executed)
    parent = await waiting(agent, store, "Delete record 4")
    interrupt = parent.pending[0].interrupt.id
    fork = parent.fork(at=interrupt)  # waits on the same interrupt id
    box = Inbox(store, agents={"ops": agent}, poll=None)
    cards = {e["runId"]: e["cards"][0] for e in box.entries}
    assert set(cards) == {parent.id, fork.id}
    assert cards[fork.id]["id"] == cards[parent.id]["id"] == interrupt
    assert cards[fork.id]["runId"] == fork.id
    assert store.summary(fork.id).parent_run_id == parent.id

    # Without the run, the answer could go to either: refused, nothing recorded.
    comm_of(box).browser_send(
        {"type": "resume", "requestId": "r1", "interrupt": interrupt, "data": True}
    )
    [refused] = await until(lambda: comm_of(box).custom("response"))
    assert refused["ok"] is False
    assert refused["error"]["name"] == "BadRequest"
    assert fork.id in refused["error"]["message"]

    comm_of(box).browser_send(
        {"type": "resume", "requestId": "r2", "interrupt": interrupt, "data": True, "run": fork.id}
    )
    await until(lambda: len(comm_of(box).custom("response")) == 2)
    await box.wait()
    assert comm_of(box).custom("response")[1]["ok"] is True
    assert executed == [f"{fork.id}:4"]
    assert store.summary(fork.id).status == "completed"
    assert store.summary(parent.id).status == "interrupted"
    await until(lambda: [e["runId"] for e in box.entries] == [parent.id])


async def test_polling_shows_runs_other_kernels_left_waiting(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    agent = ops_agent([])
    box = Inbox(store, agents={"ops": agent}, poll=0.02)
    assert box.entries == []
    assert not box.changed()

    other_kernel = ops_agent([])
    run = await waiting(other_kernel, store, "Delete record 6")

    await until(lambda: [e["runId"] for e in box.entries] == [run.id])
    assert not box.changed()
    await run.resume(True)
    await until(lambda: box.entries == [])
    box.close()


async def test_stopped_polling_leaves_the_inbox_drawn_and_poll_starts_it_again(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=0.02)
    assert box.polling == 0.02

    box.stop_polling()
    assert box.polling is None
    run = await waiting(ops_agent([]), store, "Delete record 7")
    await asyncio.sleep(0.2)  # ten polls' worth: none looks
    assert box.entries == []
    # Still open and drawn (close() would blank it), and Refresh still reads the store.
    assert box.comm is not None
    assert [t for t, _ in comm_of(box).messages if t == "comm_close"] == []
    comm_of(box).browser_send({"type": "refresh", "requestId": "r1"})
    assert [e["runId"] for e in box.entries] == [run.id]

    box.poll(0.02)
    assert box.polling == 0.02
    await run.resume(True)
    await until(lambda: box.entries == [])
    box.close()
    assert box.polling is None


def test_poll_needs_a_positive_interval_and_an_event_loop(store: RunStore) -> None:
    box = Inbox(store, poll=None)
    with pytest.raises(UsageError, match="positive"):
        box.poll(0)
    with pytest.raises(UsageError, match="event loop"):
        box.poll(5)  # no loop runs here; in a kernel, one always does
    assert box.polling is None


async def test_refresh_request_reads_the_store_again(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=None)
    run = await waiting(ops_agent([]), store, "Delete record 8")
    assert box.entries == []

    comm_of(box).browser_send({"type": "refresh", "requestId": "r3"})

    assert [e["runId"] for e in box.entries] == [run.id]
    assert comm_of(box).custom("response") == [{"type": "response", "requestId": "r3", "ok": True}]


def test_inbox_needs_a_store() -> None:
    with pytest.raises(UsageError, match="run store"):
        Inbox("runs.db", poll=None)  # type: ignore[arg-type]
