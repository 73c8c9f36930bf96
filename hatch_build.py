"""Build hook: every sdist and wheel of pausepoint carries the widget's front end.

The bundle (`src/pausepoint/widget/static/widget.js` and `widget.css`) is built from `js/`
by esbuild and is not in git. Before hatchling builds an sdist or a wheel, this hook makes
sure the bundle is there and current, running `npm ci` and `npm run build` in `js/` when
it is not. "Current" means the digest that `js/build.mjs` recorded beside the bundle
matches the digest of the front-end sources now: file times cannot tell, since a fresh
clone or an unpacked sdist does not keep them. An sdist carries the bundle, its digest and
the sources, so a wheel built from it (`pip install pausepoint-*.tar.gz`) needs no node.

An editable install that already has a bundle is left alone (`make js` rebuilds it).
When a bundle must be built and node or npm is missing, the build fails and says so,
rather than producing a package whose view has no front end.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MIN_NODE_MAJOR = 18
STATIC = Path("src", "pausepoint", "widget", "static")
BUNDLE = (STATIC / "widget.js", STATIC / "widget.css")
STAMP = STATIC / "bundle-sources.sha256"
JS = Path("js")
JS_FILES = ("package.json", "package-lock.json", "build.mjs")


class FrontEndBuildError(RuntimeError):
    """The widget's front end could not be built; the message says what to do."""


def sources_digest(js: Path) -> str:
    """The digest of the front-end sources, as `js/build.mjs` records it."""
    paths = sorted(
        [*JS_FILES, *(p.relative_to(js).as_posix() for p in (js / "src").rglob("*") if p.is_file())]
    )
    digest = hashlib.sha256()
    for path in paths:
        content = hashlib.sha256((js / path).read_bytes()).hexdigest()
        digest.update(f"{path}\0{content}\n".encode())
    return digest.hexdigest()


def bundle_state(root: Path) -> str:
    """`missing`, `current`, `stale` or `unknown` (a bundle with no sources to check)."""
    if not all((root / path).is_file() for path in BUNDLE):
        return "missing"
    if not all((root / JS / name).is_file() for name in JS_FILES):
        return "unknown"
    stamp = root / STAMP
    recorded = stamp.read_text().strip() if stamp.is_file() else ""
    return "current" if recorded == sources_digest(root / JS) else "stale"


def _node_and_npm(state: str) -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        missing = [name for name, found in (("node", node), ("npm", npm)) if found is None]
        raise FrontEndBuildError(
            f"pausepoint's widget front end ({BUNDLE[0].as_posix()}) is {state}, and "
            f"building it from js/ needs node >= {MIN_NODE_MAJOR} with npm, but "
            f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not on PATH. "
            f"Install node >= {MIN_NODE_MAJOR} with npm and build again, or install a "
            f"built wheel or sdist of pausepoint, which carries the front end and needs "
            f"no node."
        )
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    match = re.match(r"v?(\d+)\.", version.strip())
    if match is None or int(match.group(1)) < MIN_NODE_MAJOR:
        raise FrontEndBuildError(
            f"pausepoint's widget front end ({BUNDLE[0].as_posix()}) is {state}, and "
            f"building it from js/ needs node >= {MIN_NODE_MAJOR} with npm, but {node} is "
            f"{version.strip() or 'of an unknown version'}. Put node >= {MIN_NODE_MAJOR} "
            f"with npm first on PATH and build again, or install a built wheel or sdist "
            f"of pausepoint, which needs no node."
        )
    return node, npm


def build_front_end(root: Path, state: str) -> None:
    """`npm ci` then `npm run build` in js/; fails with guidance if either cannot run."""
    if not (root / JS / "package.json").is_file():
        raise FrontEndBuildError(
            f"pausepoint's widget front end ({BUNDLE[0].as_posix()}) is {state} and its "
            f"sources (js/) are not here to build it from. Build from a git checkout of "
            f"pausepoint, or install a built wheel or sdist."
        )
    _, npm = _node_and_npm(state)
    for step in (["ci", "--no-audit", "--no-fund"], ["run", "build"]):
        result = subprocess.run([npm, *step], cwd=root / JS)
        if result.returncode != 0:
            raise FrontEndBuildError(
                f"`npm {' '.join(step)}` in {root / JS} failed (exit {result.returncode}); "
                f"its output is above. Fix that, or install a built wheel or sdist of "
                f"pausepoint, which needs no node."
            )
    if bundle_state(root) != "current":
        raise FrontEndBuildError(
            f"`npm run build` in {root / JS} did not leave a current bundle in "
            f"{STATIC.as_posix()}; check js/build.mjs."
        )


class FrontEndBuildHook(BuildHookInterface):
    """Builds the front end before an sdist or wheel when it is missing or stale."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        state = bundle_state(root)
        if state in ("current", "unknown") or (version == "editable" and state == "stale"):
            return
        label = "missing" if state == "missing" else "out of date"
        self.app.display_info(f"pausepoint: the widget front end is {label}; building it in js/")
        try:
            build_front_end(root, label)
        except FrontEndBuildError as error:
            self.app.abort(f"error: {error}")
