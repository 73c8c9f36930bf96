"""A stored run someone edited by hand does not take the inbox down: it is listed by its
run id with what is wrong, and every other run stays listed and answerable."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest
from tests.widget.inbox_agents import ops_agent, waiting
from tests.widget.recording import RecordingComm

import pausepoint
from pausepoint import (
    Inbox,
)
from pausepoint.store import DamagedRunError, SQLiteStore, StoreError


def edit(store: SQLiteStore, statement: str, *params: Any) -> None:
    with sqlite3.connect(store.path) as conn:
        conn.execute(statement, params)


DAMAGE = {
    "pending column not JSON": ("UPDATE pausepoint_runs SET pending = '[{oops' WHERE run_id = ?"),
    "transcript item not JSON": (
        "UPDATE pausepoint_items SET item = 'garbage' WHERE run_id = ? AND position = 0"
    ),
    "transcript item that does not validate": (
        'UPDATE pausepoint_items SET item = \'{"type": "user"}\' WHERE run_id = ? AND position = 0'
    ),
    "transcript items missing": ("DELETE FROM pausepoint_items WHERE run_id = ? AND position = 1"),
}


def comm_of(box: Inbox) -> RecordingComm:
    assert isinstance(box.comm, RecordingComm)
    return box.comm


def assert_lists_the_damage(box: Inbox, broken: str, healthy: str) -> None:
    entries = {e["runId"]: e for e in box.entries}
    assert set(entries) == {broken, healthy}
    assert entries[healthy]["reason"] is None
    assert [c["canResolve"] for c in entries[healthy]["cards"]] == [True]
    assert entries[broken]["cards"] == []
    assert entries[broken]["damaged"] is True
    assert broken in entries[broken]["reason"]
    [damaged] = box.damaged
    assert isinstance(damaged, DamagedRunError)
    assert isinstance(damaged, StoreError)
    assert damaged.run_id == broken
    assert damaged.reason in entries[broken]["reason"]


@pytest.mark.parametrize("damage", list(DAMAGE))
async def test_a_new_inbox_lists_a_damaged_run_by_id_and_the_others_stay_answerable(
    store: SQLiteStore, comms: list[RecordingComm], damage: str
) -> None:
    executed: list[str] = []
    agent = ops_agent(executed)
    healthy = await waiting(agent, store, "Delete record 1")
    broken = await waiting(agent, store, "Delete record 2")
    edit(store, DAMAGE[damage], broken.id)

    box = pausepoint.inbox(store, agents={"ops": agent}, poll=None)

    assert_lists_the_damage(box, broken.id, healthy.id)
    comm_of(box).browser_send(
        {
            "type": "resume",
            "requestId": "r",
            "interrupt": healthy.pending[0].interrupt.id,
            "data": True,
            "run": healthy.id,
        }
    )
    await asyncio.wait_for(box.wait(), 5)
    assert comm_of(box).custom("response") == [{"type": "response", "requestId": "r", "ok": True}]
    assert executed == [f"{healthy.id}:1"]
    assert store.summary(healthy.id).status == "completed"
    assert [e["runId"] for e in box.entries] == [broken.id]


async def test_refresh_after_a_row_is_damaged_replies_and_names_the_run(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    agent = ops_agent([])
    healthy = await waiting(agent, store, "Delete record 1")
    broken = await waiting(agent, store, "Delete record 2")
    box = Inbox(store, agents={"ops": agent}, poll=None)
    assert box.damaged == ()
    edit(store, DAMAGE["pending column not JSON"], broken.id)

    comm_of(box).browser_send({"type": "refresh", "requestId": "f"})

    assert comm_of(box).custom("response") == [{"type": "response", "requestId": "f", "ok": True}]
    assert_lists_the_damage(box, broken.id, healthy.id)


async def test_a_damaged_run_of_an_agent_this_kernel_lacks_is_still_named(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    agent = ops_agent([])
    broken = await waiting(agent, store, "Delete record 2")
    edit(store, DAMAGE["pending column not JSON"], broken.id)

    box = Inbox(store, agents={}, poll=None)

    [entry] = box.entries
    assert entry["damaged"] is True
    assert broken.id in entry["reason"]
    assert entry["cards"] == []
