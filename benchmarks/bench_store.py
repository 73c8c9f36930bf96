"""What saving every step costs, and whether it grows with the transcript.

A step is what the loop writes for one tool call: the model's message with the call and
the call's record are appended (saved), then the record is replaced when the call returns
(saved again). Four ways side by side, in one process:

- memory: the same changes to a Prompt, saved nowhere (the in-memory run);
- whole JSON: after each of the two changes, `prompt.model_dump_json()` into one SQLite
  row (the old way: what it costs grows with the transcript);
- SQLiteStore and PostgresStore through `RunWriter`: only the changed items are written.

Prints µs per step for each size and, for the largest size, the last 100 steps over the
first 100 (goal < 1.5: the cost does not grow with the transcript), twice: as the ratio
of their total times (as bench_loop.py does) and of their median step times, which a
WAL checkpoint or a busy machine landing in one window cannot skew.
PostgreSQL runs on a throw-away server started here, with fsync on like a real server
(`--no-fsync` to see the store's own cost without the disk's); without the server
binaries or psycopg it is skipped with a note. The whole-JSON way grows quadratically, so
it runs only up to `--whole-json-max` steps.

Then the same for real runs (`--run-sizes`): an agent makes one tool call per model turn
(every 10th asks for an answer, given at once), in memory and attached to a SQLiteStore,
which commits every step as it happens (and holds the run's lease per stretch).

Last, what a real run's step costs in commits and disk flushes: commits per step on
SQLiteStore (synchronous=FULL, counted by the store) and on PostgresStore (counted by the
server: the transaction ids it gave out), for steps that only run their call and for the
workload above; and the fdatasync/fsync calls per step on SQLite FULL, counted with strace
in a child process when strace is installed (said so, and skipped, when it is not).

    python benchmarks/bench_store.py [--sizes 10 100 1000 5000] [--repeat 3] [--no-fsync]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from _counts import CountingSQLiteStore, count_fsyncs, next_xid, strace_missing
from _workload import confirm, one_call_per_turn
from pausepoint import Agent, AgentRun, Prompt, ScriptedModel, ToolCall, ToolCallRequest, action
from pausepoint.store import PostgresStore, RunStore, RunWriter, SQLiteStore, TemporaryPostgres
from pausepoint.transcript import AssistantMessage

PAUSE_EVERY = 10  # as in _workload.py

Save = Callable[[Prompt], None]


def run_steps(size: int, save: Callable[[Prompt], Save]) -> list[float]:
    """Runs `size` steps, saving after each change; returns perf_counter stamps."""
    prompt = Prompt.from_user("go")
    saved = save(prompt)
    stamps = [time.perf_counter()]
    for n in range(size):
        call = ToolCallRequest(id=f"call_{n}", name="bump", input={"n": n})
        prompt.items.append(AssistantMessage(tool_calls=[call]))
        record = ToolCall(id=call.id, name=call.name, input=call.input, status="running")
        prompt.items.append(record)
        saved(prompt)
        record.status = "succeeded"
        record.result = n + 1
        saved(prompt)
        stamps.append(time.perf_counter())
    return stamps


def in_memory(prompt: Prompt) -> Save:
    return lambda _: None


def whole_json(db: sqlite3.Connection) -> Callable[[Prompt], Save]:
    def start(prompt: Prompt) -> Save:
        def save(current: Prompt) -> None:
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO prompts (run_id, json) VALUES (?, ?)",
                    (current.run_id, current.model_dump_json()),
                )

        save(prompt)
        return save

    return start


def through_store(store: RunStore) -> Callable[[Prompt], Save]:
    def start(prompt: Prompt) -> Save:
        writer = RunWriter.create(store, prompt, status="running", agent="bench")

        def save(current: Prompt) -> None:
            writer.save(current)

        return save

    return start


def _per_step_us(stamps: list[float]) -> float:
    return (stamps[-1] - stamps[0]) / (len(stamps) - 1) * 1e6


def _ratios(stamps: list[float]) -> tuple[float, float]:
    """Last 100 steps over the first 100: by total time, and by median step time."""
    steps = [b - a for a, b in itertools.pairwise(stamps)]
    first, last = steps[:100], steps[-100:]
    return sum(last) / sum(first), statistics.median(last) / statistics.median(first)


def _cell(values: list[float]) -> str:
    return f"{statistics.median(values):>22.1f}" if values else f"{'(skipped)':>22}"


@action
async def bump(n: int) -> int:
    """Return n + 1."""
    return n + 1


async def _real_run(calls: int, store: RunStore | None, plain: bool = False) -> float:
    """µs per step of a real run of `calls` tool calls, saved to `store` (or nowhere).
    `plain`: no call asks for an answer."""
    model = one_call_per_turn(calls, "bump")
    if plain:
        model = _without_pauses(calls)
    agent = Agent(model=ScriptedModel(model), actions=[bump, confirm], max_turns=calls + 1)
    run: AgentRun = agent.new_run("go", store=store)
    started = time.perf_counter()
    result = await run.run()
    while result.status == "interrupted":
        result = await run.resume(True)
    assert result.status == "completed", result
    return (time.perf_counter() - started) / calls * 1e6


def _without_pauses(calls: int) -> Callable[[Any], Any]:
    made = 0

    def respond(request: Any) -> Any:
        nonlocal made
        if made == calls:
            return "All done."
        made += 1
        return ToolCallRequest(id=f"call_{made}", name="bump", input={"n": made})

    return respond


def _per_step(count: Callable[[int], int], steps: int) -> float:
    """What `steps` more steps add, per step (a run's fixed cost left out)."""
    return (count(2 * steps) - count(steps)) / steps


def commits_per_step(folder: Path, dsn: str | None, steps: int) -> None:
    print(f"commits per step (real runs, the difference between {steps} and {2 * steps} steps):")
    store = CountingSQLiteStore(folder / "counted.db", synchronous="FULL")

    def on_sqlite(plain: bool) -> Callable[[int], int]:
        def count(calls: int) -> int:
            before = store.commits
            asyncio.run(_real_run(calls, store, plain))
            return store.commits - before

        return count

    rows = [("SQLiteStore (FULL)", on_sqlite)]
    if dsn is not None:
        postgres = PostgresStore(dsn)

        def on_postgres(plain: bool) -> Callable[[int], int]:
            def count(calls: int) -> int:
                before = next_xid(dsn)
                asyncio.run(_real_run(calls, postgres, plain))
                return next_xid(dsn) - before

            return count

        rows.append(("PostgresStore", on_postgres))
    for name, way in rows:
        plain = _per_step(way(True), steps)
        mixed = _per_step(way(False), steps)
        print(
            f"  {name:>18}: {plain:.2f} per plain step; {mixed:.2f} per step with every "
            f"{PAUSE_EVERY}th answered by a person"
        )
    store.close()
    if dsn is not None:
        postgres.close()
    else:
        print("  PostgresStore skipped (no server)")
    fsyncs_per_step(folder, steps)


def fsyncs_per_step(folder: Path, steps: int) -> None:
    missing = strace_missing()
    if missing is not None:
        print(f"  fsyncs per step: not counted, {missing}")
        return

    def count(plain: bool) -> Callable[[int], int]:
        def fsyncs(calls: int) -> int:
            db = folder / f"fsync-{calls}-{plain}.db"
            return count_fsyncs(
                [sys.executable, __file__, "--fsync-child", str(calls), str(db)]
                + (["--plain"] if plain else []),
                folder / "strace.txt",
            )

        return fsyncs

    plain = _per_step(count(True), steps)
    mixed = _per_step(count(False), steps)
    print(
        f"  {'fsyncs, SQLite FULL':>18}: {plain:.2f} per plain step; {mixed:.2f} per step "
        f"with every {PAUSE_EVERY}th answered by a person (strace: fdatasync + fsync)"
    )


def fsync_child(calls: int, path: str, plain: bool) -> None:
    with SQLiteStore(path, synchronous="FULL") as store:
        asyncio.run(_real_run(calls, store, plain))


def real_runs(sizes: list[int], repeat: int, folder: Path) -> None:
    print("real runs (one tool call per model turn):")
    print(f"{'steps':>6} {'memory µs/step':>22} {'SQLiteStore µs/step':>22} {'store cost':>12}")
    with SQLiteStore(folder / "real.db") as store:
        for size in sizes:
            memory, stored = [], []
            for _ in range(repeat):
                gc.collect()
                memory.append(asyncio.run(_real_run(size, None)))
                gc.collect()
                stored.append(asyncio.run(_real_run(size, store)))
            cost = statistics.median(stored) - statistics.median(memory)
            print(f"{size:>6} {_cell(memory)} {_cell(stored)} {cost:>9.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 5000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--whole-json-max", type=int, default=1000)
    parser.add_argument("--no-fsync", action="store_true")
    parser.add_argument("--run-sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--count-steps", type=int, default=200)
    parser.add_argument("--fsync-child", nargs=2, metavar=("CALLS", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fsync_child:
        fsync_child(int(args.fsync_child[0]), args.fsync_child[1], args.plain)
        return

    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        db = sqlite3.connect(folder / "whole.db", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE prompts (run_id TEXT PRIMARY KEY, json TEXT NOT NULL)")
        stack.callback(db.close)
        sqlite_store = SQLiteStore(folder / "runs.db")
        stack.callback(sqlite_store.close)
        ways: dict[str, Callable[[Prompt], Save]] = {
            "memory": in_memory,
            "whole JSON": whole_json(db),
            "SQLiteStore": through_store(sqlite_store),
        }
        missing = TemporaryPostgres.unavailable()
        if missing is None:
            server = stack.enter_context(TemporaryPostgres(durable=not args.no_fsync))
            postgres_store = PostgresStore(server.dsn)
            stack.callback(postgres_store.close)
            ways["PostgresStore"] = through_store(postgres_store)
        else:
            print(f"PostgresStore skipped: {missing}")

        print(f"{'steps':>6} " + " ".join(f"{name + ' µs/step':>22}" for name in ways))
        ratios: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
        for size in args.sizes:
            per_step: dict[str, list[float]] = {name: [] for name in ways}
            for _ in range(args.repeat):
                for name, way in ways.items():
                    if name == "whole JSON" and size > args.whole_json_max:
                        continue
                    gc.collect()
                    stamps = run_steps(size, way)
                    per_step[name].append(_per_step_us(stamps))
                    if size == max(args.sizes) and size >= 200:
                        ratios[name].append(_ratios(stamps))
            print(f"{size:>6} " + " ".join(_cell(per_step[name]) for name in ways))
        if any(ratios.values()):
            print(f"last-100 / first-100 steps at {max(args.sizes)} steps (goal < 1.5):")
            for name, runs in ratios.items():
                if not runs:
                    continue
                totals = [total for total, _ in runs]
                medians = [median for _, median in runs]
                print(
                    f"  {name:>14}: total {statistics.median(totals):.2f} (runs: "
                    + ", ".join(f"{r:.2f}" for r in totals)
                    + f"), median step {statistics.median(medians):.2f} (runs: "
                    + ", ".join(f"{r:.2f}" for r in medians)
                    + ")"
                )

        real_runs(args.run_sizes, args.repeat, folder)
        commits_per_step(folder, server.dsn if missing is None else None, args.count_steps)


if __name__ == "__main__":
    main()
