"""The store contract, run against every store (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from tests.helpers import Clock, StoreFactory
from tests.store.transcripts import T0, finish_step, rich_prompt, start_step

from pausepoint import Prompt
from pausepoint.store import (
    Change,
    RunExistsError,
    RunNotFoundError,
    RunStore,
    StoreConflictError,
    StoreError,
    pending_of,
)
from pausepoint.transcript import AssistantMessage, ResumeResolution, UserMessage


def test_loaded_prompt_is_equal_and_byte_identical(store: RunStore) -> None:
    prompt = rich_prompt()
    assert store.create(prompt, status="interrupted", agent="ops") == 1

    loaded, version = store.load_prompt(prompt.run_id)

    assert version == 1
    assert loaded == prompt
    assert loaded.model_dump_json() == prompt.model_dump_json()
    assert store.export(prompt.run_id) == prompt.model_dump_json()
    assert Prompt.model_validate_json(store.export(prompt.run_id)) == prompt


def test_a_prompt_without_items_or_instructions_round_trips(store: RunStore) -> None:
    prompt = Prompt(run_id="run_empty", instructions=None)
    store.create(prompt, status="ready")
    assert store.load_prompt("run_empty") == (prompt, 1)


def test_appends_and_replacements_land_and_bump_the_version(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_a")
    store.create(prompt, status="running")
    record = start_step(prompt, 1)

    v2 = store.append("run_a", prompt.items[1:], expected_version=1)
    finish_step(record, 1)
    v3 = store.replace("run_a", 2, record, expected_version=v2, status="completed")

    assert (v2, v3) == (2, 3)
    assert store.load_prompt("run_a") == (prompt, 3)
    summary = store.summary("run_a")
    assert (summary.status, summary.version, summary.item_count) == ("completed", 3, 3)


def test_a_stale_writer_gets_a_conflict_and_nothing_is_applied(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_c")
    store.create(prompt, status="running")
    store.append("run_c", [AssistantMessage(text="first")], expected_version=1, status="done")

    with pytest.raises(StoreConflictError) as caught:
        store.write(
            "run_c",
            Change(appended=[AssistantMessage(text="second")], replaced={0: UserMessage(text="x")},
                   status="stale"),
            expected_version=1,
        )  # fmt: skip

    assert (caught.value.expected, caught.value.actual) == (1, 2)
    assert "load_prompt" in str(caught.value)
    loaded, version = store.load_prompt("run_c")
    assert version == 2
    assert [item.model_dump() for item in loaded.items] == [
        UserMessage(text="go").model_dump(),
        AssistantMessage(text="first").model_dump(),
    ]
    assert store.summary("run_c").status == "done"


def test_of_many_concurrent_writers_on_one_version_exactly_one_wins(
    open_store: StoreFactory,
) -> None:
    first = open_store()
    first.create(Prompt.from_user("go", run_id="run_race"), status="running")
    writers = [open_store() for _ in range(4)]
    outcomes: list[str] = []
    barrier = threading.Barrier(len(writers))

    def write(store: RunStore, n: int) -> None:
        barrier.wait()
        try:
            store.append("run_race", [AssistantMessage(text=f"w{n}")], expected_version=1)
            outcomes.append("won")
        except StoreConflictError:
            outcomes.append("conflict")

    threads = [threading.Thread(target=write, args=(s, n)) for n, s in enumerate(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["conflict", "conflict", "conflict", "won"]
    loaded, version = first.load_prompt("run_race")
    assert version == 2
    assert len(loaded.items) == 2


def test_a_refused_replacement_applies_nothing_of_its_change(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_r")
    store.create(prompt, status="running")

    with pytest.raises(StoreError, match="no item at position 5"):
        store.write(
            "run_r",
            Change(appended=[AssistantMessage(text="a")], replaced={5: UserMessage(text="b")}),
            expected_version=1,
        )

    assert store.load_prompt("run_r") == (prompt, 1)


def test_unknown_runs_raise_run_not_found(store: RunStore) -> None:
    calls = [
        lambda: store.load_prompt("run_nope"),
        lambda: store.summary("run_nope"),
        lambda: store.export("run_nope"),
        lambda: store.delete("run_nope"),
        lambda: store.append("run_nope", [UserMessage(text="x")], expected_version=1),
        lambda: store.acquire("run_nope", "me", 10),
        lambda: store.renew("run_nope", "me", 10),
        lambda: store.release("run_nope", "me"),
    ]
    for call in calls:
        with pytest.raises(RunNotFoundError, match="run_nope"):
            call()


def test_creating_a_stored_run_again_is_refused(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_twice")
    store.create(prompt, status="running")
    changed = prompt.model_copy(update={"items": [UserMessage(text="other")]})

    with pytest.raises(RunExistsError):
        store.create(changed, status="ready")

    assert store.load_prompt("run_twice") == (prompt, 1)


def test_delete_removes_the_run_and_its_items(store: RunStore) -> None:
    store.create(rich_prompt("run_del"), status="interrupted")
    store.create(rich_prompt("run_keep"), status="interrupted")

    store.delete("run_del")

    with pytest.raises(RunNotFoundError):
        store.load_prompt("run_del")
    assert [s.run_id for s in store.runs()] == ["run_keep"]
    # The id is free again, and no item of the old run leaks into the new one.
    fresh = Prompt.from_user("again", run_id="run_del")
    store.create(fresh, status="ready")
    assert store.load_prompt("run_del") == (fresh, 1)


def test_listing_shows_status_and_pending_interrupts_newest_first(
    store: RunStore, clock: Clock
) -> None:
    store.create(rich_prompt("run_wait"), status="interrupted", agent="ops")
    clock.advance(10)
    store.create(rich_prompt("run_done", waiting=False), status="completed", agent="ops")
    clock.advance(10)
    store.create(Prompt.from_user("hi", run_id="run_other"), status="running", agent="mail")

    listed = store.runs()
    assert [s.run_id for s in listed] == ["run_other", "run_done", "run_wait"]

    (waiting,) = store.runs(status="interrupted")
    assert waiting.run_id == "run_wait"
    assert waiting.agent == "ops"
    assert waiting.version == 1
    assert waiting.item_count == 6
    (pending,) = waiting.pending
    assert (pending.interrupt_id, pending.kind, pending.message) == (
        "int_pick",
        "generic",
        "Which colour?",
    )
    assert (pending.tool_name, pending.tool_call_id, pending.created_at) == ("pick", "c3", T0)
    assert store.runs(status="completed")[0].pending == ()

    assert {s.run_id for s in store.runs(agent="ops")} == {"run_wait", "run_done"}
    assert {s.run_id for s in store.runs(status=["running", "completed"])} == {
        "run_other",
        "run_done",
    }
    assert [s.run_id for s in store.runs(since=clock.now - timedelta(seconds=10))] == [
        "run_other",
        "run_done",
    ]
    assert [s.run_id for s in store.runs(limit=1)] == ["run_other"]
    assert store.runs(status=[]) == []


def test_a_write_moves_the_run_up_the_listing_and_updates_its_summary(
    store: RunStore, clock: Clock
) -> None:
    waiting = rich_prompt("run_old")
    store.create(waiting, status="interrupted")
    clock.advance(5)
    store.create(Prompt.from_user("x", run_id="run_new"), status="running")
    clock.advance(5)
    _, entry = waiting.pending()[0]
    entry.resolution = ResumeResolution(data={"colour": "red"}, at=T0)

    store.replace(
        "run_old", 5, waiting.items[5], expected_version=1, status="running",
        pending=pending_of(waiting),
    )  # fmt: skip

    first = store.runs()[0]
    assert (first.run_id, first.status, first.pending, first.version) == (
        "run_old",
        "running",
        (),
        2,
    )
    assert first.updated_at == clock.now
    assert first.created_at == clock.now - timedelta(seconds=10)
