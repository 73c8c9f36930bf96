"""Triage listings: waiting runs filtered, sorted and paged from header rows, on SQLite and
PostgreSQL, Ignore and its undo, titles, and stores of schema version 2 brought up."""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers import Clock, StoreFactory

from pausepoint import Prompt, ToolCall, ToolCallRequest
from pausepoint.store import STORE_SCHEMA_VERSION, RunNotFoundError, RunStore, StoreUsageError
from pausepoint.transcript import AssistantMessage, InterruptEntry, UserMessage


def waiting_prompt(
    run_id: str, ask: str, *, tool: str = "refund", kind: str = "tool-approval", **args: Any
) -> Prompt:
    """A run whose last call waits on a person, called with `args`."""
    call = ToolCall(
        id=f"call_{run_id}",
        name=tool,
        input=args,
        status="interrupted",
        interrupts=[InterruptEntry(id=f"int_{run_id}", kind=kind, message=f"Run {tool}?")],
    )
    return Prompt(
        run_id=run_id,
        items=[
            UserMessage(text=ask),
            AssistantMessage(tool_calls=[ToolCallRequest(id=call.id, name=tool, input=args)]),
            call,
        ],
    )


def seed(store: RunStore, clock: Clock) -> None:
    """Five runs, a minute apart: r0 paused first, r4 last."""
    asks = [
        ("r0", "ops", dict(amount=250, customer="Ann")),
        ("r1", "ops", dict(amount=9, customer="Bob")),
        ("r2", "payments", dict(amount=1200.5, customer="Cy")),
        ("r3", "payments", dict(customer="Dee")),
        ("r4", "ops", dict(amount=75, customer="Eve", note="x" * 500)),
    ]
    for run_id, agent, args in asks:
        kind = "generic" if run_id == "r1" else "tool-approval"
        store.create(
            waiting_prompt(run_id, f"Refund {args['customer']}", kind=kind, **args),
            status="interrupted",
            agent=agent,
        )
        clock.advance(60)


def ids(store: RunStore, **options: Any) -> list[str]:
    return [run.run_id for run in store.waiting(**options).runs]


def test_waiting_runs_list_newest_first_with_title_kind_and_key_arguments(
    store: RunStore, clock: Clock
) -> None:
    seed(store, clock)
    store.create(Prompt.from_user("no pause", run_id="done"), status="succeeded", agent="ops")
    page = store.waiting()
    assert [r.run_id for r in page.runs] == ["r4", "r3", "r2", "r1", "r0"]
    assert page.total == 5
    newest = page.runs[0]
    assert newest.title == "Refund Eve"
    assert newest.arguments["amount"] == 75
    assert len(newest.arguments["note"]) < 500  # texts are cut in the header
    assert dict(page.agents) == {"ops": 3, "payments": 2}
    assert dict(page.kinds) == {"generic": 1, "tool-approval": 4}
    assert ids(store, sort="oldest") == ["r0", "r1", "r2", "r3", "r4"]


def test_sorting_by_a_key_argument_compares_numbers_as_numbers(
    store: RunStore, clock: Clock
) -> None:
    seed(store, clock)
    # As text, "1200.5" < "250" < "75" < "9": numbers must not sort that way.
    assert ids(store, sort="amount") == ["r1", "r4", "r0", "r2", "r3"]
    assert ids(store, sort="-amount") == ["r2", "r0", "r4", "r1", "r3"]
    assert ids(store, sort="customer") == ["r0", "r1", "r2", "r3", "r4"]


def test_filters_keep_the_agent_kind_and_text_asked_for(store: RunStore, clock: Clock) -> None:
    seed(store, clock)
    assert ids(store, agent="payments") == ["r3", "r2"]
    assert ids(store, kind="generic") == ["r1"]
    assert ids(store, text="DEE") == ["r3"]  # a key argument, any case
    assert ids(store, text="refund bob") == ["r1"]  # the title
    assert ids(store, text="100%") == []  # % is a character, not a wildcard
    page = store.waiting(agent="ops", text="refund", sort="-amount")
    assert [r.run_id for r in page.runs] == ["r0", "r4", "r1"]
    assert page.total == 3
    assert dict(page.agents) == {"ops": 3, "payments": 2}  # facets ignore the filters


def test_text_finds_what_a_row_shows_not_the_pauses_ids_or_times(
    store: RunStore, clock: Clock
) -> None:
    seed(store, clock)
    assert len(ids(store, text="run refund?")) == 5  # the pause's message
    assert ids(store, text="int_r3") == []  # an interrupt's id
    assert ids(store, text="created_at") == []  # a key of the stored entries


