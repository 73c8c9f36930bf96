"""The run view in a real JupyterLab (headless Chromium): live runs of many tool calls.

For each size, a scripted agent makes N tool calls (one a turn, every 10th pausing for an
answer the kernel gives at once) while its view is on screen. Printed, for the live run and
for showing the finished run afterwards (the baseline), side by side:

- drawn after kernel: from the kernel finishing the run (or the cell that shows the
  finished run starting) to the view showing everything (the last call succeeded, the
  final message, the status "completed");
- longest task / long tasks total: main-thread tasks over 50 ms (PerformanceObserver
  `longtask`) from the run's start until everything is drawn;
- DOM nodes per view once everything is drawn.

Goals, with the Debug panel open, a filter and a pin: longest task < 100 ms while a run of
up to 10,000 calls works; drawn within 1 s of the kernel finishing at 2,000 calls and 2 s
at 10,000; DOM nodes per view < 5,000. Each size ends with the live run's figures against
them: met or MISSED.

With `--remote`, the kernel instead serves the same agent over AG-UI (`serve(agent)`, a
stateless server in a thread of the kernel) and the view is a `RemoteRun` following it;
the same figures, for "a remote run of 2,000 calls meets the view's budgets".

By default a person explores the live run while it works, as the budgets ask: the Debug
panel is opened (its waterfall follows the run), the find bar filters the transcript by
tool and a call it found is pinned, each as soon as it can be, and the filter is cleared
once the kernel has finished (back to the live tail, where "drawn" looks; the pin stays).
With `--watch` the person only watches.

    make bench-view                  # or: python benchmarks/bench_view.py [--calls 500 2000]
    python benchmarks/bench_view.py --remote --calls 2000
    python benchmarks/bench_view.py --watch
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "browser"))
sys.path.insert(0, str(HERE.parent))  # the conftest imports tests.browser.helpers

from tests.browser.helpers import LAB_APP, Lab, serve  # noqa: E402

from conftest import CHROMIUM, LAUNCH_ARGS, new_notebook  # noqa: E402

SETUP = f"""
import sys, time
sys.path.insert(0, {str(HERE)!r})
from _workload import confirm, one_call_per_turn
from pausepoint import Agent, ScriptedModel, action

@action
async def lookup(n: int) -> dict:
    \"\"\"Return a small record for n.\"\"\"
    return {{"n": n, "label": f"item {{n}}", "tags": ["a", "b"]}}

CALLS = {{calls}}
agent = Agent(model=ScriptedModel(one_call_per_turn(CALLS, "lookup")), actions=[lookup, confirm])
run = agent.new_run("go")
run
"""
WORK = """
started = time.time() * 1000
result = await run.run()
while result.status == "interrupted":
    result = await run.resume(True)
