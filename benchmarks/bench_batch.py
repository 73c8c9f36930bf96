"""A batch of runs on many worker processes, on pausepoint and on LangGraph side by side.

R runs × K steps (one tool call per model turn from a scripted model, no network; step
(K + 1) // 2 asks for an approval), on one PostgreSQL server started here as the tests
start it (`TemporaryPostgres`, fsync on unless `--no-fsync`), for W worker processes
each (`--workers 1 2 4`), each W on a fresh database:

1. the runs are created and the W workers run them until every run waits for its
   approval (phase 1; pausepoint's workers claim runs while the parent creates them);
2. the parent gives every approval in bulk while the workers watch, and they carry every
   run to completion (phase 2).

Printed per side and W: runs/s and steps/s over phases 1 and 2, commits per step (the
transaction ids the server gave out during the round, everything included: creating the
runs, claims and leases, approvals), the worker processes' CPU time per step, p50/p99
time from the bulk approval being given to each approved action running (the action notes
the time when it runs), and the wall time; then the
ratios pausepoint / LangGraph, and each side's commits split into what a step costs and
what a run costs besides (the same runs at K and 2K steps, one worker, as bench_store
counts commits per step). Last, pausepoint on SQLite (synchronous=FULL, one worker
process): commits (counted by the stores) and fdatasync + fsync calls (strace on every
process of the round; skipped with a note without strace) per step, all included and
split the same way.

pausepoint: `pausepoint.Worker`s claim runs by lease (`_batch_pausepoint.py`); the
parent approves every run with an inbox's bulk `approve`, the inbox made with
`continue_runs=False`: each answer is committed and the run left to a worker.
LangGraph (the `bench` extra: langgraph-checkpoint-postgres): a model node and a tools
node with `interrupt()`, on `PostgresSaver`, each step persisted before the next
(`durability="sync"`); it has no leases, so worker i of W takes threads i, i + W, ...;
the parent inserts every approval in one transaction with a NOTIFY, and each worker
resumes its threads with `Command(resume=True)` (`_batch_langgraph.py`).

    python benchmarks/bench_batch.py [--runs 200] [--steps 10] [--workers 1 2 4]
        [--sides pausepoint langgraph sqlite] [--repeat 1] [--dsn postgresql://...]
        [--no-fsync] [--durability sync|async|exit]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from _batch import Batch, Round, WorkerProcess, latencies, replies
from _counts import count_fsyncs, fresh_database, next_xid, strace_missing
from pausepoint.store import RunStore, TemporaryPostgres

HERE = Path(__file__).resolve().parent
SIDES = ("pausepoint", "langgraph", "sqlite")
TIMEOUT = 900.0
"""Seconds a phase may take before the round is given up."""


@contextmanager
def _workers(argvs: Sequence[Sequence[str]]) -> Iterator[list[WorkerProcess]]:
    started = [WorkerProcess(argv) for argv in argvs]
    try:
        replies(started)  # each says it is ready
        yield started
    finally:
        for worker in started:
            worker.close()


def _commits(where: str) -> int | None:
    return next_xid(where) if where.startswith("postgresql://") else None


async def _reached(store: RunStore, batch: Batch, status: str) -> float:
    """Waits until every run has `status`; returns the time of the last one's commit."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        there = store.runs(status=status)
        if len(there) == batch.runs:
            return max(summary.updated_at for summary in there).timestamp()
        failed = store.runs(status=["failed", "cancelled"])
        if failed:
            raise RuntimeError(f"{len(failed)} runs failed, e.g. {failed[0].run_id}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(there)} of {batch.runs} runs are {status} in time")
        await asyncio.sleep(0.02)


