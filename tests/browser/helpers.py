"""Helpers of the browser tests that are not fixtures: the Jupyter server a test talks to
(and the process that runs it), and one open notebook. The fixtures that make them are in
conftest.py."""

from __future__ import annotations

import json
import os
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

ARTIFACTS = Path(os.environ.get("PAUSEPOINT_ARTIFACTS", "test-artifacts")).resolve() / "browser"


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class JupyterServer:
    """A Jupyter server app (`lab` or `notebook`) isolated under `base`, started again on
    the same root when it has died, so that one crash fails one test, not the rest."""

    def __init__(self, base: Path, app: list[str]) -> None:
        self.base = base
        self.app = app
        self.root = base / "root"
        self.root.mkdir()
        settings = base / "settings" / "@jupyterlab" / "notebook-extension"
        settings.mkdir(parents=True)
        # Render every cell, so locators find cells that are scrolled out of view.
        (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
        notifications = base / "settings" / "@jupyterlab" / "apputils-extension"
        notifications.mkdir(parents=True)
        (notifications / "notification.jupyterlab-settings").write_text(
            '{"fetchNews": "false", "checkForUpdates": false}'
        )
        self.starts = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.lab = self._start()

    def _start(self) -> Lab:
        self.starts += 1
        token = uuid.uuid4().hex
        port = _free_port()
        base = self.base
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(base / "config"),
            "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
            "IPYTHONDIR": str(base / "ipython"),
            "PYTHONPATH": os.pathsep.join([str(Path.cwd()), os.environ.get("PYTHONPATH", "")]),
        }
        log_path = base / f"server-{self.starts}.log"
        with log_path.open("w") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable, "-m", "jupyter", *self.app, "--no-browser",
                    "--ip=127.0.0.1", f"--port={port}", f"--IdentityProvider.token={token}",
                    f"--ServerApp.root_dir={self.root}", "--allow-root",
                ],
                env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        lab = Lab(url=f"http://127.0.0.1:{port}", token=token, root=self.root)
        deadline = time.monotonic() + 120  # a budget for a busy machine, not a requirement
        while not self._answers(lab):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"Jupyter did not start; see {log_path}")
            time.sleep(0.3)
        return lab

    @staticmethod
    def _answers(lab: Lab) -> bool:
        try:
            lab.api("GET", "/api/status")
        except OSError:
            return False
        return True

    def current(self) -> Lab:
        """The running server; started again (a new port and token) if it has died."""
        if self.process is not None and self.process.poll() is None and self._answers(self.lab):
            return self.lab
        print(f"\nThe Jupyter server under {self.base} was gone: starting it again.")
        self.stop()
        self.lab = self._start()
        return self.lab

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


def serve(base: Path, app: list[str]) -> Iterator[Lab]:
    """Start a Jupyter server app (`lab` or `notebook`) isolated under `base`."""
    server = JupyterServer(base, app)
    try:
        yield server.lab
    finally:
        server.stop()


LAB_APP = [
    "lab", "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
]  # fmt: skip
