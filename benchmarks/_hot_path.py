"""The figures a person feels in the loop, measured the same way for any pausepoint.

Run as a worker (``python _hot_path.py``) with some pausepoint on PYTHONPATH, it prints
one JSON object of figures; `side_by_side` runs it for this checkout and for a git
revision, each in fresh processes taking turns, and prints both with their ratio.

The figures, each the median of many repetitions in one process:

- ``overhead_us@N``: µs per tool-call step of a run of N calls (one per model turn, every
  10th pausing and answered at once), minus the same model function and actions called
  in a plain loop;
- ``resume_us``: ``await run.resume(True)`` on a run paused at its only call, whose model
  then ends the run (records the answer, runs the action again, asks the model once);
- ``restore_us``: a saved 100-step run, paused at its last call, loaded back
  (``Prompt.model_validate_json``), made an ``AgentRun`` and asked for its state;
- ``restore_resume_us``: the same, then answered, until it completes;
- ``saved_bytes_per_step``: the saved JSON of that run over its 100 steps.

Only public names are used, so older revisions run it unchanged.
"""

from __future__ import annotations

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
from collections.abc import Awaitable, Callable
from io import BytesIO
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parent
FIGURES = [
    "overhead_us@10",
    "overhead_us@100",
    "overhead_us@1000",
    "resume_us",
    "restore_us",
    "restore_resume_us",
    "saved_bytes_per_step",
]
GOALS = {
    "overhead_us@10": 40.0,
    "overhead_us@100": 15.0,
    "overhead_us@1000": 15.0,
    "resume_us": 60.0,
    "restore_us": 600.0,
}


def _median_us(repeat: int, once: Callable[[], Awaitable[float]]) -> float:
    async def many() -> list[float]:
        return [await once() for _ in range(repeat)]

    gc.collect()
    return statistics.median(asyncio.run(many())) * 1e6


def measure() -> dict[str, float]:
    from _workload import confirm, one_call_per_turn
    from bench_loop import _NoStream, bump, run_baseline, run_pausepoint
    from pausepoint import Agent, AgentRun, Prompt, ScriptedModel

    figures: dict[str, float] = {}
    for size, repeat in ((10, 400), (100, 60), (1000, 9)):

        async def ours(size: int = size) -> float:
            stamps = await run_pausepoint(size)
            return (stamps[-1] - stamps[0]) / size

        async def base(size: int = size) -> float:
            stamps = await run_baseline(size)
            return (stamps[-1] - stamps[0]) / size

        figures[f"overhead_us@{size}"] = _median_us(repeat, ours) - _median_us(repeat, base)

    def agent(calls: int) -> Agent:
        script = one_call_per_turn(calls, "bump")
        return Agent(model=_NoStream(ScriptedModel(script)), actions=[bump, confirm])

    async def resume_leg() -> float:
        # One call, to `confirm` (it pauses), then the model's final text.
        run = Agent(
            model=_NoStream(ScriptedModel(_one_confirm())), actions=[bump, confirm]
        ).new_run("go")
        await run.run()
        began = time.perf_counter()
        result = await run.resume(True)
        took = time.perf_counter() - began
        assert result.status == "completed", result
        return took

    figures["resume_us"] = _median_us(400, resume_leg)

    saved = asyncio.run(_saved_run(agent(100)))
    figures["saved_bytes_per_step"] = len(saved.encode()) / 100

    async def restore() -> float:
        began = time.perf_counter()
        run = AgentRun(agent(100), Prompt.model_validate_json(saved))
        assert run.state.status == "interrupted"
        return time.perf_counter() - began

    figures["restore_us"] = _median_us(200, restore)

    async def restore_resume() -> float:
        fresh = agent(100)
        await _skip_turns(fresh, 100)
        began = time.perf_counter()
        run = AgentRun(fresh, Prompt.model_validate_json(saved))
        result = await run.resume(True)
        took = time.perf_counter() - began
        assert result.status == "completed", result
        return took

    figures["restore_resume_us"] = _median_us(200, restore_resume)
    return figures


def _one_confirm() -> Callable[[Any], Any]:
    from pausepoint import ToolCallRequest

    made = False

    def respond(request: Any) -> Any:
        nonlocal made
        if made:
            return "Done."
        made = True
        return ToolCallRequest(id="call_1", name="confirm", input={"n": 1})

    return respond


async def _saved_run(agent: Any) -> str:
    """A 100-call run paused at its last call (a `confirm`), saved as JSON."""
    run = agent.new_run("go")
    result = await run.run()
    while result.status == "interrupted" and len(list(run.prompt.tool_calls())) < 100:
        result = await run.resume(True)
    assert result.status == "interrupted", result
    text: str = run.prompt.model_dump_json()
    return text


async def _skip_turns(agent: Any, turns: int) -> None:
    """Move the scripted model past the turns the saved run already took."""
    from pausepoint import ModelRequest

    request = ModelRequest(instructions=None, items=(), actions=())
    for _ in range(turns):
        await agent.model.request(request)


def _extract_source(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "src"], cwd=_ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _in_fresh_process(src: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(_HERE)])}
    done = subprocess.run(
        [sys.executable, str(Path(__file__))], env=env, check=True, capture_output=True, text=True
    )
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def side_by_side(rev: str, repeat: int) -> None:
    """Every figure for this checkout and for `rev`, in fresh processes taking turns."""
    described = subprocess.run(
        ["git", "log", "-1", "--format=%h %cs", rev], cwd=_ROOT, check=True, capture_output=True
    ).stdout.decode()
    print()
    print(f"The hot path: this checkout vs {described.strip()}, medians of {repeat} processes each")
    with tempfile.TemporaryDirectory() as tmp:
        before = _extract_source(rev, Path(tmp))
        now = _ROOT / "src"
        ours: list[dict[str, float]] = []
        theirs: list[dict[str, float]] = []
        for i in range(repeat):
            pair = [(now, ours), (before, theirs)]
            for src, into in pair if i % 2 == 0 else pair[::-1]:
                into.append(_in_fresh_process(src))
    print(f"{'figure':>22} {'now':>10} {'before':>10} {'now/before':>11} {'goal':>8}")
    for name in FIGURES:
        o = statistics.median(f[name] for f in ours)
        t = statistics.median(f[name] for f in theirs)
        goal = GOALS.get(name)
        mark = "" if goal is None else f"≤ {goal:g}" + (" ✓" if o <= goal else " ✗")
        print(f"{name:>22} {o:>10.1f} {t:>10.1f} {o / t:>11.2f} {mark:>8}")


if __name__ == "__main__":
    print(json.dumps(measure()))
