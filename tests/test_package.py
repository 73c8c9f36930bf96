"""The package's metadata: one version, declared once."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pausepoint

ROOT = Path(__file__).resolve().parent.parent


def test_version_is_the_one_declared_in_pyproject() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert pausepoint.__version__ == metadata.version("pausepoint") == declared


def test_the_declared_licence_ships_with_its_text() -> None:
    meta = metadata.metadata("pausepoint")
    declared = meta.get("License-Expression") or meta.get("License") or ""
    assert declared == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
