"""Fixtures shared by the whole suite, and the markers every test gets from where it lives.

Markers (registered in pyproject.toml) come from a test's folder, its fixtures or the list
of slow tests below, so no test file declares them:

- ``browser``: tests/browser (JupyterLab in headless Chromium);
- ``kernel``: tests/notebooks and tests/kernel (a real Jupyter kernel);
- ``packaging``: tests/packaging (builds and installs the distributions);
- ``postgres``: tests that use the throw-away PostgreSQL server;
- ``temporal``: tests/temporal (a Temporal dev server the tests start);
- ``slow``: tests that take more than a few seconds on a 2-core machine.

``make check`` runs everything that has none of them; ``make test`` runs everything.
Helpers that are not fixtures live in tests/helpers.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers import DeleteRecord, Recorder

from pausepoint import Action, ActionContext, ActionInterrupt, action
from pausepoint.store import TemporaryPostgres

TESTS = Path(__file__).parent

FOLDER_MARKERS = {
    "browser": "browser",
    "kernel": "kernel",
    "notebooks": "kernel",
    "packaging": "packaging",
    "temporal": "temporal",
}

# Files that need PostgreSQL beyond the `postgres_dsn` fixture (they start their own server).
POSTGRES_FILES = {"notebooks/test_durable_notebook.py"}

# Tests over a few seconds each (measured with `pytest --durations`, or over two seconds
# when most of it is a fresh Python process starting): a whole file, or one test by its
# node id without the parameters.
SLOW = {
    "agui/test_agui_client_node.py",
    "agui/test_served_limits.py::test_a_client_that_never_reads_has_its_run_stopped",
    "agui/test_server.py::test_importing_pausepoint_agui_does_not_import_starlette",
    "agui/test_server_command.py",
    "agui/test_tanstack_client_node.py",
    "debug/test_breakpoints.py::test_a_breakpoint_survives_a_save_and_restore_in_a_fresh_process",
    "interrupts/test_tool_definitions.py::test_each_definition_hashes_to_the_digests_of_its_approvals_binding",
    "interrupts/test_tool_definitions.py::test_the_command_line_prints_the_definitions_as_json_and_serves_nothing",
    "interrupts/test_wire_binding.py::test_reader_never_raises",
    "interrupts/test_wire_tanstack_crosscheck.py",
    "models/test_openai_settings.py::test_importing_the_package_does_not_import_openai",
    "run/test_crash_runs.py::test_killed_run_processes_lose_nothing_committed_and_runs_complete",
    "store/test_crash.py::test_killed_writers_leave_every_run_whole_and_every_commit_kept",
    "store/test_model_pause.py::test_a_run_paused_before_the_model_comes_back_paused_in_a_fresh_process",
    "temporal/test_temporal_kills.py",
    "test_iri_format.py::test_the_kernels_iri_check_agrees_with_the_grammar_of_rfc_3987",
    "temporal/test_temporal_view.py::test_a_thousand_temporal_runs_waiting_are_listed_in_the_inbox",
    "test_readme.py::test_readme_script_example_runs_as_a_script",
    "widget/test_inbox_bounds.py::test_a_20_mib_title_message_and_argument_are_sent_bounded_and_whole_on_request",
    "widget/test_inbox_bounds.py::test_a_read_only_run_with_a_20_mib_agent_name_and_message_is_sent_cut",
    "widget/test_inbox_bounds.py::test_a_run_with_a_20_mib_id_is_listed_cut_and_answered_by_that_id",
    "widget/test_inbox_pushed.py::test_on_sqlite_the_inbox_lists_nothing_while_nothing_changes",
    "workers/test_kill_workers.py",
    "workers/test_worker_command.py",
}


def _slow(relative: str, item: pytest.Item) -> bool:
    if relative in SLOW:
        return True
    name = getattr(item, "originalname", item.name)
    return f"{relative}::{name}" in SLOW


def _uses_postgres(item: pytest.Item) -> bool:
    if "postgres_dsn" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and callspec.params.get("open_store") == "postgres"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        try:
            relative = item.path.relative_to(TESTS).as_posix()
        except ValueError:
            continue
        folder = relative.split("/", 1)[0]
        if folder in FOLDER_MARKERS:
            item.add_marker(FOLDER_MARKERS[folder])
        if relative in POSTGRES_FILES or _uses_postgres(item):
            item.add_marker("postgres")
        if _slow(relative, item):
            item.add_marker("slow")


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A throw-away PostgreSQL server for the session (Debian's `postgresql` package).
    Without it the Postgres cases skip locally, and fail under CI=true, where it must be
    installed."""
    reason = TemporaryPostgres.unavailable()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required under CI: {reason}")
        pytest.skip(reason)
    with TemporaryPostgres() as server:
        yield server.dsn


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def delete_record(recorder: Recorder) -> Action:
    @action
    async def delete_record(input: DeleteRecord, ctx: ActionContext) -> str:
        """Delete a record by id."""
        recorder.contexts.append(ctx)
        recorder.inputs.append(input)
        if ctx.resumption is None:
            raise ActionInterrupt(
                "Approve deleting the record?", {"recordId": input.id}, state={"checked": True}
            )
        if not ctx.resumption.data.get("approved"):
            return "kept"
        return f"deleted {input.id}"

    return delete_record
