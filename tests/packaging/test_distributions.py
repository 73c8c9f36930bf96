"""Every distribution carries the widget's front end, and installing one needs no node.

Works from a fresh `git clone` of this repository (committed work only, as a user gets
it): builds the sdist and the wheel as `python -m build` does, a wheel straight from a
clean clone as `pip install <path or git URL>` does, installs them into new virtual
environments whose PATH has no node or npm, and checks that `RunView` there serves the
real bundle, and that a Jupyter server of that environment serves it too (saved notebooks
do not carry it). Building needs node and npm: skipped without them, failed under CI=true.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pausepoint_server import read_bundle

ROOT = Path(__file__).resolve().parents[2]
STATIC = "pausepoint/widget/static"
BUNDLE = ("widget.js", "widget.css")
SERVER_CONFIG = "etc/jupyter/jupyter_server_config.d/pausepoint.json"
NODE_NEEDED = "node >= 18 with npm"
PREBUILT_HINT = "install a built wheel or sdist"

pytestmark = pytest.mark.node


class Background:
    """A command left running while other tests go on (builds wait on the network a lot)."""

    def __init__(self, command: Sequence[str | Path], *, cwd: Path) -> None:
        self.command = " ".join(map(str, command))
        self.cwd = cwd
        self._log = (cwd / "output.log").open("w+")
        self._process = subprocess.Popen(
            [str(part) for part in command], cwd=cwd, stdout=self._log, stderr=subprocess.STDOUT
        )

    def wait_ok(self) -> None:
        code = self._process.wait()
        self._log.seek(0)
        if code != 0:
            output = self._log.read()[-3000:]
            pytest.fail(f"{self.command} failed (exit {code}) in {self.cwd}:\n{output}")

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._log.close()


@dataclass(frozen=True)
class Built:
    """What `python -m build` made from a fresh clone, and the bundle it built there.

    `direct` is `pip wheel` of another clean clone into `direct_out`, as
    `pip install <path or git URL>` builds it, started at the same time.
    """

    clone: Path
    sdist: Path
    wheel: Path
    bundle: Mapping[str, bytes]
    direct: Background
    direct_out: Path


def _require(condition: bool, reason: str) -> None:
    if condition:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} The packaging test is required in CI.", pytrace=False)
    pytest.skip(reason)


def _run(
    command: Sequence[str | Path], *, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True
    )


def _ok(
    command: Sequence[str | Path], *, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    result = _run(command, cwd=cwd, env=env)
    if result.returncode != 0:
        pytest.fail(
            f"{' '.join(map(str, command))} failed (exit {result.returncode}) in {cwd}:\n"
            f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}",
            pytrace=False,
        )
    return result


def _without_node(bin_dir: Path) -> dict[str, str]:
    """The environment with PATH reduced to `bin_dir`, which must hold neither node nor npm."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = str(bin_dir)
    assert shutil.which("node", path=env["PATH"]) is None
    assert shutil.which("npm", path=env["PATH"]) is None
    return env


def _clone(dest: Path) -> Path:
    _ok(["git", "clone", "--quiet", ROOT, dest], cwd=dest.parent)
    assert not (dest / "src" / STATIC / "widget.js").exists()
    return dest


def _venv(path: Path, *, with_pip: bool = True) -> Path:
    command: list[str | Path] = [sys.executable, "-m", "venv", path]
    if not with_pip:
        command.append("--without-pip")
    _ok(command, cwd=path.parent)
    return path / "bin"


def _wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def _read_wheel_bundle(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(f"{STATIC}/{name}") for name in BUNDLE}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    _require((ROOT / ".git").exists(), "The packaging test needs a git checkout.")
    _require(shutil.which("git") is not None, "The packaging test needs git.")
    _require(
        shutil.which("node") is not None and shutil.which("npm") is not None,
        "Building pausepoint's front end needs node and npm.",
    )
    direct_work = tmp_path_factory.mktemp("direct")
    direct_clone = _clone(direct_work / "pausepoint")
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", direct_work / "out"]
    direct = Background([*pip_wheel, direct_clone], cwd=direct_work)
    try:
        work = tmp_path_factory.mktemp("dist")
        clone = _clone(work / "pausepoint")
        _ok([sys.executable, "-m", "build", "--outdir", work / "dist", clone], cwd=work)
        (sdist,) = (work / "dist").glob("pausepoint-*.tar.gz")
        (wheel,) = (work / "dist").glob("pausepoint-*.whl")
        bundle = {name: (clone / "src" / STATIC / name).read_bytes() for name in BUNDLE}
        yield Built(clone, sdist, wheel, bundle, direct=direct, direct_out=direct_work / "out")
    finally:
        direct.close()


