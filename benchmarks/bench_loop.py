"""Loop overhead per tool call, and whether it grows with the transcript.

A scripted agent makes N tool calls, one per model turn; the actions are trivial and every
10th call pauses for an answer that the benchmark gives at once with `resume`. Beside it
runs a baseline: the same model function and the same actions called directly in a plain
loop, with no transcript. The difference is what pausepoint costs per step.

Prints, per size: µs per step for pausepoint and for the baseline, the overhead, and for
the largest size the ratio of the time of the last 100 steps to the first 100 (a loop
doing work proportional to the transcript's length per step would show a ratio far
above 1). Goals: overhead under 100 µs per step, ratio under 1.5.

    python benchmarks/bench_loop.py [--sizes 10 100 1000 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from typing import Any

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 5000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

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


if __name__ == "__main__":
    main()
