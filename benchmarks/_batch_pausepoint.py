"""The batch on pausepoint: runs stored in a `PostgresStore` (or a `SQLiteStore`), carried
by `pausepoint.Worker`s in worker processes.

The parent creates the runs while the worker processes work; each claims whatever run can
go on (its lease keeps the others off it) and runs it until it waits for its approval or
completes. The parent commits each approval without continuing the run, and a worker
continues it. Run as a script, this module is one worker process (see `_batch.serve`).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from _batch import Batch, Reply, serve
from _counts import CountingSQLiteStore
from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    Inbox,
    ModelRequest,
    ModelResponse,
    PostgresStore,
    Prompt,
    RunStore,
    ToolCallRequest,
    Worker,
    action,
)
from pausepoint.transcript import AssistantMessage

AGENT = "batch"
ACTED: dict[str, float] = {}
"""When each approved action ran in this process, by run id."""


class BatchModel:
    """A scripted model: one tool call per turn (`confirm` at the batch's approval step,
    else `bump`), then a final text; what it says depends only on the transcript."""

    def __init__(self, batch: Batch) -> None:
        self.batch = batch

    async def request(self, request: ModelRequest) -> ModelResponse:
        made = sum(isinstance(item, AssistantMessage) for item in request.items)
        if made == self.batch.steps:
            return ModelResponse(text="All done.")
        n = made + 1
        name = "confirm" if n == self.batch.approve_at else "bump"
        return ModelResponse(
            tool_calls=[ToolCallRequest(id=f"call_{n}", name=name, input={"n": n})]
        )


@action
async def bump(n: int) -> int:
    """Return n + 1."""
    return n + 1


@action
async def confirm(n: int, ctx: ActionContext) -> int:
    """Ask before returning n."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"Act on {n}?", {"n": n})
    ACTED[ctx.run_id] = time.time()
    return n


def build_agent(batch: Batch) -> Agent:
    return Agent(
        model=BatchModel(batch), actions=[bump, confirm], name=AGENT, max_turns=batch.steps + 1
    )


def open_store(where: str) -> RunStore:
    """A PostgresStore for a DSN, else a SQLiteStore (synchronous=FULL) that counts its
    commits."""
    if where.startswith("postgresql://"):
        return PostgresStore(where)
    return CountingSQLiteStore(where, synchronous="FULL")


def commits_of(store: RunStore) -> int | None:
    return store.commits if isinstance(store, CountingSQLiteStore) else None


async def create_runs(agent: Agent, store: RunStore, batch: Batch) -> None:
    """Every run stored, never run: the workers claim them."""
    for run_id in batch.run_ids():
        agent.new_run(Prompt.from_user("go", run_id=run_id), store=store)


async def approve_all(agent: Agent, store: RunStore, batch: Batch) -> None:
    """Every run approved in bulk from an inbox that leaves the runs to the workers
    (`continue_runs=False`): each answer committed, none continued here."""
    box = Inbox(store, agents={AGENT: agent}, continue_runs=False, poll=None)
    try:
        outcomes = await box.approve(batch.run_ids())
    finally:
        box.close()
    refused = [o for o in outcomes if o.outcome != "answered"]
    if refused:
        raise RuntimeError(f"{len(refused)} approvals not answered, e.g. {refused[0]}")


class BatchWorker:
    """One worker process: a `pausepoint.Worker` on the store, working from phase 1 on
    (claiming runs as the parent creates them) until the parent says stop."""

    def __init__(self, where: str, batch: Batch, poll: float) -> None:
        self.store = open_store(where)
        self.worker = Worker(self.store, {AGENT: build_agent(batch)}, poll=poll)
        self._working: asyncio.Task[Any] | None = None
        self._cpu = 0.0

    async def phase1(self) -> Reply:
        self._cpu = time.process_time()
        self._working = asyncio.create_task(self.worker.work())
        await asyncio.sleep(0)
        return {"started": True}

    async def phase2(self) -> Reply:
        return {"started": True}  # still working: answered runs are claimable again

    async def stop(self) -> Reply:
        if self._working is not None:
            self.worker.stop()
            await self._working
        cpu = time.process_time() - self._cpu
        commits = commits_of(self.store)
        self.store.close()
        return {"acted": ACTED, "commits": commits, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("where", help="a PostgreSQL DSN or a SQLite file")
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--poll", type=float, required=True)
    args = parser.parse_args()
    worker = BatchWorker(args.where, Batch(runs=args.runs, steps=args.steps), args.poll)
    asyncio.run(serve(worker.phase1, worker.phase2, worker.stop))


if __name__ == "__main__":
    main()
