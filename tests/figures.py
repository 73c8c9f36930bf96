"""Figures a test measures where a person feels them, each printed against its goal.

A pass/fail test never asserts a wall-clock budget: on a loaded machine it would fail for
the machine's sake, not the code's. A test that measures one calls `figure(...)`, which
prints the figure and its goal, and asserts the behaviour the figure is about (the page
answered, the row left the list, nothing hung) with margins no load can reach.

`make bench-view` runs these tests (benchmarks/bench_view_budgets.py) with
`PAUSEPOINT_FIGURES` naming a file: each figure is also appended there as a JSON line,
and the benchmark prints all of them against their goals, met or MISSED.
"""

from __future__ import annotations

import json
import os

FIGURES_ENV = "PAUSEPOINT_FIGURES"


def figure(name: str, value: float, goal: float, unit: str = "ms") -> bool:
    """Prints `name: value unit` against `goal` (met when under it) and records it."""
    met = value < goal
    verdict = "met" if met else "MISSED"
    print(f"\n{name}: {value:,.1f} {unit} (goal: under {goal:,g} {unit}, {verdict})")
    path = os.environ.get(FIGURES_ENV)
    if path:
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        record = {"test": test, "name": name, "value": value, "goal": goal, "unit": unit}
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
    return met
