"""The README works as written: its examples run, and its commands name what exists."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"


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
