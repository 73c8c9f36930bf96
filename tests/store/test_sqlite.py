"""SQLiteStore specifics: WAL, threads and processes on one file, the schema version."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest
from tests.store.transcripts import rich_prompt

from pausepoint import Prompt
from pausepoint.store import (
    STORE_SCHEMA_VERSION,
    SQLiteStore,
    StoreConflictError,
    StoreSchemaError,
)
from pausepoint.transcript import AssistantMessage


def test_the_file_uses_write_ahead_logging(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "runs.db").close()
    with sqlite3.connect(tmp_path / "runs.db") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("SELECT version FROM pausepoint_schema").fetchall() == [
            (STORE_SCHEMA_VERSION,)
        ]


def test_listing_runs_reads_no_transcript_rows(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    for n in range(3):
        store.create(rich_prompt(f"run_{n}"), status="interrupted")
    statements: list[str] = []
    store._connection().set_trace_callback(statements.append)

    listed = store.runs(status="interrupted")

    assert len(listed) == 3
    assert all(len(s.pending) == 1 for s in listed)
    assert statements
    assert not [s for s in statements if "pausepoint_items" in s]


def test_a_store_written_by_a_newer_version_is_refused(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "runs.db").close()
    with sqlite3.connect(tmp_path / "runs.db") as raw:
        raw.execute("UPDATE pausepoint_schema SET version = ?", (STORE_SCHEMA_VERSION + 1,))

    with pytest.raises(StoreSchemaError, match="Upgrade pausepoint"):
        SQLiteStore(tmp_path / "runs.db")


@pytest.mark.parametrize("where", ["file", "memory"])
def test_threads_share_one_store(tmp_path: Path, where: str) -> None:
    store = SQLiteStore(tmp_path / "runs.db" if where == "file" else ":memory:")
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            store.create(Prompt.from_user("go", run_id=f"run_{n}"), status="running")
            for step in range(25):
                store.append(
                    f"run_{n}", [AssistantMessage(text=f"{n}.{step}")], expected_version=step + 1
                )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    for n in range(6):
        prompt, version = store.load_prompt(f"run_{n}")
        assert version == 26
        assert [i.text for i in prompt.items[1:]] == [f"{n}.{s}" for s in range(25)]  # type: ignore[union-attr]
    store.close()


def _append_with_retries(path: str, name: str, count: int) -> None:
    store = SQLiteStore(path)
    written = 0
    while written < count:
        version = store.summary("run_shared").version
        try:
            store.append(
                "run_shared", [AssistantMessage(text=f"{name}:{written}")], expected_version=version
            )
            written += 1
        except StoreConflictError:
            continue
    store.close()


def test_processes_share_one_file_and_no_write_is_lost(tmp_path: Path) -> None:
    path = str(tmp_path / "runs.db")
    SQLiteStore(path).create(Prompt.from_user("go", run_id="run_shared"), status="running")
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_append_with_retries, args=(path, f"p{n}", 40)) for n in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0, 0]

    prompt, version = SQLiteStore(path).load_prompt("run_shared")
    assert version == 121
    texts = [item.text for item in prompt.items[1:]]  # type: ignore[union-attr]
    for n in range(3):
        assert [t for t in texts if t.startswith(f"p{n}:")] == [f"p{n}:{i}" for i in range(40)]
