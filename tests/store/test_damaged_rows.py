"""A row changed outside pausepoint damages its own run only, on every store: listings
still show it with what is wrong, loading it raises `DamagedRunError` naming it, and
every other run reads as before."""

from __future__ import annotations

from typing import Any

import pytest
from tests.store.transcripts import rich_prompt

from pausepoint.store import DamagedRunError, PostgresStore, RunStore, SQLiteStore, StoreError


def edit(store: RunStore, statement: str, *params: Any) -> None:
    """Change the database behind the store's back, as a person with a SQL shell would."""
    if isinstance(store, SQLiteStore):
        import sqlite3

        with sqlite3.connect(store.path) as conn:
            conn.execute(statement, params)
        return
    import psycopg

    assert isinstance(store, PostgresStore)
    with psycopg.connect(store.dsn, autocommit=True) as conn:
        conn.execute(statement.replace("?", "%s"), params)


def two_waiting_runs(store: RunStore) -> tuple[str, str]:
    for run_id in ("run_ok", "run_broken"):
        store.create(rich_prompt(run_id), status="interrupted", agent="ops")
    return "run_ok", "run_broken"


@pytest.mark.parametrize(
    ("column", "value", "named"),
    [
        ("pending", "{not json", "pending column is not JSON"),
        ("pending", '{"a": 1}', "pending column is not a list"),
        ("pending", '[{"interrupt_id": 5}]', "pending column does not list interrupts"),
    ],
)
def test_a_header_column_that_does_not_read_leaves_the_run_listed_with_the_damage(
    store: RunStore, column: str, value: str, named: str
) -> None:
    ok, broken = two_waiting_runs(store)
    edit(store, f"UPDATE pausepoint_runs SET {column} = ? WHERE run_id = ?", value, broken)

    listed = {s.run_id: s for s in store.runs(status="interrupted")}

    assert set(listed) == {ok, broken}
    assert listed[ok].damage is None
    assert [p.interrupt_id for p in listed[ok].pending] == ["int_pick"]
    damage = listed[broken].damage
    assert damage is not None
    assert named in damage
    assert listed[broken].pending == ()
    assert store.summary(broken).damage == damage
    assert store.load_prompt(ok)[0] == rich_prompt(ok)


def test_an_unreadable_time_in_a_sqlite_row_is_damage_not_a_crash(tmp_path: Any) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    ok, broken = two_waiting_runs(store)
    edit(store, "UPDATE pausepoint_runs SET updated_at = 'yesterday' WHERE run_id = ?", broken)

    listed = {s.run_id: s for s in store.runs()}

    damage = listed[broken].damage
    assert damage is not None
    assert "update time is unreadable" in damage
    assert listed[ok].damage is None


@pytest.mark.parametrize(
    ("item", "named"),
    [
        ("not json at all", "Invalid JSON"),
        ('{"type": "user"}', "at items[0]"),
    ],
)
def test_a_transcript_that_does_not_load_raises_damaged_run_error_naming_the_run(
    store: RunStore, item: str, named: str
) -> None:
    ok, broken = two_waiting_runs(store)
    edit(
        store,
        "UPDATE pausepoint_items SET item = ? WHERE run_id = ? AND position = 0",
        item,
        broken,
    )

    with pytest.raises(DamagedRunError) as caught:
        store.load_prompt(broken)

    assert isinstance(caught.value, StoreError)
    assert caught.value.run_id == broken
    assert caught.value.reason.startswith("its transcript does not load")
    assert named in caught.value.reason
    assert broken in str(caught.value)
    assert store.load_prompt(ok)[0] == rich_prompt(ok)


def test_missing_items_are_damage_naming_the_run(store: RunStore) -> None:
    _, broken = two_waiting_runs(store)
    edit(store, "DELETE FROM pausepoint_items WHERE run_id = ? AND position = 1", broken)

    with pytest.raises(DamagedRunError, match="transcript items but") as caught:
        store.load_prompt(broken)

    assert caught.value.run_id == broken


def test_a_model_pause_column_that_is_not_json_is_damage(store: RunStore) -> None:
    _, broken = two_waiting_runs(store)
    edit(store, "UPDATE pausepoint_runs SET model_pause = '{' WHERE run_id = ?", broken)

    with pytest.raises(DamagedRunError, match="not JSON"):
        store.load_prompt(broken)


def test_a_version_that_is_not_a_number_is_damage_not_an_endless_reload(tmp_path: Any) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    _, broken = two_waiting_runs(store)
    edit(store, "UPDATE pausepoint_runs SET version = 1.5 WHERE run_id = ?", broken)

    assert store.summary(broken).damage is not None
    with pytest.raises(DamagedRunError, match="not a number"):
        store.load_prompt(broken)
