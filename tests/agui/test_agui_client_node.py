"""The real ``@ag-ui/client`` npm package drives our server through an approval and a
question with a response schema, continuing each time with the resume batch it builds.

The pinned package (tests/node/package.json) is installed as the TanStack cross-check's
is; skipped without node and npm, required when CI=true."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.agui.served_agent import FINAL_TEXT, build, executions
from tests.agui.serving import Served
from tests.interrupts.tanstack_node import NODE_DIR, _unavailable, install_pinned_package

from pausepoint.agui import app
from pausepoint.interrupts import BINDING_METADATA_KEY
from pausepoint.store import SQLiteStore
from pausepoint.transcript import Prompt

pytestmark = pytest.mark.node

SCRIPT = NODE_DIR / "agui_client.mjs"
CALL_TIMEOUT_SECONDS = 120


@pytest.fixture(scope="module")
def node_modules() -> tuple[str, Path]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _unavailable("node and npm are needed to drive the server with @ag-ui/client.")
    return node, install_pinned_package(npm)


def drive(node_modules: tuple[str, Path], url: str, thread_id: str) -> dict[str, Any]:
    node, modules = node_modules
    done = subprocess.run(
        [node, str(SCRIPT), url, thread_id],
        capture_output=True,
        text=True,
        timeout=CALL_TIMEOUT_SECONDS,
        env={**os.environ, "PAUSEPOINT_NODE_MODULES": str(modules)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize("mode", ["stateless", "store"])
def test_the_ag_ui_client_takes_a_run_through_an_approval_and_a_question_to_success(
    node_modules: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    count = tmp_path / "executions.txt"
    store = SQLiteStore(tmp_path / "runs.db") if mode == "store" else None
    with Served(app(build(count), store, secret="shared by the tests, long enough")) as server:
        report = drive(node_modules, server.url + "/", "node-thread")

    assert report["version"] == "1.0.0"
    asked, approved, finished = report["runs"]
    assert [run["errors"] for run in report["runs"]] == [[], [], []]
    assert [run["outcome"] for run in report["runs"]] == ["interrupt", "interrupt", "success"]
    [approval] = asked["interrupts"]
    assert approval["metadata"][BINDING_METADATA_KEY]["kind"] == "tool-approval"
    [question] = approved["interrupts"]
    assert question["metadata"][BINDING_METADATA_KEY]["kind"] == "generic"
    assert question["responseSchema"]["properties"]["speed"]["enum"] == ["slow", "fast"]
    for run in report["runs"]:
        assert run["events"][0] == "RUN_STARTED"
        assert run["events"][-1] == "RUN_FINISHED"
    assert "TOOL_CALL_RESULT" in approved["events"]
    assert finished["interrupts"] == []
    assert report["pendingAfter"] == 0
    assert [(m["role"], m.get("content")) for m in report["messages"]] == [
        ("user", "Refund order 42"),
        ("assistant", "Refunding order 42."),
        ("tool", '{"refunded": 30.0}'),
        ("assistant", None),
        ("tool", "shipping fast"),
        ("assistant", FINAL_TEXT),
    ]
    assert executions(count) == ["refund", "ship fast"]
    if mode == "stateless":
        sealed = Prompt.model_validate_json(report["state"]["pausepoint"]["transcript"])
        assert sealed.output == FINAL_TEXT
    else:
        assert store is not None
        assert "pausepoint" not in report["state"]
        assert store.load_prompt("node-thread")[0].output == FINAL_TEXT
