"""Loop overhead per tool call, and whether it grows with the transcript.

A scripted agent makes N tool calls, one per model turn; the actions are trivial and every
10th call pauses for an answer that the benchmark gives at once with `resume`. Beside it
runs a baseline: the same model function and the same actions called directly in a plain
loop, with no transcript. The difference is what pausepoint costs per step.

Prints, per size: µs per step for pausepoint and for the baseline, the overhead, and for
the largest size the ratio of the time of the last 100 steps to the first 100 (a loop
doing work proportional to the transcript's length per step would show a ratio far
above 1). Goals: overhead under 100 µs per step, ratio under 1.5.

Then, side by side in one run, stepping when it is not used: the same workload (no
`step`, no breakpoints) with this pausepoint and with pausepoint as it was before stepping
and breakpoints existed (`--before`, a git revision; by default the parent of the commit
that added them), each in its own fresh process, taking turns, and the ratio of their
CPU time per step, with and without the time of the garbage collector's passes. That
revision also lacks the timing records per model call and action (start, end, attempts)
that came with the same change and are always kept, so the ratio includes their cost; an
unused debugger itself adds one check per tool call.

Then the hot path side by side with another main (`--main`, a git revision): loop
overhead per step at 10, 100 and 1,000 calls, one resume, restoring a saved 100-step run
(and resuming it), and the saved bytes per step, with the goals beside them (see
`_hot_path.py`).

    python benchmarks/bench_loop.py [--sizes 10 100 1000 5000] [--repeat 3]
        [--main REV | --no-main] [--before REV | --no-before] [--before-sizes 1000 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

from _hot_path import side_by_side
from _workload import confirm, one_call_per_turn
from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    Resumption,
    ScriptedModel,
    action,
)


@action
async def bump(n: int) -> int:
    """Return n + 1."""
    return n + 1


async def run_pausepoint(size: int) -> list[float]:
    """Returns the perf_counter time at the end of each step."""
    agent = Agent(
        model=_NoStream(ScriptedModel(one_call_per_turn(size, "bump"))), actions=[bump, confirm]
    )
    run = agent.new_run("go")
    stamps: list[float] = []
    run.on("tool_call_finished", lambda e: stamps.append(time.perf_counter()))
    stamps.append(time.perf_counter())
    result = await run.run()
    while result.status == "interrupted":
        result = await run.resume(True)
    assert result.status == "completed", result.error
    assert len(stamps) == size + 1
    return stamps


async def run_baseline(size: int) -> list[float]:
    """The same model function and actions, called directly with no transcript."""
    respond = one_call_per_turn(size, "bump")
    request = ModelRequest(instructions=None, items=(), actions=())
    stamps = [time.perf_counter()]
    while True:
        turn = respond(request)
        if isinstance(turn, str):
            break
        act = bump if turn.name == "bump" else confirm
        value = act.validate_input(turn.input)
        ctx = ActionContext(tool_call_id=turn.id, action_name=turn.name, run_id="r")
        try:
            await act.fn(value.n) if act is bump else await act.fn(value.n, ctx)
        except ActionInterrupt:
            ctx = ActionContext(turn.id, turn.name, "r", Resumption(True, {"n": value.n}, "i"))
            await act.fn(value.n, ctx)
        stamps.append(time.perf_counter())
    return stamps


class _NoStream:
    """Calls the scripted model's `request` only, as a non-streaming provider would."""

    def __init__(self, model: ScriptedModel) -> None:
        self._model = model

    async def request(self, request: ModelRequest) -> Any:
        return await self._model.request(request)


def _per_step_us(stamps: list[float]) -> float:
    return (stamps[-1] - stamps[0]) / (len(stamps) - 1) * 1e6


_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parent
# The file that came with stepping and breakpoints: the parent of the commit that added it
# is pausepoint without them.
_DEBUGGER_SOURCE = "src/pausepoint/run/_debug.py"


def _git(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=_ROOT, check=True, capture_output=True).stdout


def _before_debugger() -> str:
    added = _git("log", "--diff-filter=A", "--format=%H", "--", _DEBUGGER_SOURCE).split()
    if not added:
        raise SystemExit(f"No commit adds {_DEBUGGER_SOURCE}; pass --before REV.")
    return added[-1].decode() + "^"