def test_pages_have_the_total_of_all_matching_runs(store: RunStore, clock: Clock) -> None:
    seed(store, clock)
    page = store.waiting(offset=2, limit=2)
    assert [r.run_id for r in page.runs] == ["r2", "r1"]
    assert (page.total, page.offset) == (5, 2)
    assert (page.agents, page.kinds) == ((), ())  # what to filter by comes with page one
    assert store.waiting(offset=10).runs == ()


def test_status_lists_failed_and_stopped_runs_by_name(store: RunStore, clock: Clock) -> None:
    seed(store, clock)
    store.create(Prompt.from_user("broke", run_id="f"), status="failed", agent="ops")
    store.create(Prompt.from_user("halted", run_id="c"), status="cancelled", agent="ops")
    assert ids(store, status="failed") == ["f"]
    assert ids(store, status="stopped") == ["c"]
    assert ids(store, status=["failed", "stopped"]) == ["c", "f"]


def test_an_ignored_run_leaves_the_list_until_it_is_unignored(
    store: RunStore, clock: Clock
) -> None:
    seed(store, clock)
    version = store.summary("r2").version
    store.ignore("r2", by="ann")
    assert "r2" not in ids(store)
    ignored = store.waiting(ignored=True).runs
    assert [r.run_id for r in ignored] == ["r2"]
    assert ignored[0].ignored_by == "ann"
    assert ignored[0].ignored_at == clock.now
    assert store.summary("r2").version == version  # a writer of the run is not disturbed
    store.unignore("r2")
    assert "r2" in ids(store)
    assert store.summary("r2").ignored_at is None
    with pytest.raises(RunNotFoundError):
        store.ignore("nobody")


def test_a_title_given_names_the_run_and_none_brings_back_its_first_message(
    store: RunStore,
) -> None:
    store.create(waiting_prompt("t", "  Refund\n\nAnn  "), status="interrupted", title="Batch 7")
    assert store.summary("t").title == "Batch 7"
    store.set_title("t", None)
    assert store.summary("t").title == "Refund Ann"
    store.set_title("t", "y" * 5000)
    assert len(store.summary("t").title or "") <= 200


def test_writes_keep_the_pause_columns_in_step(store: RunStore) -> None:
    store.create(Prompt.from_user("go", run_id="w"), status="running", agent="ops")
    assert ids(store) == []
    prompt = waiting_prompt("w", "go", amount=5)
    from pausepoint.store import pending_of

    store.append(
        "w", prompt.items[1:], expected_version=1, status="interrupted", pending=pending_of(prompt)
    )
    (run,) = store.waiting(sort="-amount").runs
    assert run.arguments == {"amount": 5}
    assert dict(store.waiting().kinds) == {"tool-approval": 1}
    store.append("w", [], expected_version=2, status="succeeded", pending=())
    assert store.waiting(status=["waiting", "failed", "stopped"]).total == 0


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"status": "done"}, "status must be"),
        ({"sort": "amount; DROP TABLE x"}, "sort must be"),
        ({"limit": -1}, "limit must be"),
        ({"limit": 5000}, "at most"),
        ({"agent": 3}, "agent must be"),
    ],
)
def test_a_bad_listing_is_refused_with_what_to_ask(
    store: RunStore, options: dict[str, Any], says: str
) -> None:
    with pytest.raises(StoreUsageError, match=says):
        store.waiting(**options)


def test_a_store_of_version_2_gets_its_triage_columns_from_its_rows(
    open_store: StoreFactory, clock: Clock
) -> None:
    store = open_store(clock=clock)
    seed(store, clock)
    store.ignore("r1")
    old = store  # take the new columns away, as a version 2 store lacks them
    with old._transaction(write=True) as cur:  # type: ignore[attr-defined]
        for column in (
            *("title", "pause_kind", "pause_args", "ignored_by", "ignored_at"),
            "fork_origin",  # added by version 4
            "owner",  # added by version 5
        ):
            cur.execute(f"ALTER TABLE pausepoint_runs DROP COLUMN {column}")
        cur.execute("UPDATE pausepoint_schema SET version = 2")
    old.close()
    store = open_store(clock=clock)
    with store._transaction(write=False) as cur:  # type: ignore[attr-defined]
        cur.execute("SELECT version FROM pausepoint_schema")
        assert cur.fetchone()[0] == STORE_SCHEMA_VERSION
    assert ids(store, sort="-amount") == ["r2", "r0", "r4", "r1", "r3"]
    assert store.summary("r4").title == "Refund Eve"
    assert dict(store.waiting().kinds) == {"generic": 1, "tool-approval": 4}
    assert store.summary("r1").ignored_at is None  # Ignore is new: nothing was ignored
