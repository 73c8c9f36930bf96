"""Notebook 08 tells its story: a run paused by another process is answered here from the
inbox, an overnight batch is cleared, and the same works on PostgreSQL (or says why not)."""

from __future__ import annotations

import os
import re
import tempfile

import pytest
from nbformat import NotebookNode
from tests.notebooks.test_notebooks import cell_with, errors, execute, text

from pausepoint.store import TemporaryPostgres

NAME = "08-durable-runs.ipynb"
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def nb(tmp_path_factory: pytest.TempPathFactory) -> NotebookNode:
    # The system's temporary folder, not pytest's: as root, TemporaryPostgres runs the
    # server as the postgres user, who cannot enter pytest's private folders.
    return execute(NAME, tmp_path_factory.mktemp("08"), {"TMPDIR": tempfile.gettempdir()})


def shows_widget(cell: NotebookNode) -> bool:
    return any(WIDGET in output.get("data", {}) for output in cell.get("outputs", []))


def test_durable_notebook_runs_without_errors(nb: NotebookNode) -> None:
    problems = errors(nb)
    assert not problems, "\n\n".join(problems)


def test_run_paused_in_another_process_is_answered_here(nb: NotebookNode) -> None:
    paused = text(cell_with(nb, 'other_kernel("start", DB, "Pay invoice 1001'))
    assert "'Pay invoice 1001: 250 EUR': interrupted - Approve running pay_invoice?" in paused
    assert shows_widget(cell_with(nb, 'box = pausepoint.inbox(store, agents={"payments": agent})'))
    answered = text(cell_with(nb, "result = await run.resume(True)  # the Approve button"))
    assert answered.startswith("Not answered in the inbox: approving from code.\n")
    assert "completed - Done: invoice 1001 paid (250.00 EUR)." in answered
    assert answered.rstrip().endswith("waiting in the inbox: 0")


def test_other_process_reads_the_completed_run_back(nb: NotebookNode) -> None:
    shown = text(cell_with(nb, 'other_kernel("show", DB, paid.run_id)'))
    assert shown.strip() == "completed: Done: invoice 1001 paid (250.00 EUR)."


def test_overnight_batch_is_listed_then_cleared(nb: NotebookNode) -> None:
    started = text(cell_with(nb, "INVOICES = {"))
    assert started.count(": interrupted - Approve running pay_invoice?") == 4
    assert shows_widget(cell_with(nb, "box.refresh()\nbox"))
    listed = text(cell_with(nb, 'page = box.rows(sort="-amount")  # what the list shows'))
    rows = re.findall(
        r"(\d+\.\d\d) EUR  Pay invoice \d+: \d+ EUR  \(payments, tool-approval\)", listed
    )
    assert [float(amount) for amount in rows] == [9500, 120, 80, 45]  # largest first
    assert "matching '9500': 1" in listed

    cleared = text(cell_with(nb, "await box.decline(large"))
    paid = r"EUR: answered, completed - Done: invoice 100[235] paid"
    assert len(re.findall(paid, cleared)) == 3
    assert (
        "9500.00 EUR: answered, completed - Not paid: Over 1000 EUR: needs the finance "
        "director's" in cleared
    )
    assert "waiting in the inbox: 0\nwaiting in the store: 0" in cleared

    stored = text(cell_with(nb, 'for summary in store.runs(agent="payments")')).strip().splitlines()
    assert len(stored) == 5
    assert all(" completed (" in line for line in stored)


def test_postgres_part_runs_or_says_why_not(nb: NotebookNode) -> None:
    started = text(cell_with(nb, "reason = TemporaryPostgres.unavailable()"))
    answered_cell = cell_with(nb, "pg_store = PostgresStore(server.dsn)")
    answered = text(answered_cell)
    if os.environ.get("CI") == "true" or TemporaryPostgres.unavailable() is None:
        assert started.startswith("'Pay invoice 2001"), f"PostgreSQL did not run: {started}"
        assert "'Pay invoice 2001: 300 EUR': interrupted - Approve running" in started
        assert "answered here: completed - Done: invoice 2001 paid (300.00 EUR)." in answered
        assert "waiting in the PostgreSQL inbox: 0" in answered
        assert (
            "read back by the other kernel: completed: Done: invoice 2001 paid (300.00 EUR)."
            in answered
        )
        assert "PostgreSQL server stopped" in text(cell_with(nb, "server.stop()"))
        assert shows_widget(answered_cell)
    else:
        reason = TemporaryPostgres.unavailable()
        assert started.strip() == f"Skipping the PostgreSQL part: {reason}"
        assert answered.strip() == "Skipped: no PostgreSQL server."


def test_two_worker_processes_carry_a_stored_batch_after_a_bulk_approval(
    nb: NotebookNode,
) -> None:
    first = text(cell_with(nb, "BATCH = {")).strip().splitlines()
    assert first == [
        "6 runs stored here, none started",
        "the workers ran each to its approval: {'interrupted'}",
    ]

    second = text(cell_with(nb, "work_box = pausepoint.inbox(")).strip().splitlines()
    assert second[0] == str(["answered"] * 6)
    paid = [f"Done: invoice {n} paid ({eur:.2f} EUR)." for n, eur in BATCH.items()]
    assert second[1:7] == paid
    said = [
        re.fullmatch(
            r"Worker (w[12]) stopped: (\d+) runs claimed, (\d+) completed, (\d+) waiting for "
            r"a person, 0 failed, 0 left to others; \d+ model turns",
            line,
        )
        for line in second[7:]
    ]
    assert [m.group(1) for m in said if m] == ["w1", "w2"], second[7:]
    tallies = [(int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in said if m]
    # Each run claimed once to its question and once after its answer, by either worker.
    assert [sum(column) for column in zip(*tallies, strict=True)] == [12, 6, 6]


BATCH = {3001: 60, 3002: 75, 3003: 410, 3004: 95, 3005: 130, 3006: 20}
