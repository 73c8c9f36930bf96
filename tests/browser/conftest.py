"""JupyterLab in headless Chromium: a server per session, a fresh page per test.

Chromium comes from the system (Debian's package); tests skip without it locally and fail
in CI (CI=true), where .ci/run installs it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(os.environ.get("PAUSEPOINT_ARTIFACTS", "test-artifacts")).resolve() / "browser"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The slowest tests run last, so a quick failure elsewhere shows first.
    items.sort(key=lambda item: "tests/browser" in str(item.path))
    if CHROMIUM is not None:
        return
    if os.environ.get("CI") == "true":
        raise pytest.UsageError(
            "Browser tests need Chromium, and CI=true forbids skipping them: install it "
            "with `apt-get install -y chromium` (.ci/run does)."
        )
    for item in items:
        if "tests/browser" in str(item.path):
            item.add_marker(pytest.mark.skip(reason="chromium is not installed"))


@dataclass
class Lab:
    url: str
    token: str
    root: Path

    def api(self, method: str, path: str) -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    root.mkdir()
    settings = base / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Render every cell, so locators find cells that are scrolled out of view.
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    notifications = base / "settings" / "@jupyterlab" / "apputils-extension"
    notifications.mkdir(parents=True)
    (notifications / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    token = uuid.uuid4().hex
    port = _free_port()
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "IPYTHONDIR": str(base / "ipython"),
        "PYTHONPATH": os.pathsep.join([str(Path.cwd()), os.environ.get("PYTHONPATH", "")]),
    }
    log = (base / "lab.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1",
            f"--port={port}", f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}", "--allow-root",
            "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    instance = Lab(url=f"http://127.0.0.1:{port}", token=token, root=root)
    deadline = time.monotonic() + 60
    while True:
        try:
            instance.api("GET", "/api/status")
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"JupyterLab did not start; see {base / 'lab.log'}") from None
            time.sleep(0.3)
    yield instance
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope: Playwright's sync API keeps an event loop running in this thread while
    # it is started, which async tests elsewhere must not meet.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield instance
        instance.close()


class Notebook:
    """One notebook open in JupyterLab: run cells, read outputs, find widget elements."""

    def __init__(self, page: Any, lab: Lab, name: str) -> None:
        self.page = page
        self.lab = lab
        self.name = name

    def wait_kernel_idle(self, timeout: float = 60_000) -> None:
        self.page.wait_for_function(
            "() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel"
            "?.status === 'idle'",
            timeout=timeout,
        )

    def run_all(self) -> None:
        self.page.evaluate(
            "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }"
        )

    def run_cell(self, index: int) -> None:
        self.page.evaluate(
            """(i) => {
                const panel = window.jupyterapp.shell.currentWidget;
                panel.content.activeCellIndex = i;
                window.jupyterapp.commands.execute('notebook:run-cell');
            }""",
            index,
        )

    def cell(self, index: int) -> Any:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def output(self, index: int) -> Any:
        return self.cell(index).locator(".jp-OutputArea-output")

    def widget(self, index: int = 0) -> Any:
        return self.page.locator(".jp-OutputArea-output .pp-root").nth(index)

    def screenshot(self, label: str) -> Path:
        """The page as the user sees it, and each view whole (the notebook scrolls)."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{label}.png"
        self.page.screenshot(path=str(path))
        views = self.page.locator(".jp-OutputArea-output .pp-root")
        for i in range(views.count()):
            views.nth(i).screenshot(path=str(ARTIFACTS / f"{label}-view{i}.png"))
        print(f"screenshots: {ARTIFACTS}/{label}*.png")
        return path


@pytest.fixture
def open_notebook(lab: Lab, browser: Any) -> Iterator[Any]:
    """Write cells into a notebook, open it in a fresh workspace, and return a `Notebook`."""
    contexts: list[Any] = []

    def open_(name: str, cells: list[str]) -> Notebook:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbformat.write(nb, lab.root / f"{name}.ipynb")
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        workspace = uuid.uuid4().hex[:8]
        page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{name}.ipynb?token={lab.token}&reset")
        notebook = Notebook(page, lab, name)
        notebook.wait_kernel_idle()
        return notebook

    yield open_
    for context in contexts:
        context.close()
    for session in lab.api("GET", "/api/sessions") or []:
        lab.api("DELETE", f"/api/sessions/{session['id']}")
