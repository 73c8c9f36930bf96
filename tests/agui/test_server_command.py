"""``python -m pausepoint.agui module:agent``: the command line serves a user's module."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from tests.agui import served_agent
from tests.agui.served_agent import executions
from tests.agui.serving import Command, answer, ending, frames, interrupts, run_input

from pausepoint.agui._cli import main


def beside(folder: Path) -> Path:
    """The served agent copied into `folder` as a user's own module, refunds.py."""
    shutil.copyfile(served_agent.__file__, folder / "refunds.py")
    return folder


def test_the_command_serves_an_agent_from_a_module_beside_it(tmp_path: Path) -> None:
    count = tmp_path / "executions.txt"
    env = {served_agent.COUNT_ENV: str(count), "AGENT_TOKEN": "s3cret-token"}
    args = ["refunds:agent", "--store", f"sqlite:{tmp_path / 'runs.db'}", "--token-env"]
    with Command([*args, "AGENT_TOKEN"], cwd=beside(tmp_path), env=env) as server:
        headers = {"authorization": "Bearer s3cret-token"}
        described = httpx.get(server.url + "/", headers=headers).json()
        unauthorized = httpx.post(server.url + "/", json=run_input("t", "r0", text="Hi"))
        first = httpx.post(
            server.url + "/", json=run_input("t", "r1", text="Refund order 42"), headers=headers
        )
        [approval] = interrupts(frames(first.text))
        second = httpx.post(
            server.url + "/",
            json=run_input("t", "r2", resume=[answer(approval["id"], {"approved": False})]),
            headers=headers,
        )

    assert described["agent"] == "refunds"
    assert unauthorized.status_code == 401
    assert ending(frames(second.text))["type"] == "RUN_FINISHED"
    assert executions(count) == []  # declined: the refund never ran
    assert "Serving refunds:agent over AG-UI" in server.output()


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("refunds", "write module:attribute"),
        ("no_such_module:agent", "No module named 'no_such_module'"),
        ("refunds:nobody", "has no attribute 'nobody'"),
        ("refunds:FINAL_TEXT", "not an Agent"),
    ],
)
def test_an_agent_that_cannot_be_found_is_one_sentence_and_exit_status_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    spec: str,
    says: str,
) -> None:
    monkeypatch.chdir(beside(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path))

    assert main([spec]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ")
    assert says in error
    assert "Traceback" not in error


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--store", "mysql://db"], "is not a store URL"),
        (["--store", "sqlite:"], "needs a file path"),
        (["--secret-env", "PAUSEPOINT_TEST_UNSET"], "PAUSEPOINT_TEST_UNSET"),
        (["--path", "agent"], "path must start with '/'"),
    ],
)
def test_options_that_cannot_be_served_are_one_sentence_and_exit_status_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    says: str,
) -> None:
    monkeypatch.chdir(beside(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("PAUSEPOINT_TEST_UNSET", raising=False)

    assert main(["refunds:agent", *args]) == 2
    assert says in capsys.readouterr().err


def test_a_bad_agent_reference_from_the_shell_prints_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pausepoint.agui", "refunds:missing"],
        cwd=beside(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 2
    assert done.stderr.strip() == "error: Module 'refunds' has no attribute 'missing'."
