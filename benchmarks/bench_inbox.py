"""What listing an inbox of many waiting runs costs: `store.waiting()` pages and the inbox's
`rows()` over 10,000 waiting runs (goal: < 100 ms each), on SQLite and PostgreSQL.

Seeds `--runs` waiting runs (three agents, an `amount` and a `customer` argument each, a
few finished runs among them), then times each listing `--repeat` times and prints the
median and the slowest in milliseconds: the newest page, the oldest, by amount both
ways, filtered by agent, by kind and by text, a page deep in the list, and the inbox's
`rows()` (a store page made into the rows the view draws) and `refresh()` (what follows
every change of the store: a page of header rows and the newest runs' cards). PostgreSQL runs on a
throw-away server started here; without its binaries or psycopg it is skipped with a
note.

    python benchmarks/bench_inbox.py [--runs 10000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.widget.inbox_agents import triage_prompt

from pausepoint import Agent, ScriptedModel, inbox
from pausepoint.store import PostgresStore, RunStore, SQLiteStore, TemporaryPostgres

AGENTS = ("payments", "ops", "support")


def seed(store: RunStore, runs: int) -> None:
    for n in range(runs):
        store.create(
            triage_prompt(f"run_{n:05d}", amount=(n * 7919) % 5000, customer=f"customer {n}"),
            status="interrupted" if n % 50 else "succeeded",
            agent=AGENTS[n % len(AGENTS)],
        )


def timed(work: Callable[[], Any], repeat: int) -> tuple[float, float]:
    work()  # warm: the first read pays for opening pages
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def measure(name: str, store: RunStore, runs: int, repeat: int) -> None:
    start = time.perf_counter()
    seed(store, runs)
    print(f"\n{name}: {runs:,} runs seeded in {time.perf_counter() - start:.1f} s")
    agent = Agent(model=ScriptedModel([]), actions=[], name="payments")
    box = inbox(store, agents={"payments": agent}, poll=None)
    cases: dict[str, Callable[[], Any]] = {
        "newest page": lambda: store.waiting(),
        "oldest page": lambda: store.waiting(sort="oldest"),
        "by amount, largest first": lambda: store.waiting(sort="-amount"),
        "by amount, smallest first": lambda: store.waiting(sort="amount"),
        "agent filter": lambda: store.waiting(agent="ops", sort="-amount"),
        "kind filter": lambda: store.waiting(kind="tool-approval"),
        "text filter": lambda: store.waiting(text="customer 99"),
        "page 150 of 50 runs": lambda: store.waiting(offset=7450),
        "inbox rows(), by amount": lambda: box.rows(sort="-amount"),
        "inbox refresh()": box.refresh,
    }
    print(f"{'listing':<30} {'median ms':>10} {'max ms':>10}")
    for label, work in cases.items():
        median, worst = timed(work, repeat)
        print(f"{label:<30} {median:>10.1f} {worst:>10.1f}")
    box.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "runs.db")
        measure("SQLiteStore", store, args.runs, args.repeat)
        store.close()
    why = TemporaryPostgres.unavailable()
    if why is not None:
        print(f"\nPostgresStore: skipped ({why})")
        return
    with TemporaryPostgres() as server:
        store = PostgresStore(server.dsn)
        measure("PostgresStore", store, args.runs, args.repeat)
        store.close()


if __name__ == "__main__":
    main()
