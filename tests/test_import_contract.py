"""The import contract of docs/architecture.md, read from the source with `ast` (nothing
is imported).

Each top-level package or module of pausepoint is one node: `transcript`, `actions`,
`interrupts`, `models`, `store`, `run`, `humans`, `agui`, `widget`, `temporal`, and the
root's helper modules (`_json`, `_formats`, `errors`, `events`, ...) each on its own; the
root `__init__` is `pausepoint`.

- No import cycle between nodes, with no exception: imports at module level, inside
  functions and under TYPE_CHECKING all count. A run shows itself through the display the
  widget registers (`pausepoint.run.run_display`), never by importing the widget.
- No module imports another package's private module (`pausepoint.run._debug` from
  outside `run/`); a package's public `__init__` and the root's own helpers are fine.
- Each package imports only from the layers above it.
- `interrupts` (the wire package) imports nothing from the layers below it, nor
  `actions`, not even for type checking.

A violation fails with every import that makes it, file and line.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import pytest

SRC = Path(__file__).parents[1] / "src"
ROOT_PACKAGE = "pausepoint"

# The layers of docs/architecture.md, top first: each imports only from the ones above it.
# `decisions` is the old home of the transcript's reading of answers (now
# `transcript.decisions`); the root's helper modules are not layered.
LAYERS = [
    {"transcript", "decisions"},
    {"actions"},
    {"interrupts"},
    {"models"},
    {"store"},
    {"run"},
    {"humans"},
    {"agui"},
    {"widget"},
    {"temporal"},
]

# Nodes the wire package must not import (pure: it imports nothing below it).
WIRE = "interrupts"
NOT_FOR_THE_WIRE = {"actions", "models", "store", "run", "humans", "agui", "widget", "temporal"}

Kind = Literal["module", "lazy", "typing"]


@dataclass(frozen=True)
class Import:
    """One imported pausepoint module, where and how it is imported."""

    importer: str
    imported: str
    line: int
    kind: Kind

    @property
    def where(self) -> str:
        path = self.importer.replace(".", "/")
        suffix = "/__init__.py" if is_package(self.importer) else ".py"
        return f"src/{path}{suffix}:{self.line}"

    def __str__(self) -> str:
        how = {"module": "", "lazy": " (inside a function)", "typing": " (TYPE_CHECKING)"}
        return f"{self.where}: {self.importer} imports {self.imported}{how[self.kind]}"


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    found: dict[str, Path] = {}
    for path in sorted((SRC / ROOT_PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def is_package(name: str) -> bool:
    return modules()[name].name == "__init__.py"


def node_of(module: str) -> str:
    """`pausepoint.run._run` -> `run`; `pausepoint._json` -> `_json`; the root -> itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = importer if is_package(importer) else importer.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


class _Finder(ast.NodeVisitor):
    def __init__(self, importer: str) -> None:
        self.importer = importer
        self.found: list[Import] = []
        self.kind: Kind = "module"

    def _inside(self, kind: Kind, body: Iterable[ast.AST]) -> None:
        before = self.kind
        # TYPE_CHECKING wins over lazy: such an import never runs.
        self.kind = "typing" if "typing" in (before, kind) else kind
        for child in body:
            self.visit(child)
        self.kind = before

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self._inside("typing", node.body)
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._inside("lazy", node.body)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._inside("lazy", node.body)

    def _add(self, name: str, line: int) -> None:
        if name == ROOT_PACKAGE or name.startswith(ROOT_PACKAGE + "."):
            self.found.append(Import(self.importer, name, line, self.kind))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = _resolve(self.importer, node)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            self._add(submodule if submodule in modules() else base, node.lineno)


@cache
def imports() -> tuple[Import, ...]:
    found: list[Import] = []
    for name, path in modules().items():
        finder = _Finder(name)
        finder.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found.extend(dict.fromkeys(finder.found))  # `from x import a, b` is one import of x
    return tuple(found)


def _cycles(edges: Iterable[Import]) -> Iterator[tuple[str, list[Import]]]:
    """Each group of nodes that import each other (Tarjan's strongly connected
    components), with the imports that tie it together."""
    graph: dict[str, set[str]] = defaultdict(set)
    for edge in edges:
        a, b = node_of(edge.importer), node_of(edge.imported)
        if a != b:
            graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    edges = list(edges)
    for group in groups:
        ties = [
            e
            for e in edges
            if node_of(e.importer) in group
            and node_of(e.imported) in group
            and node_of(e.importer) != node_of(e.imported)
        ]
        yield " <-> ".join(sorted(group)), ties


def _cycle_violations(kinds: set[Kind], prefix: str) -> dict[str, list[Import]]:
    edges = [e for e in imports() if e.kind in kinds]
    return {f"{prefix}{key}": ties for key, ties in _cycles(edges)}


def _private(imported: str) -> str | None:
    """The package that owns `imported` privately, if it is a private module."""
    parts = imported.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_"):
            return ".".join(parts[:i])
    return None


def _private_violations() -> dict[str, list[Import]]:
    found: dict[str, list[Import]] = defaultdict(list)
    for e in imports():
        owner = _private(e.imported)
        inside = e.importer == owner or e.importer.startswith(f"{owner}.")
        if owner is not None and not inside:
            found[f"private: {node_of(e.importer)} -> {e.imported}"].append(e)
    return found


def _wire_violations() -> dict[str, list[Import]]:
    found: dict[str, list[Import]] = defaultdict(list)
    for e in imports():
        if node_of(e.importer) == WIRE and node_of(e.imported) in NOT_FOR_THE_WIRE:
            found[f"wire: {WIRE} -> {node_of(e.imported)}"].append(e)
    return found


def _layer_violations() -> dict[str, list[Import]]:
    rank = {node: i for i, layer in enumerate(LAYERS) for node in layer}
    found: dict[str, list[Import]] = defaultdict(list)
    for e in imports():
        a, b = node_of(e.importer), node_of(e.imported)
        if a not in rank or b not in rank or rank[b] <= rank[a]:
            continue
        found[f"layer: {a} -> {b}"].append(e)
    return found


def _check(found: dict[str, list[Import]]) -> None:
    lines: list[str] = []
    for key in sorted(found):
        lines.append(key)
        lines.extend(f"    {e}" for e in found[key])
    if lines:
        report = "\n".join(lines)
        pytest.fail(f"import contract (docs/architecture.md, Layers):\n{report}", pytrace=False)


def test_no_import_cycle_between_packages() -> None:
    _check(_cycle_violations({"module", "lazy"}, "cycle: "))


def test_no_import_cycle_between_packages_counting_type_checking_imports() -> None:
    prefix = "cycle with TYPE_CHECKING: "
    _check(_cycle_violations({"module", "lazy", "typing"}, prefix))


def test_no_module_imports_another_packages_private_module() -> None:
    _check(_private_violations())


def test_each_package_imports_only_from_the_layers_above_it() -> None:
    _check(_layer_violations())


def test_the_wire_package_imports_nothing_below_it() -> None:
    _check(_wire_violations())