def pausepoint_round(where: str, batch: Batch, workers: int, poll: float) -> Round:
    """The batch on pausepoint, in a PostgreSQL database (a DSN) or a SQLite file."""
    from _batch_pausepoint import approve_all, build_agent, commits_of, create_runs, open_store

    argv = [str(HERE / "_batch_pausepoint.py"), where, *batch.argv(), "--poll", str(poll)]
    store = open_store(where)
    agent = build_agent(batch)
    try:
        with _workers([argv] * workers) as procs:
            before = _commits(where)
            started = time.time()
            replies(procs, "phase1")  # the workers work from here on
            asyncio.run(create_runs(agent, store, batch))
            paused = asyncio.run(_reached(store, batch, "interrupted"))
            replies(procs, "phase2")
            approving = time.time()
            asyncio.run(approve_all(agent, store, batch))
            approved_all = time.time()
            finished = asyncio.run(_reached(store, batch, "completed"))
            results = replies(procs, "stop")
            after = _commits(where)
        acted = {run: at for result in results for run, at in result["acted"].items()}
        counted = [commits_of(store), *(result["commits"] for result in results)]
        commits = (
            after - before
            if after is not None and before is not None
            else sum(count for count in counted if count is not None)
        )
        return Round(
            side="pausepoint",
            workers=workers,
            batch=batch,
            phase1=paused - started,
            approving=approved_all - approving,
            phase2=finished - approving,
            wall=finished - started,
            completed=len(store.runs(status="completed")),
            latencies=latencies(dict.fromkeys(batch.run_ids(), approving), acted),
            commits=commits,
            cpu=sum(result["cpu"] for result in results),
        )
    finally:
        store.close()


def langgraph_round(dsn: str, batch: Batch, workers: int, durability: str) -> Round:
    """The batch on LangGraph's PostgresSaver, in the database of `dsn`."""
    from _batch_langgraph import approve_all, set_up

    set_up(dsn)
    script = [str(HERE / "_batch_langgraph.py"), dsn, *batch.argv(), "--durability", durability]
    argvs = [[*script, "--index", str(i), "--workers", str(workers)] for i in range(workers)]
    with _workers(argvs) as procs:
        before = next_xid(dsn)
        started = time.time()
        waiting = sum(reply["waiting"] for reply in replies(procs, "phase1"))
        paused = time.time()
        if waiting != batch.runs:
            raise RuntimeError(f"{waiting} of {batch.runs} threads wait after phase 1")
        replies(procs, "phase2")
        approving = time.time()
        committed = approve_all(dsn, batch.run_ids())
        finished = max(reply["done"] for reply in replies(procs))
        results = replies(procs, "stop")
        after = next_xid(dsn)
    acted = {run: at for result in results for run, at in result["acted"].items()}
    return Round(
        side="langgraph",
        workers=workers,
        batch=batch,
        phase1=paused - started,
        approving=committed - approving,
        phase2=finished - approving,
        wall=finished - started,
        completed=sum(result["completed"] for result in results),
        latencies=latencies(dict.fromkeys(batch.run_ids(), approving), acted),
        commits=after - before,
        cpu=sum(result["cpu"] for result in results),
        note=f'durability="{durability}"',
    )


def sqlite_round(batch: Batch, poll: float, folder: Path) -> Round:
    """The batch on SQLite (synchronous=FULL) with one worker process, in a child process
    traced by strace when it is installed."""
    out = folder / f"sqlite-{batch.steps}.json"
    db = folder / f"batch-{batch.steps}.db"
    command = [sys.executable, __file__, "--sqlite-child", str(db), str(out)]
    command += [*batch.argv(), "--poll", str(poll)]
    missing = strace_missing()
    fsyncs = None
    if missing is None:
        fsyncs = count_fsyncs(command, folder / "strace.txt")
    else:
        import subprocess

        subprocess.run(command, check=True)
    figures = Round.from_json(json.loads(out.read_text()))
    figures.fsyncs = fsyncs
    figures.note = "timed under strace" if missing is None else f"fsyncs not counted: {missing}"
    return figures


