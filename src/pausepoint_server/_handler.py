"""The handler of `{base_url}pausepoint/static/<digest>/<file>` (imports jupyter_server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web

from . import FILES, ROUTE, installed_bundle

_TYPES = {"widget.js": "text/javascript; charset=utf-8", "widget.css": "text/css; charset=utf-8"}


class BundleHandler(JupyterHandler):
    """Serves the installed bundle's files under its digest, and nothing else."""

    def initialize(self, static: Path) -> None:
        self.static = static

    @web.authenticated
    def get(self, digest: str, name: str) -> None:
        bundle = installed_bundle(self.static)
        if bundle is None or digest != bundle.digest or name not in FILES:
            raise web.HTTPError(404)
        self.set_header("Content-Type", _TYPES[name])
        # The digest names the content, so a browser may keep it as long as it likes.
        self.set_header("Cache-Control", "private, max-age=31536000, immutable")
        self.finish(bundle.files[name])


def add_handler(web_app: Any, static: Path) -> None:
    """Route `{base_url}pausepoint/static/<digest>/<file>` of `web_app` to the bundle."""
    pattern = url_path_join(web_app.settings["base_url"], ROUTE, r"([0-9a-f]{16})/([\w.-]+)")
    web_app.add_handlers(".*$", [(pattern, BundleHandler, {"static": static})])
