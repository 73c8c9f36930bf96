"""The inbox takes the same request path as the run view: every request gets exactly one
reply, and `wait()` waits for the runs answered from it to stop executing."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from tests.widget.inbox_agents import Gate, ops_agent, waiting
from tests.widget.recording import RecordingComm

from pausepoint import (
    Inbox,
)
from pausepoint.store import RunStore

MIB = 1024 * 1024


def comm_of(box: Inbox) -> RecordingComm:
    assert isinstance(box.comm, RecordingComm)
    return box.comm


def from_thread(recording: RecordingComm, content: Any) -> None:
    thread = threading.Thread(target=recording.browser_send, args=(content,))
    thread.start()
    thread.join()


async def settled() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


def nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


HOSTILE: dict[str, tuple[Any, str | None, str]] = {
    "a card reference that is a number": (
        {"type": "value", "requestId": "q", "ref": "card/1"},
        "q",
        "not-found",
    ),
    "a card reference that is a list of three": (
        {"type": "value", "requestId": "q", "ref": "card/%5B1%2C2%2C3%5D"},
        "q",
        "not-found",
    ),
    "a card reference of a run not listed": (
        {"type": "value", "requestId": "q", "ref": 'card/["run_x", "int_y"]'},
        "q",
        "not-found",
    ),
    "an item reference (the inbox shows none)": (
        {"type": "value", "requestId": "q", "ref": "item/²"},
        "q",
        "not-found",
    ),
    "a 1 MB reference": (
        {"type": "value", "requestId": "q", "ref": "card/" + "x" * MIB},
        "q",
        "too-large",
    ),
    "a 500-level message": (
        {"type": "refresh", "requestId": "q", "extra": nested(500)},
        "q",
        "too-deep",
    ),
    "an unknown type": ({"type": "cancel", "requestId": "q"}, "q", "bad-request"),
    "no request id": ({"type": "refresh"}, None, "bad-request"),
    "a request id that is not text": ({"type": "refresh", "requestId": ["q"]}, None, "bad-request"),
    "an answer to no listed interrupt": (
        {"type": "resume", "requestId": "q", "interrupt": "int_nowhere", "data": True},
        "q",
        "not-found",
    ),
}


@pytest.mark.parametrize("threaded", [False, True], ids=["kernel thread", "other thread"])
@pytest.mark.parametrize("case", list(HOSTILE))
async def test_an_inbox_request_it_cannot_serve_gets_exactly_one_error_reply(
    store: RunStore, comms: list[RecordingComm], case: str, threaded: bool
) -> None:
    run = await waiting(ops_agent([]), store, "Delete record 1")
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=None)
    message, request_id, code = HOSTILE[case]

    (from_thread if threaded else RecordingComm.browser_send)(comm_of(box), message)
    await settled()

    [reply] = comm_of(box).custom("response")
    assert reply["requestId"] == request_id
    assert reply["ok"] is False
    assert reply["error"]["code"] == code
    assert store.summary(run.id).status == "interrupted"


async def test_an_inbox_value_request_for_a_listed_card_is_served(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    run = await waiting(ops_agent([]), store, "Delete record 1")
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=None)
    interrupt = run.pending[0].interrupt.id

    from_thread(
        comm_of(box),
        {"type": "value", "requestId": "v", "ref": f'card/["{run.id}", "{interrupt}"]'},
    )

    [reply] = comm_of(box).custom("response")
    assert reply["ok"] is True
    assert reply["value"]["id"] == interrupt


async def test_a_20_mib_rejection_from_the_inbox_is_refused_and_nothing_is_recorded(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    run = await waiting(ops_agent(executed), store, "Delete record 1")
    box = Inbox(store, agents={"ops": ops_agent(executed)}, poll=None)
    stored_before = store.export(run.id)

    from_thread(
        comm_of(box),
        {
            "type": "reject",
            "requestId": "big",
            "interrupt": run.pending[0].interrupt.id,
            "reason": "x" * (20 * MIB),
        },
    )
    await settled()
    await box.wait()

    [reply] = comm_of(box).custom("response")
    assert reply["error"]["code"] == "too-large"
    assert store.export(run.id) == stored_before
    assert executed == []


@pytest.mark.parametrize("threaded", [False, True], ids=["kernel thread", "other thread"])
async def test_wait_returns_only_once_the_answered_run_has_stopped(
    store: RunStore, comms: list[RecordingComm], threaded: bool
) -> None:
    executed: list[str] = []
    gate = Gate()
    agent = ops_agent(executed, gate)
    run = await waiting(agent, store, "Delete record 3")
    box = Inbox(store, agents={"ops": agent}, poll=None)
    message = {
        "type": "resume",
        "requestId": "r",
        "interrupt": run.pending[0].interrupt.id,
        "data": True,
    }

    (from_thread if threaded else RecordingComm.browser_send)(comm_of(box), message)
    waited = asyncio.create_task(box.wait())
    await asyncio.wait_for(gate.entered.wait(), 5)
    await settled()

    assert not waited.done()  # the run is executing the approved action
    assert comm_of(box).custom("response") == [{"type": "response", "requestId": "r", "ok": True}]
    gate.release.set()
    await asyncio.wait_for(waited, 5)
    assert executed == [f"{run.id}:3"]
    assert store.summary(run.id).status == "completed"
    assert box.entries == []  # the list was read again before wait() returned


async def test_wait_called_right_after_the_click_waits_for_the_run(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    """The answer reaches the run's loop after the handler returns: a wait() made in that
    gap must still wait for it."""
    executed: list[str] = []
    agent = ops_agent(executed)
    run = await waiting(agent, store, "Delete record 4")
    box = Inbox(store, agents={"ops": agent}, poll=None)

    comm_of(box).browser_send(
        {"type": "resume", "requestId": "r", "interrupt": run.pending[0].interrupt.id, "data": True}
    )
    await asyncio.wait_for(box.wait(), 5)

    assert executed == [f"{run.id}:4"]
    assert store.summary(run.id).status == "completed"


async def test_wait_returns_at_once_when_nothing_was_answered(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    await waiting(ops_agent([]), store, "Delete record 5")
    box = Inbox(store, agents={"ops": ops_agent([])}, poll=None)

    await asyncio.wait_for(box.wait(), 1)
