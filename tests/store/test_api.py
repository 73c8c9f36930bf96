"""The store package's surface: examples that run, errors that say what to do."""

from __future__ import annotations

import doctest
import sys
from pathlib import Path

import pytest

import pausepoint
import pausepoint.store._contract
import pausepoint.store._writer
from pausepoint import PausepointError, Prompt
from pausepoint.store import (
    Change,
    PostgresMissingError,
    PostgresStore,
    RunStore,
    RunWriter,
    SQLiteStore,
    StoreUsageError,
)
from pausepoint.transcript import UserMessage


@pytest.mark.parametrize("module", [pausepoint.store._contract, pausepoint.store._writer])
def test_docstring_examples_run(
    module: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(module, raise_on_error=False)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0


def test_the_main_classes_are_exported_from_the_package() -> None:
    assert pausepoint.SQLiteStore is SQLiteStore
    assert pausepoint.PostgresStore is PostgresStore
    assert pausepoint.store.RunWriter is RunWriter
    assert issubclass(SQLiteStore, pausepoint.RunStore)


def test_postgres_without_psycopg_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(PostgresMissingError, match=r"pausepoint\[postgres\]"):
        PostgresStore("postgresql://nowhere/db")


def test_a_closed_store_refuses_work(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    store.close()
    with pytest.raises(StoreUsageError, match="closed"):
        store.runs()


def test_misuse_raises_pausepoint_errors_and_writes_nothing(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_m")
    writer = RunWriter.create(store, prompt, status="running")

    with pytest.raises(StoreUsageError):
        store.write("run_m", Change(replaced={-1: UserMessage(text="x")}), expected_version=1)
    with pytest.raises(StoreUsageError, match="position 9"):
        writer.save(prompt, changed=[9])
    with pytest.raises(StoreUsageError, match="holds no lease"):
        writer.renew(10)

    assert issubclass(StoreUsageError, PausepointError)
    assert store.load_prompt("run_m") == (prompt, 1)
