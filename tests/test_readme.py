"""The README and the docs work as written: their examples run, and their commands and
links name what exists.

In docs/, a Python block preceded by a `<!-- run -->` line is an example that runs: the
marked blocks of a page run in order in one namespace, as notebook cells do (top-level
`await` allowed), in a fresh folder. Every other Python block must at least compile.
"""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
RUN_MARK = "<!-- run -->"
PAGES = sorted(DOCS.rglob("*.md"))
PAGES_WITH_EXAMPLES = [page for page in PAGES if RUN_MARK in page.read_text(encoding="utf-8")]


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


async def test_readme_notebook_example_runs() -> None:
    body = textwrap.indent(_python_blocks()[0], "    ")
    namespace: dict[str, Any] = {}
    exec(f"async def example():\n{body}\n    return locals()", namespace)
    values = await namespace["example"]()
    assert values["result"].output == "Record 7 is gone."
    assert values["again"].state == values["run"].state


def test_readme_script_example_runs_as_a_script(tmp_path: Path) -> None:
    script = tmp_path / "agent_demo.py"
    script.write_text(_python_blocks()[1], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.startswith("interrupted - ")
    assert second == "completed - Refunded order 42."


def test_readme_names_the_wheel_of_the_declared_version() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    wheels = re.findall(r"pausepoint-([^-\s]+)-py3-none-any\.whl", README.read_text())
    assert wheels
    assert set(wheels) == {version}


def test_readme_make_targets_exist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, re.M))
    named = set(re.findall(r"`make ([a-z][\w-]*)", README.read_text()))
    assert {"demo", "test"} <= named
    assert named <= targets, named - targets


def test_readme_stays_short_and_starts_with_the_quickstart() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[:2] == ["Getting started", "A first run"], headings


def test_readme_links_name_files_that_exist() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if "://" not in link]
    assert local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing


def _marked_blocks(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    marks = text.count(RUN_MARK)
    blocks = re.findall(rf"^{RUN_MARK}\n```python\n(.*?)^```", text, re.S | re.M)
    assert len(blocks) == marks, f"{page.name}: a {RUN_MARK} line must come right before ```python"
    return blocks


def _compile(block: str, name: str) -> Any:
    return compile(block, name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=lambda page: page.stem)
async def test_docs_examples_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem}"}
    for number, block in enumerate(_marked_blocks(page), 1):
        outcome = eval(_compile(block, f"docs/{page.name}, example {number}"), namespace)
        if inspect.iscoroutine(outcome):
            await outcome


def test_the_guide_pages_have_examples_that_run() -> None:
    with_examples = {page.stem for page in PAGES_WITH_EXAMPLES}
    expected = {"index", "models", "wire", "debugging", "durable", "stopping", "values"}
    assert expected <= with_examples, expected - with_examples


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda page: page.stem)
def test_every_python_block_compiles(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for number, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S), 1):
        _compile(block, f"{page.name}, block {number}")
