"""The package's metadata: one version, declared once."""

from __future__ import annotations

import ast
import json
import re
import sys
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


def _demo_requirements() -> tuple[set[str], set[str]]:
    """The distributions `pip install -e '.[demo]'` asks for by name (the core's and every
    extra's the demo extra names, followed through `pausepoint[...]`), and those extras."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    names: set[str] = set()
    todo, seen = ["demo"], set()
    requirements = list(project["dependencies"])
    while todo:
        extra = todo.pop()
        seen.add(extra)
        requirements += extras[extra]
        for requirement in extras[extra]:
            if requirement.startswith("pausepoint["):
                todo += [e for e in requirement[11:-1].split(",") if e not in seen]
    for requirement in requirements:
        name = re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0]
        names.add(name.lower().replace("_", "-"))
    return names - {"pausepoint"}, seen


def test_the_demo_extra_installs_what_every_notebook_imports() -> None:
    # make demo installs the demo extra; a notebook that imports what it leaves out stops
    # at a pip install the reader has to find (notebook 09 did, at serve()).
    provided = {
        module: {d.lower().replace("_", "-") for d in dists}
        for module, dists in metadata.packages_distributions().items()
    }
    wanted, extras = _demo_requirements()
    missing: dict[str, set[str]] = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        written = {  # modules the notebook writes itself (`payments.py`)
            name for cell in cells for name in re.findall(r"(\w+)\.py\b", "".join(cell["source"]))
        }
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            if source.startswith("%%writefile"):
                source = source.split("\n", 1)[1]
            source = "\n".join(line for line in source.splitlines() if not line.startswith("%"))
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    if module.startswith("pausepoint.agui") and "agui" not in extras:
                        missing.setdefault(path.name, set()).add(module)
                    top = module.split(".")[0]
                    if top in sys.stdlib_module_names or top in written | {"pausepoint"}:
                        continue
                    if top in provided and provided[top] & wanted:
                        continue
                    if top in provided and _required_by(provided[top], wanted):
                        continue
                    missing.setdefault(path.name, set()).add(top)
    assert not missing, f"imported by notebooks but not installed by the demo extra: {missing}"


def _required_by(dists: set[str], wanted: set[str]) -> bool:
    """Whether one of `dists` is installed as a dependency of a distribution in `wanted`."""
    for name in wanted:
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for requirement in requires:
            if "extra ==" in requirement:
                continue
            dependency = re.split(r"[\[<>=!~; (]", requirement, maxsplit=1)[0]
            if dependency.lower().replace("_", "-") in dists:
                return True
    return False
