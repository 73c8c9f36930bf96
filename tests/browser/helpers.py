"""Helpers of the browser tests that are not fixtures: the Jupyter server a test talks to,
and one open notebook. The fixtures that make them are in conftest.py."""

from __future__ import annotations

import json
import os
import urllib.request
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
