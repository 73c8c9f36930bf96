"""The view's time budgets, measured by the browser tests that exercise them.

The tests under tests/browser/ measure what a person feels (the kernel's answer to a
find, the page's answer while a long run works, a big form's first keystroke, a row
leaving the triage list) and print each figure against its goal; they never fail on one,
so that the suite passes on a loaded machine. This benchmark runs those tests in a real
JupyterLab in headless Chromium with `PAUSEPOINT_FIGURES` set, collects every figure, and
prints them side by side with their goals, met or MISSED, and how many were met. Run it
on a quiet machine: the figures are the machine's as much as the code's.

    make bench-view                          # bench_view.py, then this
    python benchmarks/bench_view_budgets.py  # all of them (minutes)
    python benchmarks/bench_view_budgets.py -k find

The markdown parser's bound per pathological text is measured by the front end's own test
(js/test/markdown-budget.test.ts, in Node). The triage list's "answered elsewhere" figure
needs PostgreSQL (Debian's `postgresql`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Each test that calls tests.figures.figure(...); the figures are theirs.
TESTS = [
    "tests/browser/test_find.py",
    "tests/browser/test_view_reading.py::test_a_2000_call_live_run_stays_responsive_and_ends_fully_drawn",
    "tests/browser/test_view_reading.py"
    "::test_a_catastrophic_pattern_is_left_to_the_kernel_and_its_error_shows_at_the_field",
    "tests/browser/test_big_forms.py",
    "tests/browser/test_hostile_markdown.py::test_twenty_turns_of_nested_emphasis_make_no_long_task",
    "tests/browser/test_inbox_triage.py",
]
# The front end's tests that record figures (js/test/figures.ts).
JS_TESTS = ["test/markdown-budget.test.ts"]


@dataclass(frozen=True)
class Figure:
    test: str
    name: str
    value: float
    goal: float
    unit: str

    @property
    def met(self) -> bool:
        return self.value < self.goal


def collect(keyword: str | None) -> tuple[int, list[Figure]]:
    """Runs the tests with figures recorded; their exit status and the figures."""
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "figures.jsonl"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *TESTS]
        if keyword:
            command += ["-k", keyword]
        # CI=true: a browser test that cannot run fails here instead of skipping.
        env = {**os.environ, "PAUSEPOINT_FIGURES": str(log), "CI": "true"}
        status = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        if not keyword or keyword in "markdown":
            # The front end's own figures: the markdown parser's bound, in Node (vitest).
            js = ["npx", "vitest", "run", *JS_TESTS]
            ran = subprocess.run(js, cwd=ROOT / "js", env=env, check=False).returncode
            status = status or ran
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return status, [Figure(**json.loads(line)) for line in lines]


def table(figures: list[Figure]) -> str:
    width = max((len(f.name) for f in figures), default=10)
    rows = [f"{'figure':<{width}}  {'measured':>12}  {'goal':>12}  verdict"]
    for f in figures:
        measured = f"{f.value:,.1f} {f.unit}"
        goal = f"< {f.goal:,g} {f.unit}"
        rows.append(
            f"{f.name:<{width}}  {measured:>12}  {goal:>12}  {'met' if f.met else 'MISSED'}"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-k", dest="keyword", help="only the tests pytest's -k selects")
    args = parser.parse_args()
    status, figures = collect(args.keyword)
    print()
    print(table(figures))
    print(f"\n{sum(f.met for f in figures)} of {len(figures)} figures within their goals")
    if status != 0:
        sys.exit(f"the tests that measure them failed (pytest exit status {status})")


if __name__ == "__main__":
    main()