@pytest.fixture(scope="module")
def unpacked_sdist(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("sdist")
    with tarfile.open(built.sdist) as archive:
        archive.extractall(target, filter="data")
    (root,) = target.iterdir()
    return root


_FRONT_END_IN_USE = """
import hashlib, json
import pausepoint
from pausepoint import Agent, ScriptedModel
from pausepoint.widget import RunView

view = RunView(Agent(model=ScriptedModel(["Hello."])).new_run("Hi"))
shared = view._front_end  # names the bundle for every run view, and sends it when asked
sent = []
shared.send = sent.append
shared._send_code(shared, {"type": "front-end", "id": "1"}, [])
[reply] = sent
print(json.dumps({
    "package": pausepoint.__file__,
    "digest": shared.pausepoint_front_end,
    "widget.js": hashlib.sha256(reply["js"].encode()).hexdigest(),
    "widget.css": hashlib.sha256(reply["css"].encode()).hexdigest(),
}))
"""


def _front_end_in_use(bin_dir: Path, cwd: Path) -> dict[str, str]:
    """Which package a fresh interpreter imports, the name of its RunView's front end, and
    digests of the code its kernel sends a view that asks."""
    result = _ok([bin_dir / "python", "-c", _FRONT_END_IN_USE], cwd=cwd, env=_without_node(bin_dir))
    found: dict[str, str] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


def _digests(bundle: Mapping[str, bytes]) -> dict[str, str]:
    return {name: hashlib.sha256(content).hexdigest() for name, content in bundle.items()}


def _bundle_name(bundle: Mapping[str, bytes], tmp_path: Path) -> str:
    """The digest the kernel and the Jupyter server name `bundle` by."""
    folder = tmp_path / "bundle"
    folder.mkdir()
    for name, content in bundle.items():
        (folder / name).write_bytes(content)
    found = read_bundle(folder)
    assert found is not None
    return found.digest


def test_the_sdist_carries_the_bundle_and_the_front_end_sources(built: Built) -> None:
    with tarfile.open(built.sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
        top = archive.getnames()[0].split("/", 1)[0]
        for name in BUNDLE:
            member = archive.extractfile(f"{top}/src/{STATIC}/{name}")
            assert member is not None
            assert member.read() == built.bundle[name]
    assert {"js/package.json", "js/package-lock.json", "js/build.mjs", "js/src/index.ts"} <= names
    assert "hatch_build.py" in names
    assert not [name for name in names if "node_modules" in name.split("/")]


def test_the_wheel_from_the_sdist_carries_the_bundle_and_nothing_else_beside_it(
    built: Built,
) -> None:
    static = {name for name in _wheel_files(built.wheel) if name.startswith(f"{STATIC}/")}
    assert static == {f"{STATIC}/{name}" for name in BUNDLE}
    assert _read_wheel_bundle(built.wheel) == built.bundle
    assert not [name for name in _wheel_files(built.wheel) if name.startswith(("js/", "src/"))]


@pytest.fixture(scope="module")
def venv_without_node(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with pausepoint's dependencies; its PATH has no node."""
    bin_dir = _venv(tmp_path_factory.mktemp("install") / "venv")
    _ok(
        [bin_dir / "python", "-m", "pip", "install", "--quiet", built.wheel],
        cwd=bin_dir.parent,
        env=_without_node(bin_dir),
    )
    return bin_dir


def _install_without_node(bin_dir: Path, dist: Path) -> None:
    """Installs `dist` over whatever pausepoint is there; checks that it was `dist`."""
    command = [bin_dir / "python", "-m", "pip", "install", "--quiet", "--force-reinstall"]
    _ok([*command, "--no-deps", dist], cwd=bin_dir.parent, env=_without_node(bin_dir))
    (site,) = (bin_dir.parent / "lib").glob("python3*/site-packages")
    (record,) = site.glob("pausepoint-*.dist-info/direct_url.json")
    assert json.loads(record.read_text())["url"] == dist.as_uri()


def test_the_wheel_installed_without_node_serves_the_built_bundle(
    built: Built, venv_without_node: Path, tmp_path: Path
) -> None:
    _install_without_node(venv_without_node, built.wheel)
    found = _front_end_in_use(venv_without_node, tmp_path)
    assert Path(found.pop("package")).is_relative_to(venv_without_node.parent)
    assert found.pop("digest") == _bundle_name(built.bundle, tmp_path)
    assert found == _digests(built.bundle)


def test_the_wheel_ships_and_enables_the_jupyter_server_extension(built: Built) -> None:
    files = _wheel_files(built.wheel)
    [config] = [name for name in files if name.endswith(f".data/data/{SERVER_CONFIG}")]
    with zipfile.ZipFile(built.wheel) as archive:
        enabled = json.loads(archive.read(config))
    assert enabled == {"ServerApp": {"jpserver_extensions": {"pausepoint_server": True}}}
    assert {"pausepoint_server/__init__.py", "pausepoint_server/_handler.py"} <= files


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, token: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def test_a_jupyter_server_beside_the_wheel_serves_the_code_its_kernels_name(
    built: Built, venv_without_node: Path, tmp_path: Path
) -> None:
    """The view's code is not saved with a notebook: the Jupyter server of an environment
    where the wheel is installed serves it, under the name its kernels give it."""
    bin_dir = venv_without_node
    _install_without_node(bin_dir, built.wheel)
    env = _without_node(bin_dir)
    _ok(
        [bin_dir / "python", "-m", "pip", "install", "--quiet", "jupyter_server"],
        cwd=tmp_path,
        env=env,
    )
    digest = _front_end_in_use(bin_dir, tmp_path)["digest"]
    for name in ("config", "runtime", "data"):
        env[f"JUPYTER_{name.upper()}_DIR"] = str(tmp_path / name)
    port, token = _free_port(), uuid.uuid4().hex
    command = [
        bin_dir / "jupyter-server", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path}", "--allow-root",
    ]  # fmt: skip
    with (tmp_path / "server.log").open("w") as log:
        server = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=log, stderr=log)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    if _get(f"{url}/api/status", token)[0] == 200:
                        break
                except OSError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        f"jupyter server did not start:\n{(tmp_path / 'server.log').read_text()}"
                    )
                time.sleep(0.3)
            for name in BUNDLE:
                served = _get(f"{url}/pausepoint/static/{digest}/{name}", token)
                assert served == (200, built.bundle[name])
            assert _get(f"{url}/pausepoint/static/{'0' * 16}/widget.js", token)[0] == 404
        finally:
            server.terminate()
            server.wait(timeout=15)


