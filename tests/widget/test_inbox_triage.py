"""The inbox's triage list in the kernel: pages of rows on request, a row opened into its
cards and thread, answers to many runs at once with each run's outcome, and Ignore."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.helpers import until
from tests.widget.inbox_agents import ops_agent, refund_agent, triage_prompt, waiting
from tests.widget.recording import RecordingComm

from pausepoint import AgentRun, Inbox, UsageError
from pausepoint.store import RunStore


def comm_of(box: Inbox) -> RecordingComm:
    assert isinstance(box.comm, RecordingComm)
    return box.comm


def seed(store: RunStore, count: int, *, agent: str = "payments") -> list[str]:
    ids = [f"run_{n:03d}" for n in range(count)]
    for n, run_id in enumerate(ids):
        store.create(
            triage_prompt(run_id, amount=(n * 37) % 100, customer=f"customer {n}"),
            status="interrupted",
            agent=agent,
        )
    return ids


def ask(box: Inbox, content: dict[str, Any]) -> dict[str, Any]:
    """Send a request as the view would and return its one reply."""
    comm = comm_of(box)
    before = len(comm.custom("response"))
    comm.browser_send(content)
    replies = comm.custom("response")
    assert len(replies) == before + 1
    return replies[-1]


async def test_the_list_request_serves_one_sorted_filtered_page_and_the_total(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    seed(store, 30)
    seed_other = triage_prompt("other", amount=1, customer="Zed")
    store.create(seed_other, status="interrupted", agent="support")
    box = Inbox(store, agents={"payments": refund_agent([])}, poll=None)

    reply = ask(
        box,
        {
            "type": "list",
            "requestId": "l",
            "filter": {"agent": "payments", "text": "customer 2"},
            "sort": "-amount",
            "offset": 0,
            "limit": 5,
        },
    )

    page = reply["value"]
    # customer 2 and customer 20..29: 11 runs of payments, the largest amounts first
    assert page["total"] == 11
    amounts = [row["arguments"]["amount"] for row in page["rows"]]
    assert len(amounts) == 5
    assert amounts == sorted(amounts, reverse=True)
    assert all(row["agent"] == "payments" and row["answerable"] for row in page["rows"])
    assert page["rows"][0]["kind"] == "tool-approval"
    assert page["rows"][0]["title"].startswith("Refund customer 2")
    assert page["keys"] == ["amount", "customer"]
    assert dict(map(tuple, page["agents"])) == {"payments": 30, "support": 1}
    other = box.rows(agent="support")["rows"][0]
    assert other["answerable"] is False  # no agent of this kernel for it


@pytest.mark.parametrize(
    "content",
    [
        {"sort": "amount; DROP TABLE pausepoint_runs"},
        {"filter": {"status": "done"}},
        {"filter": "everything"},
        {"limit": 10**6},
    ],
)
async def test_a_list_request_it_cannot_serve_is_refused_and_says_why(
    store: RunStore, comms: list[RecordingComm], content: dict[str, Any]
) -> None:
    seed(store, 2)
    box = Inbox(store, agents={"payments": refund_agent([])}, poll=None)

    reply = ask(box, {"type": "list", "requestId": "l", **content})

    assert reply["ok"] is False
    assert reply["error"]["code"] == "bad-request"
    assert store.waiting().total == 2


async def test_bulk_approve_answers_each_run_and_names_one_answered_elsewhere(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    ids = seed(store, 6)
    box = Inbox(store, agents={"payments": refund_agent(executed)}, poll=None)
    # Another kernel answers run_002 first.
    elsewhere = AgentRun.load(store, ids[2], refund_agent(executed))
    await elsewhere.reject("not this one")

    reply = ask(box, {"type": "bulk", "requestId": "b", "answer": "approve", "runs": ids})
    assert reply["ok"] is True
    assert reply["value"] == {"runs": 6}
    bulk = await until(lambda: box.bulk if len(box.bulk.get("outcomes", [])) == 6 else None)
    await box.wait()

    outcomes = {o["runId"]: o["outcome"] for o in bulk["outcomes"]}
    assert outcomes == {i: ("not-waiting" if i == ids[2] else "answered") for i in ids}
    assert bulk["total"] == 6
    assert bulk["answer"] == "approve"
    assert sorted(executed) == sorted(
        f"{i}:{(n * 37) % 100}.0" for n, i in enumerate(ids) if n != 2
    )
    assert {store.summary(i).status for i in ids} == {"completed"}
    assert box.rows()["total"] == 0


async def test_decline_and_respond_answer_without_running_the_action(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    ids = seed(store, 4)
    box = Inbox(store, agents={"payments": refund_agent(executed)}, poll=None)

    declined = await box.decline(ids[:2], "Too much.")
    responded = await box.respond(ids[2:], "Refund half, and say why.")
    await box.wait()

    assert [o.outcome for o in declined + responded] == ["answered"] * 4
    assert executed == []
    prompt, _ = store.load_prompt(ids[0])
    assert "Too much." in prompt.model_dump_json()
    calls = [store.load_prompt(i)[0].items[2] for i in ids[2:]]
    assert [getattr(call, "status", None) for call in calls] == ["responded"] * 2
    with pytest.raises(UsageError):
        await box.respond(ids, "  ")


async def test_bulk_answers_to_runs_this_kernel_cannot_continue_are_reported(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    ids = seed(store, 2, agent="elsewhere")
    box = Inbox(store, agents={"payments": refund_agent([])}, poll=None)

    outcomes = await box.approve([*ids, "run_missing"])

    assert [o.outcome for o in outcomes] == ["read-only", "read-only", "gone"]
    assert {store.summary(i).status for i in ids} == {"interrupted"}


async def test_an_opened_row_has_its_thread_and_an_answerable_card(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    agent = ops_agent(executed)
    run = await waiting(agent, store, "Delete record 9")
    box = Inbox(store, agents={"ops": agent}, poll=None)
    box.show(0)  # the row is not among the listed entries: opening it is what counts

    opened = ask(box, {"type": "open", "requestId": "o", "run": run.id})["value"]

    [card] = opened["cards"]
    assert card["runId"] == run.id
    assert opened["status"] == "interrupted"
    assert [line["role"] for line in opened["thread"]["items"]] == ["user", "assistant", "tool"]
    assert opened["thread"]["items"][0]["text"] == "Delete record 9"
    answer = {
        "type": "resume",
        "requestId": "r",
        "interrupt": card["id"],
        "run": run.id,
        "data": True,
    }
    comm_of(box).browser_send(answer)
    await until(lambda: comm_of(box).custom("response")[1:])
    assert comm_of(box).custom("response")[1]["ok"] is True
    await box.wait()
    assert executed == [f"{run.id}:9"]
    # Opened again once answered: nothing waits, and the run says what became of it.
    after = ask(box, {"type": "open", "requestId": "o2", "run": run.id})["value"]
    assert (after["cards"], after["status"]) == ([], "completed")
    missing = ask(box, {"type": "open", "requestId": "m", "run": "run_nowhere"})
    assert missing["error"]["code"] == "not-found"


async def test_ignore_hides_a_run_from_the_list_and_unignore_brings_it_back(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    ids = seed(store, 3)
    box = Inbox(store, agents={"payments": refund_agent([])}, poll=None)

    assert ask(box, {"type": "ignore", "requestId": "i", "run": ids[1], "by": "ann"})["ok"]
    assert [r["runId"] for r in box.rows()["rows"]] == [ids[2], ids[0]]
    [hidden] = box.rows(ignored=True)["rows"]
    assert (hidden["runId"], hidden["ignoredBy"]) == (ids[1], "ann")
    assert ask(box, {"type": "unignore", "requestId": "u", "run": ids[1]})["ok"]
    assert box.rows()["total"] == 3


async def test_a_title_given_to_a_new_run_names_its_row(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    agent = ops_agent([])
    run = agent.new_run("Delete record 5", store=store, title="Nightly clean-up #5")
    assert (await run.run()).status == "interrupted"
    box = Inbox(store, agents={"ops": agent}, poll=None)

    [row] = box.rows()["rows"]
    assert row["title"] == "Nightly clean-up #5"
    assert row["arguments"] == {"id": 5}
    with pytest.raises(UsageError, match="store"):
        ops_agent([]).new_run("x", title="no store")
    await asyncio.sleep(0)


async def test_an_inbox_that_leaves_runs_to_workers_records_answers_and_runs_nothing(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    executed: list[str] = []
    ids = seed(store, 3)
    box = Inbox(store, agents={"payments": refund_agent(executed)}, poll=None, continue_runs=False)

    outcomes = await box.approve(ids)
    await box.wait()

    assert [o.outcome for o in outcomes] == ["answered"] * 3
    assert executed == []  # a worker runs the approved refunds
    assert {store.summary(i).status for i in ids} == {"idle"}
    assert box.rows()["total"] == 0


async def test_only_the_latest_opened_runs_stay_loaded(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    ids = seed(store, 80)  # the newest 50 are kept in full (`entries`); open older ones
    box = Inbox(store, agents={"payments": refund_agent([])}, poll=None)

    for run_id in ids[:25]:
        box.open_run(run_id)
    box.refresh()

    assert set(box._opened.values()) == set(ids[5:25])
    assert set(box._runs) == set(ids[5:25]) | set(ids[30:])
