"""Rules of the test suite itself: the markers `make check` relies on point at tests that
exist and are registered, and no module imports a conftest (helpers live in helpers.py).

The marker tables are read from tests/conftest.py's source: a conftest is never imported."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path
from typing import Any

TESTS = Path(__file__).parent
MARKERS = {"browser", "kernel", "packaging", "postgres", "slow"}


def _conftest_table(name: str) -> Any:
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            return ast.literal_eval(node.value)
    raise AssertionError(f"tests/conftest.py has no {name}")


FOLDER_MARKERS: dict[str, str] = _conftest_table("FOLDER_MARKERS")
POSTGRES_FILES: set[str] = _conftest_table("POSTGRES_FILES")
SLOW: set[str] = _conftest_table("SLOW")


def test_every_marker_is_registered() -> None:
    config = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    registered = {line.split(":")[0] for line in config["tool"]["pytest"]["ini_options"]["markers"]}
    assert registered >= MARKERS


def test_marked_folders_and_files_exist() -> None:
    assert all((TESTS / folder).is_dir() for folder in FOLDER_MARKERS)
    assert all((TESTS / path).is_file() for path in POSTGRES_FILES)


def test_every_slow_entry_names_a_test_that_exists() -> None:
    missing = []
    for entry in sorted(SLOW):
        path, _, name = entry.partition("::")
        file = TESTS / path
        if not file.is_file():
            missing.append(entry)
            continue
        if name:
            tree = ast.parse(file.read_text(encoding="utf-8"))
            defined = {
                node.name
                for node in tree.body
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            }
            if name not in defined:
                missing.append(entry)
    assert not missing, f"SLOW in tests/conftest.py names tests that are gone: {missing}"


def test_no_module_imports_a_conftest() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or "", *(alias.name for alias in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            if any(name.split(".")[-1] == "conftest" for name in names):
                offenders.append(f"{path.relative_to(TESTS.parent)}:{node.lineno}")
    assert not offenders, f"import helpers from tests/helpers.py instead: {offenders}"