def _extract_source(rev: str, into: Path) -> Path:
    """pausepoint's `src` folder at `rev`, unpacked into `into`."""
    archive = _git("archive", "--format=tar", rev, "src")
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _measure_one(size: int) -> dict[str, float]:
    """CPU µs per step of one run of the workload, and how much of it went to the
    garbage collector's passes (a full pass comes once the heap has grown by a quarter,
    so a few thousand more objects can add one to a run: a step in the curve, not a cost
    per step that grows)."""
    in_gc = 0.0
    began = 0.0

    def timed(phase: str, _info: dict[str, Any]) -> None:
        nonlocal in_gc, began
        if phase == "start":
            began = time.process_time()
        else:
            in_gc += time.process_time() - began

    gc.collect()
    gc.callbacks.append(timed)
    started = time.process_time()
    asyncio.run(run_pausepoint(size))
    cpu = time.process_time() - started
    gc.callbacks.remove(timed)
    return {"us_per_step": cpu / size * 1e6, "gc_us_per_step": in_gc / size * 1e6}


def _step_us_in_fresh_process(src: Path, size: int) -> dict[str, float]:
    """`_measure_one` with the pausepoint found in `src`, in a new process (CPU time:
    other processes' load on the machine counts less)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(_HERE)])}
    done = subprocess.run(
        [sys.executable, __file__, "--one", str(size)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    measured: dict[str, float] = json.loads(done.stdout)
    return measured


def compare_with_before(rev: str, sizes: list[int], repeat: int) -> None:
    """This pausepoint against the one at `rev`, with the workload unchanged."""
    print()
    described = _git("log", "-1", "--format=%h %cs", rev).decode().strip()
    print(f"Stepping when not used: this pausepoint vs {described}, in fresh processes")
    print(
        f"{'steps':>6} {'now CPU µs/step':>16} {'before CPU µs/step':>19} "
        f"{'now / before':>13} {'without GC passes':>18}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        before = _extract_source(rev, Path(tmp))
        now = _ROOT / "src"
        for size in sizes:
            ours: list[dict[str, float]] = []
            theirs: list[dict[str, float]] = []
            for i in range(repeat):
                # Taking turns, starting with each in turn: drift in the machine's load
                # falls on both.
                pair = [(now, ours), (before, theirs)]
                for src, into in pair if i % 2 == 0 else pair[::-1]:
                    into.append(_step_us_in_fresh_process(src, size))
            o = statistics.median(m["us_per_step"] for m in ours)
            t = statistics.median(m["us_per_step"] for m in theirs)
            o_net = statistics.median(m["us_per_step"] - m["gc_us_per_step"] for m in ours)
            t_net = statistics.median(m["us_per_step"] - m["gc_us_per_step"] for m in theirs)
            print(f"{size:>6} {o:>16.1f} {t:>19.1f} {o / t:>13.2f} {o_net / t_net:>18.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 5000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", help="git revision to compare with (default: pre-stepping)")
    parser.add_argument("--no-before", action="store_true", help="skip the comparison")
    parser.add_argument("--before-sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument(
        "--main",
        default="HEAD",
        help="git revision whose hot path is measured beside this checkout's (default: HEAD)",
    )
    parser.add_argument("--no-main", action="store_true", help="skip the hot-path comparison")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a comparison's worker
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(_measure_one(args.one)))
        return

    print(f"{'steps':>6} {'pausepoint µs/step':>19} {'baseline µs/step':>17} {'overhead µs':>12}")
    ratio_runs: list[float] = []
    for size in args.sizes:
        ours, base = [], []
        for _ in range(args.repeat):
            gc.collect()
            stamps = asyncio.run(run_pausepoint(size))
            ours.append(_per_step_us(stamps))
            if size == max(args.sizes) and size >= 200:
                first = stamps[100] - stamps[0]
                last = stamps[-1] - stamps[-101]
                ratio_runs.append(last / first)
            gc.collect()
            base.append(_per_step_us(asyncio.run(run_baseline(size))))
        o, b = statistics.median(ours), statistics.median(base)
        print(f"{size:>6} {o:>19.1f} {b:>17.1f} {o - b:>12.1f}")
    if ratio_runs:
        print(
            f"last-100 / first-100 steps at {max(args.sizes)} steps: "
            f"{statistics.median(ratio_runs):.2f} (runs: "
            + ", ".join(f"{r:.2f}" for r in ratio_runs)
            + ")"
        )
    if not args.no_main:
        side_by_side(args.main, args.repeat)
    if not args.no_before:
        compare_with_before(args.before or _before_debugger(), args.before_sizes, args.repeat)


if __name__ == "__main__":
    main()