def test_installing_the_sdist_without_node_serves_the_built_bundle(
    built: Built, venv_without_node: Path, tmp_path: Path
) -> None:
    _install_without_node(venv_without_node, built.sdist)
    found = _front_end_in_use(venv_without_node, tmp_path)
    assert Path(found.pop("package")).is_relative_to(venv_without_node.parent)
    assert found.pop("digest") == _bundle_name(built.bundle, tmp_path)
    assert found == _digests(built.bundle)


def _wheel_without_node(source: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", tmp_path / "out", source]
    return _run(command, cwd=tmp_path, env=_without_node(_venv(tmp_path / "venv", with_pip=False)))


def test_building_a_clean_clone_without_node_fails_and_says_node_is_needed(
    built: Built, tmp_path: Path
) -> None:
    result = _wheel_without_node(_clone(tmp_path / "pausepoint"), tmp_path)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "widget.js) is missing" in output
    assert NODE_NEEDED in output
    assert PREBUILT_HINT in output
    assert not list((tmp_path / "out").glob("*.whl"))


def test_a_bundle_older_than_its_sources_is_rebuilt_not_shipped(
    unpacked_sdist: Path, tmp_path: Path
) -> None:
    source = tmp_path / "changed"
    shutil.copytree(unpacked_sdist, source)
    with (source / "js" / "src" / "index.ts").open("a") as index:
        index.write("\n// changed after the bundle was built\n")
    result = _wheel_without_node(source, tmp_path)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "widget.js) is out of date" in output
    assert NODE_NEEDED in output
    assert not list((tmp_path / "out").glob("*.whl"))


def test_an_editable_install_keeps_the_bundle_it_has(unpacked_sdist: Path, tmp_path: Path) -> None:
    source = tmp_path / "checkout"
    shutil.copytree(unpacked_sdist, source)
    with (source / "js" / "src" / "index.ts").open("a") as index:
        index.write("\n// being edited\n")
    bundle = (source / "src" / STATIC / "widget.js").read_bytes()
    bin_dir = _venv(tmp_path / "venv", with_pip=False)
    command = [sys.executable, "-m", "pip", "--python", bin_dir / "python", "install"]
    _ok([*command, "--quiet", "--no-deps", "-e", source], cwd=tmp_path, env=_without_node(bin_dir))
    assert (source / "src" / STATIC / "widget.js").read_bytes() == bundle


def test_a_wheel_built_straight_from_a_clean_clone_builds_and_carries_the_bundle(
    built: Built,
) -> None:
    built.direct.wait_ok()
    (wheel,) = built.direct_out.glob("pausepoint-*.whl")
    assert _read_wheel_bundle(wheel) == built.bundle
