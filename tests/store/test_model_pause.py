"""A stepping run's pause before a model request is stored like the rest of the run."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers import StoreFactory

from pausepoint import Agent, Prompt, ScriptedModel
from pausepoint.store import (
    STORE_SCHEMA_VERSION,
    Change,
    PostgresStore,
    RunStore,
    RunWriter,
    SQLiteStore,
)
from pausepoint.transcript import ModelPause

ROOT = Path(__file__).parents[2]


def reopen(store: RunStore) -> str:
    """Python that opens the same database in another process."""
    if isinstance(store, SQLiteStore):
        return f"SQLiteStore({store.path!r})"
    assert isinstance(store, PostgresStore)
    return f"PostgresStore({store.dsn!r})"


def test_a_model_pause_round_trips_and_is_written_and_cleared(store: RunStore) -> None:
    prompt = Prompt.from_user("hi", run_id="run_p")
    prompt.model_pause = ModelPause()
    store.create(prompt, status="paused")
    assert store.load_prompt("run_p") == (prompt, 1)

    v2 = store.write("run_p", Change(model_pause=None, status="running"), expected_version=1)
    loaded, _ = store.load_prompt("run_p")
    assert loaded.model_pause is None

    pause = ModelPause()
    store.write("run_p", Change(model_pause=pause), expected_version=v2)
    assert store.load_prompt("run_p")[0].model_pause == pause


def test_the_writer_saves_a_model_pause_that_came_or_went(store: RunStore) -> None:
    prompt = Prompt.from_user("hi", run_id="run_w")
    writer = RunWriter.create(store, prompt, status="running")

    prompt.model_pause = ModelPause()
    v2 = writer.save(prompt, status="paused")
    assert store.load_prompt("run_w") == (prompt, v2)

    prompt.model_pause = None
    v3 = writer.save(prompt)
    assert v3 == v2 + 1
    assert store.load_prompt("run_w")[0].model_pause is None


async def test_a_run_paused_before_the_model_comes_back_paused_in_a_fresh_process(
    store: RunStore, open_store: StoreFactory
) -> None:
    agent = Agent(model=ScriptedModel(["Hello."]))
    run = agent.new_run("hi", store=store, step=True)
    paused = await run.run()
    assert paused.status == "paused"
    program = textwrap.dedent(
        f"""
        import asyncio, json
        from pausepoint import Agent, ScriptedModel
        from pausepoint.store import PostgresStore, SQLiteStore
        from pausepoint.widget import RunView

        async def main():
            store = {reopen(store)}
            run = Agent(model=ScriptedModel(["Hello."])).load({run.id!r}, store)
            loaded = (RunView(run).status, run.debug.before_model)
            result = await run.debug.continue_()
            print(json.dumps({{"loaded": loaded, "status": result.status}}))

        asyncio.run(main())
        """
    )
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=120,
    )

    report = json.loads(done.stdout)
    assert report == {"loaded": ["paused", True], "status": "completed"}
    stored, _ = open_store().load_prompt(run.id)
    assert stored.model_pause is None
    assert stored.output == "Hello."


def raw_sql(store: RunStore, *statements: str) -> list[tuple[object, ...]]:
    """Run statements on the store's database directly; the last one's rows."""
    rows: list[tuple[object, ...]] = []
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(store.path) as db:
            for statement in statements:
                rows = db.execute(statement).fetchall()
        return rows
    import psycopg

    assert isinstance(store, PostgresStore)
    with psycopg.connect(store.dsn, autocommit=True) as db:
        for statement in statements:
            cur = db.execute(statement)
            rows = cur.fetchall() if cur.description else []
    return rows


def test_a_version_1_database_gains_the_column_and_keeps_its_runs(
    open_store: StoreFactory,
) -> None:
    old = open_store()
    old.create(Prompt.from_user("hi", run_id="run_old"), status="completed")
    raw_sql(  # as pausepoint with store schema 1 left it
        old,
        "ALTER TABLE pausepoint_runs DROP COLUMN model_pause",
        *(
            f"ALTER TABLE pausepoint_runs DROP COLUMN {column}"  # added by version 3
            for column in ("title", "pause_kind", "pause_args", "ignored_by", "ignored_at")
        ),
        "ALTER TABLE pausepoint_runs DROP COLUMN fork_origin",  # added by version 4
        "ALTER TABLE pausepoint_runs DROP COLUMN owner",  # added by version 5
        "UPDATE pausepoint_schema SET version = 1",
    )

    store = open_store()
    pause = ModelPause()
    store.write("run_old", Change(model_pause=pause), expected_version=1)

    assert store.load_prompt("run_old")[0].model_pause == pause
    assert raw_sql(store, "SELECT version FROM pausepoint_schema") == [(STORE_SCHEMA_VERSION,)]