def _row(figures: Round) -> str:
    commits = figures.per_step(figures.commits)
    cpu = None if figures.cpu is None else figures.cpu / figures.steps * 1000
    return (
        f"{figures.side:<11} {figures.workers:>2} {figures.runs_per_s:>8.1f} "
        f"{figures.steps_per_s:>8.1f} {_num(commits):>8} {_num(cpu, 1):>7} "
        f"{figures.latency(0.5) * 1000:>9.0f} {figures.latency(0.99) * 1000:>9.0f} "
        f"{figures.phase1:>8.2f} {figures.approving:>8.2f} {figures.phase2:>8.2f} "
        f"{figures.wall:>7.2f}  {figures.completed}/{figures.batch.runs} completed"
        + (f"; {figures.note}" if figures.note else "")
    )


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _ratio(ours: float | None, theirs: float | None) -> str:
    if ours is None or theirs is None or theirs == 0 or math.isnan(ours) or math.isnan(theirs):
        return "-"
    return f"{ours / theirs:.2f}"


HEADER = (
    f"{'side':<11} {'W':>2} {'runs/s':>8} {'steps/s':>8} {'commits':>8} {'cpu ms':>7} "
    f"{'p50 ms':>9} {'p99 ms':>9} {'phase1 s':>8} {'approve':>8} {'phase2 s':>8} {'wall s':>7}"
)


def print_ratios(rounds: list[Round]) -> None:
    peers = {r.workers: r for r in rounds if r.side == "langgraph"}
    ours = [r for r in rounds if r.side == "pausepoint" and r.workers in peers]
    if not ours:
        return
    print("pausepoint / LangGraph (steps/s: higher is better; the others: lower is better):")
    for mine in ours:
        theirs = peers[mine.workers]
        commits = _ratio(mine.per_step(mine.commits), theirs.per_step(theirs.commits))
        print(
            f"  W={mine.workers}: steps/s {_ratio(mine.steps_per_s, theirs.steps_per_s)}, "
            f"commits per step {commits}, "
            f"p50 {_ratio(mine.latency(0.5), theirs.latency(0.5))}, "
            f"p99 {_ratio(mine.latency(0.99), theirs.latency(0.99))}"
        )


def _peer_missing() -> str | None:
    try:
        import langgraph.checkpoint.postgres  # noqa: F401
    except ImportError:
        return (
            "langgraph-checkpoint-postgres is not installed: pip install -e '.[bench]' "
            "(make bench-batch does)"
        )
    return None


def _server_version(dsn: str) -> str:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SHOW server_version").fetchone()
        fsync = conn.execute("SHOW fsync").fetchone()
    assert row is not None
    assert fsync is not None
    return f"PostgreSQL {row[0]}, fsync={fsync[0]}"


def split(at_k: Round, at_2k: Round, count: str) -> str:
    """What one step and what one run's fixed part cost in `count` (commits or fsyncs),
    from the same runs at K and at 2K steps (as bench_store measures commits per step)."""
    once, twice = getattr(at_k, count), getattr(at_2k, count)
    if once is None or twice is None:
        return "-"
    runs, steps = at_k.batch.runs, at_k.batch.steps
    per_step = (twice - once) / (runs * steps)
    return f"{per_step:.2f} per step + {once / runs - per_step * steps:.1f} per run"


def _speed(figures: Round) -> float:
    return figures.steps_per_s


