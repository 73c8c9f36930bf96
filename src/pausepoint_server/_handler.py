"""The handler of `{base_url}pausepoint/static/<digest>/<file>` (imports jupyter_server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web

from . import FILES, INSTALLED, ROUTE, installed_bundle

_TYPES = {"widget.js": "text/javascript; charset=utf-8", "widget.css": "text/css; charset=utf-8"}


class BundleHandler(JupyterHandler):
    """Serves the installed bundle's files under its digest, or as `installed`."""

    def initialize(self, static: Path) -> None:
        self.static = static

    @web.authenticated
    def get(self, version: str, name: str) -> None:
        bundle = installed_bundle(self.static)
        if bundle is None or name not in FILES or version not in (bundle.digest, INSTALLED):
            raise web.HTTPError(404)
        self.set_header("Content-Type", _TYPES[name])
        if version == INSTALLED:
            self.set_header("Cache-Control", "no-cache")
        else:  # the digest names the content: a browser may keep it as long as it likes
            self.set_header("Cache-Control", "private, max-age=31536000, immutable")
        self.finish(bundle.files[name])


def add_handler(web_app: Any, static: Path) -> None:
    """Route `{base_url}pausepoint/static/<digest or installed>/<file>` of `web_app` to the
    bundle."""
    pattern = url_path_join(
        web_app.settings["base_url"], ROUTE, rf"([0-9a-f]{{16}}|{INSTALLED})/([\w.-]+)"
    )
    web_app.add_handlers(".*$", [(pattern, BundleHandler, {"static": static})])
