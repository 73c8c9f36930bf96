"""The package root keeps what a notebook user types; errors, events and the transcript's
records have homes of their own, and the names the root used to export still work for one
release, each with a DeprecationWarning that names its new home."""

from __future__ import annotations

import importlib
import pathlib
import pkgutil
import re
import sys
import warnings

import pytest

import pausepoint
import pausepoint.errors
import pausepoint.events
from pausepoint.errors import PausepointError


def test_the_root_exports_at_most_fifty_names_and_each_imports_without_a_warning() -> None:
    assert len(pausepoint.__all__) <= 50
    assert len(set(pausepoint.__all__)) == len(pausepoint.__all__)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in pausepoint.__all__:
            assert getattr(pausepoint, name) is not None, name
    assert not set(pausepoint.__all__) & set(pausepoint.MOVED)


@pytest.mark.parametrize("name", sorted(pausepoint.MOVED))
def test_a_moved_name_still_works_and_warns_where_it_went(name: str) -> None:
    home = pausepoint.MOVED[name]
    with pytest.warns(DeprecationWarning, match=rf"import it from `{home}`") as caught:
        value = getattr(pausepoint, name)
    assert value is getattr(importlib.import_module(home), name)
    assert name in importlib.import_module(home).__all__
    assert caught[0].filename == __file__  # the warning points at the importing line


def _public_modules() -> list[str]:
    names = ["pausepoint"]
    for info in pkgutil.walk_packages(pausepoint.__path__, "pausepoint."):
        parts = info.name.split(".")
        if any(part.startswith("_") for part in parts[1:]) or info.name == "pausepoint.decisions":
            continue
        names.append(info.name)
    return names


def _exported(module_name: str) -> list[object]:
    try:
        module = importlib.import_module(module_name)
    except ImportError:  # an optional dependency this environment lacks
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return [getattr(module, name) for name in getattr(module, "__all__", [])]


def test_every_public_error_is_importable_from_pausepoint_errors() -> None:
    errors = {getattr(pausepoint.errors, name) for name in pausepoint.errors.__all__}
    found = {
        value
        for module in _public_modules()
        for value in _exported(module)
        if isinstance(value, type) and issubclass(value, PausepointError)
    }
    assert len(found) > 40
    assert found - errors == set()
    exceptions = [e for e in errors if isinstance(e, type) and issubclass(e, BaseException)]
    assert all(issubclass(e, PausepointError) for e in exceptions)  # one hierarchy


def test_every_event_is_importable_from_pausepoint_events() -> None:
    from pausepoint import run

    events = {n for n in run.__all__ if n.endswith("Event")}
    assert len(events) == 14  # 13 events and their union, `Event`
    assert events <= set(pausepoint.events.__all__)
    for name in events:
        assert getattr(pausepoint.events, name) is getattr(run, name)


def test_the_old_decisions_module_warns_and_is_the_new_one() -> None:
    sys.modules.pop("pausepoint.decisions", None)
    with pytest.warns(DeprecationWarning, match=r"pausepoint\.transcript\.decisions"):
        old = importlib.import_module("pausepoint.decisions")
    from pausepoint.transcript import decisions

    assert old.decision_of is decisions.decision_of
    assert sorted(old.__all__) == sorted(decisions.__all__)


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        _ = pausepoint.NoSuchThing  # type: ignore[attr-defined]


_ROOT = pathlib.Path(__file__).resolve().parents[1]
_WRITTEN = ("src", "tests", "docs", "notebooks", "examples", "benchmarks", "README.md")


def _project_text() -> list[tuple[pathlib.Path, str]]:
    found = []
    for top in _WRITTEN:
        path = _ROOT / top
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        for file in files:
            if file.suffix in (".py", ".ipynb", ".md") and file.is_file():
                found.append((file, file.read_text(encoding="utf-8")))
    return found


def test_nothing_the_project_ships_or_runs_imports_a_moved_name_from_the_root() -> None:
    # Code a test sends to a kernel, a notebook cell or a docs example would print the
    # DeprecationWarning into the user's output; the old names are only for old code.
    importing = re.compile(r"from pausepoint import (\([^)]*\)|[^\n]*)")
    used = []
    for file, text in _project_text():
        if file.name == "test_front_door.py":
            continue
        for match in importing.finditer(text):
            names = set(re.findall(r"[A-Za-z_]\w*", match.group(1).replace("\\n", " ")))
            for name in sorted(names & set(pausepoint.MOVED)):
                line = text.count("\n", 0, match.start()) + 1
                used.append(f"{file.relative_to(_ROOT)}:{line} {name}")
    assert not used, "import these from their new homes (pausepoint.MOVED):\n" + "\n".join(used)
