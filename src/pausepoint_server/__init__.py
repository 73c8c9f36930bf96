"""pausepoint's Jupyter server extension: the server serves the run view's code.

A notebook keeps the state of each widget it shows, and anywidget keeps a widget's code in
its state. pausepoint's views keep only a small loader there (`pausepoint.widget._bundle`);
the loader asks the Jupyter server for the code, by the digest of the bundle the kernel
has, at `{base_url}pausepoint/static/<digest>/widget.js` (and `widget.css`), so a saved
notebook carries none of it and a reopened one is drawn wherever pausepoint is installed
beside the server. Only the bundle installed here is served, under its own digest: a
view made by another build of pausepoint gets 404 there and asks its kernel, and when the
kernel is gone too (a notebook saved before an upgrade) it takes `installed`, the bundle
installed here whatever its digest.

Installing pausepoint enables the extension (`etc/jupyter/jupyter_server_config.d/
pausepoint.json`). Every Jupyter server of the environment imports this module, so it
imports nothing of pausepoint itself (a second's work), and a failure here only logs a
warning: views then ask their kernel for the code.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

__all__ = ["FILES", "INSTALLED", "ROUTE", "Bundle", "installed_bundle", "read_bundle"]

FILES = ("widget.js", "widget.css")
"""The bundle's files, as built by js/build.mjs into pausepoint/widget/static/."""
ROUTE = "pausepoint/static"
"""Where the server serves them, under its base URL: `ROUTE/<digest>/<file>`."""
INSTALLED = "installed"
"""In place of the digest: the bundle installed here, whatever its digest."""


@dataclass(frozen=True)
class Bundle:
    """The view's code and style sheet, and the digest that names them."""

    digest: str
    files: dict[str, bytes]


def read_bundle(static: Path) -> Bundle | None:
    """The bundle in `static`, or None when it has no `widget.js` (a checkout before
    `make js`). A missing style sheet reads as empty."""
    script, css = (static / name for name in FILES)
    try:
        files = {FILES[0]: script.read_bytes(), FILES[1]: css.read_bytes() if css.exists() else b""}
    except FileNotFoundError:
        return None
    digest = hashlib.sha256()
    for name, content in files.items():
        digest.update(f"{name}\0{hashlib.sha256(content).hexdigest()}\n".encode())
    return Bundle(digest.hexdigest()[:16], files)


def installed_static() -> Path | None:
    """pausepoint's static folder, found without importing pausepoint."""
    spec = find_spec("pausepoint")
    locations = spec.submodule_search_locations if spec is not None else None
    return Path(next(iter(locations)), "widget", "static") if locations else None


_cache: tuple[tuple[int, ...], Bundle | None] | None = None


def installed_bundle(static: Path) -> Bundle | None:
    """The bundle in `static` as it is now: read again only when its files change (`make
    js` in a checkout while the server runs)."""
    global _cache
    stamp: list[int] = []
    for name in FILES:
        try:
            info = os.stat(static / name)
            stamp += [info.st_mtime_ns, info.st_size, info.st_ino]
        except OSError:
            stamp += [-1, -1, -1]
    if _cache is None or _cache[0] != tuple(stamp):
        _cache = (tuple(stamp), read_bundle(static))
    return _cache[1]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "pausepoint_server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    try:
        from ._handler import add_handler

        static = installed_static()
        if static is None:
            raise RuntimeError("pausepoint is not importable from this server's Python")
        add_handler(serverapp.web_app, static)
    except Exception as exc:
        serverapp.log.warning(
            "pausepoint: this server does not serve the run view's code (%s); views ask "
            "their kernel for it instead.",
            exc,
        )