print("BENCH", started, time.time() * 1000, result.status)
"""
# --remote: the kernel serves the same agent over AG-UI and shows a RemoteRun following it.
REMOTE = """
from pausepoint.agui import RemoteRun, serve
server = serve(agent)
run = RemoteRun(server.url)
run
"""
REMOTE_WORK = WORK.replace("run.run()", 'run.run("go")')
SHOW_AGAIN = """
print("SHOWN", time.time() * 1000)
run
"""

# Long tasks, from the page's first moment (buffered entries are not kept for longtask).
OBSERVE = """
window.__ppLong = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    window.__ppLong.push([performance.timeOrigin + e.startTime, e.duration]);
  }
}).observe({type: 'longtask', buffered: true});
"""

# Resolves with the epoch ms of the first frame at which view `index` shows everything.
DRAWN = """
([index, last, timeout]) => new Promise((resolve, reject) => {
  const until = Date.now() + timeout;
  const check = () => {
    if (Date.now() > until) return reject(new Error(`not drawn within ${timeout} ms`));
    const view = document.querySelectorAll('.jp-OutputArea-output .pp-root')[index];
    const done = view
      && view.querySelector('[data-testid="pp-status"]')?.dataset.status === 'completed'
      && view.querySelector(`[data-tool-call-id="${last}"][data-status="succeeded"]`)
      && view.textContent.includes('All done.');
    if (done) resolve(Date.now()); else requestAnimationFrame(check);
  };
  check();
})
"""


@dataclass
class Figures:
    drawn_after_ms: float
    longest_ms: float
    long_total_ms: float
    long_count: int
    nodes: int


def _long_tasks(page: Any, since: float, until: float) -> tuple[float, float, int]:
    tasks = page.evaluate("() => window.__ppLong")
    inside = [d for start, d in tasks if start + d >= since and start <= until]
    return (max(inside, default=0.0), sum(inside), len(inside))


def _nodes(page: Any, index: int) -> int:
    return int(
        page.evaluate(
            "(i) => document.querySelectorAll('.jp-OutputArea-output .pp-root')[i]"
            ".querySelectorAll('*').length",
            index,
        )
    )


# The text of the first output of cell `cell` that holds `word`, once there is one. A light
# check four times a second: the page's main thread is what is measured.
OUTPUT = """
([cell, word]) => {
  const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');
  for (const out of cells[cell]?.querySelectorAll('.jp-OutputArea-output') ?? []) {
    if (out.textContent.includes(word)) return out.textContent;
  }
  return null;
}
"""


def _output_numbers(nb_page: Any, cell: int, word: str, timeout: float) -> list[float]:
    text = nb_page.wait_for_function(OUTPUT, arg=[cell, word], timeout=timeout, polling=250)
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text.json_value().split(word, 1)[1])]


def _run_cell(page: Any, index: int) -> None:
    page.evaluate(
        """(i) => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = i;
            window.jupyterapp.commands.execute('notebook:run-cell');
        }""",
        index,
    )


def measure(
    lab: Lab,
    browser: Any,
    calls: int,
    timeout_s: float,
    remote: bool = False,
    explore: bool = False,
) -> tuple[Figures, Figures]:
    name = f"bench-{calls}-{uuid.uuid4().hex[:6]}"
    setup = SETUP.replace("{calls}", str(calls))
    if remote:
        setup = setup.removesuffix("run\n") + REMOTE
    nb = new_notebook([setup, REMOTE_WORK if remote else WORK, SHOW_AGAIN])
    nbformat.write(nb, lab.root / f"{name}.ipynb")
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.add_init_script(OBSERVE)
    page.goto(f"{lab.url}/lab/workspaces/{name}/tree/{name}.ipynb?token={lab.token}&reset")
    page.wait_for_function(
        "() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel"
        "?.status === 'idle'",
        timeout=60_000,
    )
    last = f"call_{calls}"
    try:
        _run_cell(page, 0)
        page.locator(".jp-OutputArea-output .pp-root").first.wait_for(timeout=60_000)
        _run_cell(page, 1)
        if explore:
            _explore(page, timeout_s)
        started, finished = _output_numbers(page, 1, "BENCH", timeout_s * 1000)[:2]
        if explore:  # back to the live tail, where the last call is drawn
            page.locator('[data-testid="pp-find-clear"]').first.click()
        drawn = float(page.evaluate(DRAWN, [0, last, timeout_s * 1000]))
        longest, total, count = _long_tasks(page, started, drawn)
        live = Figures(drawn - finished, longest, total, count, _nodes(page, 0))

        _run_cell(page, 2)
        (shown,) = _output_numbers(page, 2, "SHOWN", timeout_s * 1000)[:1]
        page.locator(".jp-OutputArea-output .pp-root").nth(1).wait_for(timeout=timeout_s * 1000)
        drawn2 = float(page.evaluate(DRAWN, [1, last, timeout_s * 1000]))
        longest, total, count = _long_tasks(page, shown, drawn2)
        again = Figures(drawn2 - shown, longest, total, count, _nodes(page, 1))
        return live, again
    finally:
        context.close()
        for session in lab.api("GET", "/api/sessions") or []:
            lab.api("DELETE", f"/api/sessions/{session['id']}")


def _explore(page: Any, timeout_s: float) -> None:
    """Open the first view's Debug panel, filter its transcript by tool and pin the first
    call found, while the run works (each as soon as it is drawn: the panel after the
    first turn, the find bar once the transcript is longer than the rows a view draws)."""
    view = page.locator(".jp-OutputArea-output .pp-root").first
    view.locator('[data-testid="pp-debug"] > summary').click(timeout=timeout_s * 1000)
    view.locator('[data-testid="pp-find-tool"]').select_option("lookup", timeout=timeout_s * 1000)
    found = view.locator('[data-testid="pp-found"] [data-testid="pp-pin"]').first
    found.click(timeout=timeout_s * 1000)
    view.locator('[data-testid="pp-pinned"]').wait_for(timeout=timeout_s * 1000)


def _row(label: str, live: Figures | None, again: Figures | None, attr: str, unit: str) -> str:
    def cell(f: Figures | None) -> str:
        if f is None:
            return "timed out"
        value = getattr(f, attr)
        return f"{value:,.0f} {unit}".strip()

    return f"  {label:<34}{cell(live):>16}{cell(again):>22}"


def _budgets(calls: int, live: Figures | None) -> str:
    """The live run's figures against the goals above: each met or missed."""
    if live is None:
        return "  budgets: not measured"
    drawn_ms = 1000 if calls <= 2000 else 2000
    checks = [
        ("longest task < 100 ms", live.longest_ms < 100),
        (f"drawn ≤ {drawn_ms // 1000} s after the kernel", live.drawn_after_ms <= drawn_ms),
        ("DOM < 5,000 nodes", live.nodes < 5000),
    ]
    return "  budgets: " + "; ".join(f"{what} {'met' if ok else 'MISSED'}" for what, ok in checks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, nargs="+", default=[500, 2000, 10_000])
    parser.add_argument("--timeout", type=float, default=180, help="seconds per size")
    parser.add_argument(
        "--remote", action="store_true", help="a RemoteRun of the agent served from the kernel"
    )
    parser.add_argument(
        "--watch",
        action="store_true",
        help="only watch the run (no Debug panel, filter or pin)",
    )
    args = parser.parse_args()
    if CHROMIUM is None:
        raise SystemExit("bench_view needs Chromium: apt-get install -y chromium")
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        server = serve(Path(tmp), LAB_APP)
        lab = next(server)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
                for calls in args.calls:
                    live: Figures | None
                    again: Figures | None
                    try:
                        live, again = measure(
                            lab, browser, calls, args.timeout, args.remote, not args.watch
                        )
                    except (PlaywrightError, AssertionError) as exc:
                        print(f"  ({calls} calls: {str(exc).splitlines()[0]})")
                        live = again = None
                    head = f"{calls:,} tool calls{' (remote)' if args.remote else ''}"
                    head += "" if args.watch else " (panel, filter, pin)"
                    # The headings end where the columns' figures do (see `_row`).
                    print(f"\n{head}{'live run':>{52 - len(head)}}{'finished run shown':>22}")
                    print(_row("drawn after kernel finished", live, again, "drawn_after_ms", "ms"))
                    print(_row("longest task", live, again, "longest_ms", "ms"))
                    print(_row("long tasks total", live, again, "long_total_ms", "ms"))
                    print(_row("long tasks", live, again, "long_count", ""))
                    print(_row("DOM nodes per view", live, again, "nodes", ""))
                    print(_budgets(calls, live))
                    sys.stdout.flush()
                browser.close()
        finally:
            next(server, None)


if __name__ == "__main__":
    main()
