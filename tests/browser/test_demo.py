"""`make demo` from a fresh clone, as a new user meets it: the address it prints opens the
quickstart in JupyterLab and its card is answered by a click; the same environment's
`jupyter notebook` (Notebook 7) does the same; and notebook 09 runs to its end there with
nothing installed by hand. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from playwright.sync_api import expect
from tests.browser.helpers import Lab, Notebook, _free_port
from tests.browser.test_notebook7 import approve_the_quickstart

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = "notebooks/01-quickstart.ipynb"
# What `make demo` leaves on the screen: Jupyter's own line with the quickstart's address.
PRINTED = re.compile(r"http://127\.0\.0\.1:\d+/lab/tree/notebooks/01-quickstart\.ipynb\?token=\w+")
# The whole set-up (front end, a new virtual environment, the demo extra) on a busy machine.
SET_UP = 1800.0


@dataclass
class Demo:
    clone: Path
    base: Path
    env: dict[str, str]
    address: str
    log: Path

    @property
    def bin(self) -> Path:
        return self.clone / ".venv" / "bin"


def _isolated(base: Path) -> dict[str, str]:
    """The user's environment with Jupyter's own folders under `base` and nothing of this
    checkout's interpreter: what runs, runs from the clone's .venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    settings = base / "settings"
    for name, text in {
        # Every cell rendered, so the test finds cells scrolled out of view.
        "notebook-extension/tracker": '{"windowingMode": "none"}',
        "apputils-extension/notification": '{"fetchNews": "false", "checkForUpdates": false}',
    }.items():
        path = settings / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env.update(
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTER_DATA_DIR=str(base / "data"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        IPYTHONDIR=str(base / "ipython"),
    )
    return env


def _stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _wait_for(log: Path, pattern: re.Pattern[str], process: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + SET_UP  # a budget for a busy machine, not a requirement
    while True:
        found = pattern.search(log.read_text(errors="replace"))
        if found:
            return found.group(0)
        if process.poll() is not None or time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-4000:]
            pytest.fail(f"{pattern.pattern} never appeared; the output ends:\n{tail}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    """`make demo` in a fresh clone of this commit, as the README says, with the options
    it documents for a headless machine; the JupyterLab it starts runs until the tests end."""
    base = tmp_path_factory.mktemp("demo")
    clone = base / "pausepoint"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = _isolated(base)
    # Jupyter makes the token and prints it; the test reads the page through `jupyterapp`.
    args = "--no-browser --ip=127.0.0.1 --LabApp.expose_app_in_browser=True"
    log = base / "make-demo.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["make", "demo", f"PORT={_free_port()}", f"LAB_ARGS={args}"],
            cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        address = _wait_for(log, PRINTED, process)
        yield Demo(clone, base, env, address, log)
    finally:
        _stop(process)


def _fresh_notebooks(demo: Demo) -> None:
    """The clone's notebooks as committed (another test may have saved one)."""
    subprocess.run(["git", "-C", str(demo.clone), "checkout", "--", "notebooks"], check=True)


def _page(browser: Any, url: str) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    return page


def _approve_the_quickstart(nb: Notebook, label: str) -> None:
    nb.wait_kernel_idle(timeout=120_000)
    approve_the_quickstart(nb, label)


def test_the_address_make_demo_prints_opens_the_quickstart_and_its_card_answers(
    demo: Demo, browser: Any
) -> None:
    _fresh_notebooks(demo)
    page = _page(browser, demo.address)
    try:
        server, token = demo.address.split("/lab/")[0], demo.address.split("token=")[1]
        nb = Notebook(page, Lab(url=server, token=token, root=demo.clone), "demo-lab")
        # The address opens the quickstart itself, not the Launcher.
        title = page.locator(".lm-TabBar-tab.jp-mod-current .lm-TabBar-tabLabel").first
        expect(title).to_have_text("01-quickstart.ipynb", timeout=120_000)
        _approve_the_quickstart(nb, "demo-lab")
    finally:
        page.context.close()


def test_notebook_7_from_the_demos_environment_answers_the_quickstart(
    demo: Demo, browser: Any
) -> None:
    _fresh_notebooks(demo)
    assert (demo.bin / "jupyter-notebook").exists(), "make demo installs Notebook 7"
    port = _free_port()
    log = demo.base / "notebook7.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                demo.bin / "jupyter", "notebook", "--no-browser", "--ip=127.0.0.1",
                f"--port={port}", "--allow-root",
                "--JupyterNotebookApp.expose_app_in_browser=True",
            ],
            cwd=demo.clone, env=demo.env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        printed = _wait_for(
            log, re.compile(rf"http://127\.0\.0\.1:{port}/tree\?token=\w+"), process
        )
        token = printed.split("token=")[1]
        url = f"http://127.0.0.1:{port}/notebooks/{QUICKSTART}?token={token}"
        page = _page(browser, url)
        try:
            nb = Notebook(page, Lab(url=url, token=token, root=demo.clone), "demo-n7")
            _approve_the_quickstart(nb, "demo-n7")
        finally:
            page.context.close()
    finally:
        _stop(process)


def test_notebook_09_runs_to_its_end_in_the_demos_environment(demo: Demo) -> None:
    _fresh_notebooks(demo)
    out = demo.base / "09-executed.ipynb"
    result = subprocess.run(
        [
            demo.bin / "jupyter", "nbconvert", "--to", "notebook", "--execute",
            "--ExecutePreprocessor.timeout=600", f"--output={out}",
            "notebooks/09-remote-agents.ipynb",
        ],
        cwd=demo.clone, env=demo.env, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    nb = nbformat.read(out, as_version=4)
    printed = "".join(
        output.get("text", "")
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if output.output_type == "stream"
    )
    assert "pip install" not in printed  # nothing the notebook shows is skipped
    assert "Done: refunded 25.00 on order 42." in printed  # the LangGraph part ran
    assert "Done: subscription 314 cancelled." in printed  # the Pydantic AI part ran
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
