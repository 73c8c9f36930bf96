"""The browser tests' Jupyter server: one that has died is started again on the same root
before the next test, so one crash fails one test, not every test after it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.browser.helpers import LAB_APP, JupyterServer


def test_a_server_that_died_is_started_again_on_the_same_root(tmp_path: Path) -> None:
    server = JupyterServer(tmp_path, LAB_APP)
    try:
        first = server.current()
        assert server.current() is first  # alive: the same server
        (first.root / "kept.ipynb").write_text("{}")
        assert server.process is not None
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait()

        again = server.current()

        assert again.url != first.url or again.token != first.token
        assert again.api("GET", "/api/status")["started"]
        listed = {item["name"] for item in again.api("GET", "/api/contents")["content"]}
        assert "kept.ipynb" in listed
        assert server.starts == 2
    finally:
        server.stop()
