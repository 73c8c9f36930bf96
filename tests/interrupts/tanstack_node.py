"""Ask the real ``@tanstack/ai`` npm package, through node, how it reads the wire.

The pinned package (``tests/node/package.json`` and its lock file) is installed once with
``npm ci`` into ``$PAUSEPOINT_NODE_CACHE`` (default ``~/.cache/pausepoint-node``), in a
folder named after the lock file's hash, and reused afterwards. Each call runs
``tests/node/tanstack_wire.mjs`` once for a whole batch of requests; that script's header
documents the request and response format.

Without node or npm (or when the install fails) the tests using the ``tanstack`` fixture
are skipped, unless ``CI=true``: then they fail, so the cross-check cannot silently vanish.

Use from a test::

    @pytest.mark.node
    def test_run_interrupt_is_resumable(tanstack: TanStackNode) -> None:
        assert tanstack.read_binding(interrupt_as_wire_dict) is not None

Elsewhere in the suite, import the fixture into a conftest with
``from tests.interrupts.tanstack_node import tanstack``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
SCRIPT = NODE_DIR / "tanstack_wire.mjs"
PINNED_FILES = ("package.json", "package-lock.json")
INSTALL_TIMEOUT_SECONDS = 600
CALL_TIMEOUT_SECONDS = 120


class NodeCallError(AssertionError):
    """The node script failed, or a request it answered raised in JavaScript."""


@dataclass(frozen=True)
class NodeResponse:
    """One answer of the node script: a result, or the JavaScript error it raised."""

    ok: bool
    result: Any = None
    error: str | None = None


class TanStackNode:
    """Runs batches of requests against the installed ``@tanstack/ai``."""

    def __init__(self, node: str, node_modules: Path) -> None:
        self.node = node
        self.node_modules = node_modules

    def call(self, requests: Sequence[Mapping[str, Any]]) -> list[NodeResponse]:
        """Send all requests in one node process; one response per request, in order."""
        # ASCII escapes keep lone surrogates intact on their way into JSON.parse.
        payload = json.dumps(list(requests), ensure_ascii=True, allow_nan=False)
        completed = subprocess.run(
            [self.node, str(SCRIPT)],
            input=payload.encode("ascii"),
            capture_output=True,
            timeout=CALL_TIMEOUT_SECONDS,
            env={**os.environ, "PAUSEPOINT_NODE_MODULES": str(self.node_modules)},
            check=False,
        )
        if completed.returncode != 0:
            raise NodeCallError(
                f"{SCRIPT.name} exited with {completed.returncode}:\n"
                + completed.stderr.decode("utf-8", "replace")
            )
        answers = json.loads(completed.stdout.decode("utf-8"))
        return [NodeResponse(a["ok"], a.get("result"), a.get("error")) for a in answers]

    def values(self, requests: Sequence[Mapping[str, Any]]) -> list[Any]:
        """Like `call`, but return the results and raise if any request failed in node."""
        responses = self.call(requests)
        failures = [(r, a.error) for r, a in zip(requests, responses, strict=True) if not a.ok]
        if failures:
            raise NodeCallError(f"node refused {len(failures)} request(s), e.g. {failures[0]}")
        return [response.result for response in responses]

    def value(self, request: Mapping[str, Any]) -> Any:
        """A single request's result."""
        return self.values([request])[0]

    def read_binding(self, descriptor: Mapping[str, Any]) -> dict[str, Any] | None:
        """``readInterruptBinding(descriptor)``: the binding, or None when not resumable."""
        result: dict[str, Any] | None = self.value({"op": "read", "descriptor": descriptor})
        return result

    def read_bindings(self, descriptors: Sequence[Mapping[str, Any]]) -> list[Any]:
        """``readInterruptBinding`` over many descriptors in one node call."""
        return self.values([{"op": "read", "descriptor": d} for d in descriptors])

    @property
    def version(self) -> str:
        """The installed ``@tanstack/ai`` version."""
        info: dict[str, Any] = self.value({"op": "info"})
        return str(info["version"])


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} The node cross-check is required in CI.", pytrace=False)
    pytest.skip(reason)


def _cache_root() -> Path:
    configured = os.environ.get("PAUSEPOINT_NODE_CACHE")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "pausepoint-node"


@contextmanager
def _exclusive(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock so parallel test processes install only once."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with lock_file.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install_pinned_package(npm: str) -> Path:
    """Install the pinned packages into the cache (once) and return its node_modules."""
    pins = hashlib.sha256(b"".join((NODE_DIR / name).read_bytes() for name in PINNED_FILES))
    target = _cache_root() / pins.hexdigest()[:16]
    stamp = target / ".installed"
    with _exclusive(_cache_root() / ".install.lock"):
        if not stamp.exists():
            target.mkdir(parents=True, exist_ok=True)
            for name in PINNED_FILES:
                shutil.copyfile(NODE_DIR / name, target / name)
            try:
                completed = subprocess.run(
                    [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                    cwd=target,
                    capture_output=True,
                    timeout=INSTALL_TIMEOUT_SECONDS,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                _unavailable(f"npm ci in {target} took over {INSTALL_TIMEOUT_SECONDS}s.")
            if completed.returncode != 0:
                _unavailable(
                    f"npm ci in {target} failed:\n"
                    + completed.stderr.decode("utf-8", "replace")[-2000:]
                )
            stamp.touch()
    return target / "node_modules"


@pytest.fixture(scope="session")
def tanstack() -> TanStackNode:
    """The pinned ``@tanstack/ai`` behind node; skipped without node (fails in CI)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _unavailable("node and npm are needed to cross-check against @tanstack/ai.")
    return TanStackNode(node, install_pinned_package(npm))
