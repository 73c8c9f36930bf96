"""The Jupyter server extension that serves the view's code (`pausepoint_server`): a real
Jupyter server, configured by the file the wheel installs, serves the installed bundle
under its digest (or as `installed`) and nothing else; the extension imports nothing of
pausepoint, and a failure in it leaves the server running."""

from __future__ import annotations

import http.client
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

import pausepoint_server
from pausepoint_server import installed_bundle, read_bundle

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "pausepoint" / "widget" / "static"
CONFIG = ROOT / "jupyter-config" / "pausepoint.json"
BASE_URL = "/base/"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Server:
    port: int
    token: str

    def get(self, path: str, *, token: bool = True) -> Reply:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            headers = {"Authorization": f"token {self.token}"} if token else {}
            connection.request("GET", f"{BASE_URL}{path}", headers=headers)
            response = connection.getresponse()
            return Reply(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`jupyter server` under a base URL, with the extension enabled by its shipped config."""
    base = tmp_path_factory.mktemp("server")
    config = base / "config" / "jupyter_server_config.d"
    config.mkdir(parents=True)
    shutil.copy(CONFIG, config / "pausepoint.json")
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "JUPYTER_DATA_DIR": str(base / "data"),
    }
    instance = Server(_free_port(), uuid.uuid4().hex)
    log = (base / "server.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1",
            f"--port={instance.port}", f"--IdentityProvider.token={instance.token}",
            f"--ServerApp.base_url={BASE_URL}", f"--ServerApp.root_dir={base}", "--allow-root",
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        try:
            if instance.get("api/status").status == 200:
                break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"jupyter server did not start:\n{(base / 'server.log').read_text()}")
        time.sleep(0.2)
    yield instance
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


def test_the_server_serves_the_installed_bundle_under_its_digest(server: Server) -> None:
    bundle = read_bundle(STATIC)
    assert bundle is not None

    script = server.get(f"pausepoint/static/{bundle.digest}/widget.js")
    assert (script.status, script.body) == (200, (STATIC / "widget.js").read_bytes())
    assert script.headers["Content-Type"].startswith("text/javascript")
    assert "immutable" in script.headers["Cache-Control"]  # the digest names the content

    css = server.get(f"pausepoint/static/{bundle.digest}/widget.css")
    assert (css.status, css.body) == (200, (STATIC / "widget.css").read_bytes())
    assert css.headers["Content-Type"].startswith("text/css")


def test_the_server_serves_the_installed_bundle_to_a_view_of_another_build(
    server: Server,
) -> None:
    """`installed` stands for whatever digest is installed: a view saved before an upgrade,
    reopened without its kernel, is drawn by the bundle installed now."""
    script = server.get("pausepoint/static/installed/widget.js")
    assert (script.status, script.body) == (200, (STATIC / "widget.js").read_bytes())
    assert script.headers["Cache-Control"] == "no-cache"  # it changes with an upgrade


def test_the_server_serves_nothing_else(server: Server) -> None:
    bundle = read_bundle(STATIC)
    assert bundle is not None
    other = "0" * 16 if bundle.digest != "0" * 16 else "1" * 16

    assert server.get(f"pausepoint/static/{other}/widget.js").status == 404  # another version
    assert server.get(f"pausepoint/static/{bundle.digest}/index.html").status == 404
    assert server.get("pausepoint/static/latest/widget.js").status == 404
    assert server.get(f"pausepoint/static/{bundle.digest}/..%2F__init__.py").status == 404
    assert server.get(f"pausepoint/static/{bundle.digest}/widget.js", token=False).status in (
        302,
        403,
    )


def test_the_digest_follows_the_files_and_a_folder_without_a_bundle_has_none(
    tmp_path: Path,
) -> None:
    assert installed_bundle(tmp_path) is None
    (tmp_path / "widget.js").write_text("export default {};")
    first = installed_bundle(tmp_path)
    assert first is not None
    assert first.files == {"widget.js": b"export default {};", "widget.css": b""}

    (tmp_path / "widget.css").write_text(".pp-root {}")  # `make js` while the server runs
    second = installed_bundle(tmp_path)
    assert second is not None
    assert second.digest != first.digest
    assert second == read_bundle(tmp_path)


def test_the_extension_imports_nothing_of_pausepoint() -> None:
    script = (
        "import sys, pausepoint_server; "
        "print(sorted(m for m in sys.modules if m.startswith(('pausepoint.', 'jupyter_server'))"
        " or m == 'pausepoint'))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_a_failure_in_the_extension_only_warns(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pausepoint_server, "installed_static", lambda: None)
    serverapp = SimpleNamespace(log=logging.getLogger("test-server"), web_app=None)

    with caplog.at_level(logging.WARNING, "test-server"):
        pausepoint_server._load_jupyter_server_extension(serverapp)

    assert "views ask their kernel for it instead" in caplog.text
