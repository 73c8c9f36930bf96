"""Whatever a stored run holds, the inbox sends it bounded: a 20 MiB first message, agent
name, run id, pause message or argument reaches the browser cut (saying how much is left
out) or as a preview whose whole value comes on request; and a store of many waiting runs
is listed a window at a time, loading no more runs than the view draws."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from tests.helpers import until
from tests.widget.inbox_agents import ops_agent, waiting
from tests.widget.recording import RecordingComm, comm_of
from tests.widget.test_view_previews import markers

from pausepoint import ActionContext, ActionInterrupt, Agent, AgentRun, ScriptedModel, action, call
from pausepoint.store import SQLiteStore
from pausepoint.widget._inbox import WINDOW, Inbox
from pausepoint.widget._preview import PREVIEW_CHARS, PREVIEW_LIMIT

MIB = 1024 * 1024
HUGE = "x" * (20 * MIB)
# What the view may get for an inbox holding one run of 20 MiB texts: a few previews.
BOUND = 16 * PREVIEW_LIMIT


def edit(store: SQLiteStore, statement: str, *params: Any) -> None:
    with sqlite3.connect(store.path) as conn:
        conn.execute(statement, params)


def sent_bytes(box: Inbox) -> int:
    """Everything the kernel sent the view: the opening state and the list after it."""
    return comm_of(box).bytes_sent()


def assert_cut(text: str, size: int) -> None:
    assert text.endswith(f"… ({size - PREVIEW_CHARS:,} more characters)")
    assert len(text) < PREVIEW_CHARS + 100


def huge_agent() -> Agent:
    """Pauses with a 20 MiB message on a call with a 20 MiB argument."""

    @action
    def review(note: str, ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt(HUGE, data={"dump": HUGE})
        return "reviewed"

    model = ScriptedModel([call("review", note=HUGE), "Done."])
    return Agent(model=model, actions=[review], name="ops")


async def test_a_20_mib_title_message_and_argument_are_sent_bounded_and_whole_on_request(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    agent = huge_agent()
    run = agent.new_run(HUGE, store=store)
    await run.run()

    box = Inbox(store, agents={"ops": agent}, poll=None)

    assert sent_bytes(box) < BOUND
    [entry] = box.entries
    assert_cut(entry["title"], len(HUGE))
    [card] = entry["cards"]
    assert_cut(card["message"], len(HUGE))
    args, data = markers(card["args"]), markers(card["data"])
    assert [m["bytes"] for m in args] == [len(json.dumps({"note": HUGE}, separators=(",", ":")))]
    assert len(data) == 1
    comm_of(box).browser_send({"type": "value", "requestId": "v", "ref": args[0]["ref"]})
    [reply] = await until(lambda: comm_of(box).custom("response"))
    assert reply["ok"] is True
    assert reply["value"] == {"note": HUGE}


async def test_a_read_only_run_with_a_20_mib_agent_name_and_message_is_sent_cut(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    agent = huge_agent()
    run = agent.new_run("Review", store=store)
    await run.run()
    edit(store, "UPDATE pausepoint_runs SET agent = ? WHERE run_id = ?", HUGE, run.id)

    box = Inbox(store, agents={}, poll=None)

    assert sent_bytes(box) < BOUND
    [entry] = box.entries
    assert_cut(entry["agent"], len(HUGE))
    assert "no agent" in entry["reason"]
    assert len(entry["reason"]) < 3 * PREVIEW_CHARS  # names the agent as cut
    [card] = entry["cards"]
    assert card["canResolve"] is False
    assert_cut(card["message"], len(HUGE))


async def test_a_damaged_run_whose_reason_quotes_20_mib_is_sent_cut(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    run = await waiting(ops_agent([]), store, "Delete record 1")
    edit(store, "UPDATE pausepoint_runs SET pending = ? WHERE run_id = ?", "[" + HUGE, run.id)
    edit(store, "UPDATE pausepoint_items SET item = ? WHERE run_id = ?", HUGE, run.id)

    box = Inbox(store, agents={"ops": ops_agent([])}, poll=None)

    assert sent_bytes(box) < BOUND
    [entry] = box.entries
    assert entry["damaged"] is True
    assert run.id in entry["reason"]
    assert len(entry["reason"]) < PREVIEW_CHARS + 100


async def test_a_run_with_a_20_mib_id_is_listed_cut_and_answered_by_that_id(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    agent = ops_agent(executed)
    run = await waiting(agent, store, "Delete record 3")
    long_id = "run_" + HUGE
    for table in ("pausepoint_runs", "pausepoint_items"):
        edit(store, f"UPDATE {table} SET run_id = ? WHERE run_id = ?", long_id, run.id)

    box = Inbox(store, agents={"ops": agent}, poll=None)

    assert sent_bytes(box) < BOUND
    [entry] = box.entries
    assert_cut(entry["runId"], len(long_id))
    [card] = entry["cards"]
    assert card["runId"] == entry["runId"]
    comm_of(box).browser_send(
        {
            "type": "value",
            "requestId": "v",
            "ref": f"card/{json.dumps([card['runId'], card['key']])}",
        }
    )
    comm_of(box).browser_send(
        {
            "type": "resume",
            "requestId": "r",
            "interrupt": card["id"],
            "data": True,
            "run": card["runId"],
        }
    )
    await until(lambda: len(comm_of(box).custom("response")) == 2)
    await box.wait()
    value, answered = comm_of(box).custom("response")
    assert value["ok"] is True
    assert value["value"]["id"] == card["id"]
    assert answered == {"type": "response", "requestId": "r", "ok": True}
    assert store.summary(long_id).status == "completed"
    assert executed == [f"{long_id}:3"]


async def test_many_waiting_runs_are_counted_and_listed_a_window_at_a_time(
    store: SQLiteStore, comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = ops_agent([])
    runs = [await waiting(agent, store, f"Delete record {i}") for i in range(WINDOW + 10)]
    loaded: list[str] = []
    load = AgentRun.load

    def counting_load(store_: Any, run_id: str, *args: Any, **kwargs: Any) -> AgentRun:
        loaded.append(run_id)
        return load(store_, run_id, *args, **kwargs)

    monkeypatch.setattr(AgentRun, "load", counting_load)

    box = Inbox(store, agents={"ops": agent}, poll=None)

    assert box.total == WINDOW + 10
    newest_first = [r.id for r in reversed(runs)]
    assert [e["runId"] for e in box.entries] == newest_first[:WINDOW]
    assert sorted(loaded) == sorted(newest_first[:WINDOW])  # the rest stay in the store
    assert comm_of(box).updates()[-1]["total"] == WINDOW + 10

    comm_of(box).browser_send({"type": "show", "requestId": "s", "count": 2 * WINDOW})

    assert comm_of(box).custom("response") == [{"type": "response", "requestId": "s", "ok": True}]
    assert [e["runId"] for e in box.entries] == newest_first
    assert box.window == 2 * WINDOW
    assert len(loaded) == WINDOW + 10  # each run loaded once
    box.refresh()
    assert len(loaded) == WINDOW + 10


async def test_an_answered_run_leaves_and_the_next_waiting_run_fills_the_window(
    store: SQLiteStore, comms: list[RecordingComm]
) -> None:
    agent = ops_agent([])
    runs = [await waiting(agent, store, f"Delete record {i}") for i in range(WINDOW + 1)]
    box = Inbox(store, agents={"ops": agent}, poll=None)
    assert runs[0].id not in [e["runId"] for e in box.entries]
    newest = box.entries[0]["cards"][0]

    comm_of(box).browser_send(
        {"type": "resume", "requestId": "r", "interrupt": newest["id"], "data": True}
    )
    await until(lambda: comm_of(box).custom("response"))
    await box.wait()

    assert box.total == WINDOW
    assert [e["runId"] for e in box.entries] == [r.id for r in reversed(runs[:-1])]


@pytest.mark.parametrize("count", [-1, "10", True, None, 1.5])
async def test_show_needs_a_count_of_runs(
    store: SQLiteStore, comms: list[RecordingComm], count: Any
) -> None:
    box = Inbox(store, agents={}, poll=None)

    comm_of(box).browser_send({"type": "show", "requestId": "s", "count": count})

    [reply] = comm_of(box).custom("response")
    assert reply["ok"] is False
    assert reply["error"]["code"] == "bad-request"
    assert box.window == WINDOW