def postgres_rounds(dsn: str, sides: list[str], args: argparse.Namespace) -> list[Round]:
    """Each side at each W (the round of median steps/s of `--repeat`), then each side's
    commits split per step and per run."""
    batch = Batch(runs=args.runs, steps=args.steps)

    def one(side: str, batch: Batch, workers: int) -> Round:
        with fresh_database(dsn, f"batch_{side}_{workers}_{batch.steps}") as where:
            if side == "pausepoint":
                return pausepoint_round(where, batch, workers, args.poll)
            return langgraph_round(where, batch, workers, args.durability)

    rounds = []
    for workers in args.workers:
        for side in sides:
            tries = sorted((one(side, batch, workers) for _ in range(args.repeat)), key=_speed)
            rounds.append(tries[len(tries) // 2])
            print(_row(rounds[-1]), flush=True)
    print_ratios(rounds)
    runs = min(args.runs, args.split_runs)
    if runs < 1:
        return rounds
    print(
        f"commits split into each step's and each run's (creating, claiming, pausing, "
        f"approving, finishing), from {runs} runs at {args.steps} and {2 * args.steps} "
        "steps, W=1:"
    )
    for side in sides:
        at_k = one(side, Batch(runs=runs, steps=args.steps), 1)
        at_2k = one(side, Batch(runs=runs, steps=2 * args.steps), 1)
        print(f"  {side:<11} {split(at_k, at_2k, 'commits')}", flush=True)
    return rounds


def sqlite_rounds(args: argparse.Namespace, folder: Path) -> list[Round]:
    """pausepoint on SQLite FULL with one worker process, at K and at 2K steps."""
    at_k = sqlite_round(Batch(runs=args.runs, steps=args.steps), args.poll, folder)
    at_2k = sqlite_round(Batch(runs=args.runs, steps=2 * args.steps), args.poll, folder)
    print(
        f"SQLite (synchronous=FULL, one worker process, {args.runs} runs at {args.steps} "
        f"and {2 * args.steps} steps): {at_k.completed}/{args.runs} completed; {at_k.note}"
    )
    print(
        f"  commits per step (counted by the stores): "
        f"{_num(at_k.per_step(at_k.commits))} all included; "
        f"{split(at_k, at_2k, 'commits')}"
    )
    print(
        f"  fsyncs per step (strace: fdatasync + fsync, every process of the round): "
        f"{_num(at_k.per_step(at_k.fsyncs))} all included; "
        f"{split(at_k, at_2k, 'fsyncs')}"
    )
    return [at_k, at_2k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--sides", nargs="+", choices=SIDES, default=list(SIDES))
    parser.add_argument(
        "--split-runs", type=int, default=50, help="runs to split commits with (0: none)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="rounds per side and W; the median is shown"
    )
    parser.add_argument("--poll", type=float, default=0.5, help="pausepoint.Worker(poll=...)")
    parser.add_argument("--durability", default="sync", choices=["sync", "async", "exit"])
    parser.add_argument("--dsn", help="a PostgreSQL server to use instead of starting one")
    parser.add_argument("--no-fsync", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every round's figures here")
    parser.add_argument("--sqlite-child", nargs=2, metavar=("DB", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sqlite_child:
        db, out = args.sqlite_child
        figures = pausepoint_round(db, Batch(runs=args.runs, steps=args.steps), 1, args.poll)
        Path(out).write_text(json.dumps(figures.as_json()))
        return

    rounds: list[Round] = []
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        dsn = args.dsn
        sides = [side for side in args.sides if side != "sqlite"]
        if "langgraph" in sides and (missing := _peer_missing()) is not None:
            print(f"LangGraph skipped: {missing}")
            sides.remove("langgraph")
        if dsn is None and sides:
            missing = TemporaryPostgres.unavailable()
            if missing is None:
                server = TemporaryPostgres(durable=not args.no_fsync)
                dsn = stack.enter_context(server).dsn
            else:
                print(f"PostgreSQL skipped: {missing}")
                sides = []
        print(
            f"batch: {args.runs} runs × {args.steps} steps (one tool call per model turn, "
            f"step {(args.steps + 1) // 2} asks for an approval)"
            + (f"; {_server_version(dsn)}" if dsn and sides else "")
        )
        if dsn is not None and sides:
            print(HEADER)
            rounds += postgres_rounds(dsn, sides, args)
        if "sqlite" in args.sides:
            rounds += sqlite_rounds(args, folder)
        print(NOTES)
        if args.json is not None:
            args.json.write_text(json.dumps([r.as_json() for r in rounds], indent=1))


NOTES = """\
commits: the transaction ids the server gave out in the round (PostgreSQL), or the stores'
  commits (SQLite), over the round's steps, everything included (creating the runs,
  claims and leases, approvals); p50/p99: from the bulk approval being given to each
  approved action running, in ms; cpu ms: the worker processes' CPU time per step (not
  the server's); runs/s and steps/s over phases 1 and 2; wall: from the first run
  created to the last completed.
approvals: pausepoint, Inbox(store, continue_runs=False).approve(every run) in the parent,
  each answer committed for the workers to continue; LangGraph, one INSERT
  of every approval with a NOTIFY, which each worker reads for its own threads and
  resumes with Command(resume=True). LangGraph's worker i of W takes threads i, i + W, ..."""


if __name__ == "__main__":
    main()
