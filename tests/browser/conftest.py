"""JupyterLab in headless Chromium: a server per session, a fresh page per test.

Chromium comes from the system (Debian's package); tests skip without it locally and fail
in CI (CI=true), where .ci/run installs it.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from typing import Any

import nbformat
import pytest
from tests.browser.helpers import LAB_APP, JupyterServer, Lab, Notebook

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
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


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    server = JupyterServer(tmp_path_factory.mktemp("lab"), LAB_APP)
    yield server
    server.stop()


@pytest.fixture
def lab(lab_server: JupyterServer) -> Lab:
    """JupyterLab for this test: the session's server, started again if it has died."""
    return lab_server.current()


@pytest.fixture(scope="session")
def notebook7_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    server = JupyterServer(
        tmp_path_factory.mktemp("nb7"),
        ["notebook", "--JupyterNotebookApp.expose_app_in_browser=True"],
    )
    yield server
    server.stop()


@pytest.fixture
def notebook7(notebook7_server: JupyterServer) -> Lab:
    """Jupyter Notebook 7 (the `notebook` package): /tree and /notebooks/<path>."""
    return notebook7_server.current()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope: Playwright's sync API keeps an event loop running in this thread while
    # it is started, which async tests elsewhere must not meet.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield instance
        instance.close()


class Pages:
    """Browser pages on a server; each opens a notebook from `root` and waits for its kernel."""

    def __init__(self, server: Lab, browser: Any) -> None:
        self.server = server
        self.browser = browser
        self.contexts: list[Any] = []

    def open(self, name: str, url_path: str) -> Notebook:
        context = self.browser.new_context(viewport={"width": 1280, "height": 1000})
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{self.server.url}{url_path}")
        notebook = Notebook(page, self.server, name)
        notebook.wait_kernel_idle()
        return notebook

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        for session in self.server.api("GET", "/api/sessions") or []:
            self.server.api("DELETE", f"/api/sessions/{session['id']}")


def new_notebook(cells: list[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


@pytest.fixture
def open_saved(lab: Lab, browser: Any) -> Iterator[Any]:
    """Write a notebook (outputs and all) into JupyterLab's root, open it in a fresh
    workspace, and return a `Notebook`."""
    pages = Pages(lab, browser)

    def open_(name: str, nb: nbformat.NotebookNode) -> Notebook:
        nbformat.write(nb, lab.root / f"{name}.ipynb")
        workspace = uuid.uuid4().hex[:8]
        return pages.open(
            name, f"/lab/workspaces/{workspace}/tree/{name}.ipynb?token={lab.token}&reset"
        )

    yield open_
    pages.close()


@pytest.fixture
def open_notebook(open_saved: Any) -> Any:
    """Write cells into a notebook, open it in a fresh workspace, and return a `Notebook`."""
    return lambda name, cells: open_saved(name, new_notebook(cells))


@pytest.fixture
def open_in_notebook7(notebook7: Lab, browser: Any) -> Iterator[Any]:
    """Write a notebook into Notebook 7's root, open it at /notebooks/<name>.ipynb."""
    pages = Pages(notebook7, browser)

    def open_(name: str, nb: nbformat.NotebookNode) -> Notebook:
        nbformat.write(nb, notebook7.root / f"{name}.ipynb")
        return pages.open(name, f"/notebooks/{name}.ipynb?token={notebook7.token}")

    yield open_
    pages.close()
