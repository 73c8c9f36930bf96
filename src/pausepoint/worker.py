"""``python -m pausepoint.worker module:agent --store URL``: a `Worker` from the shell.

Start one per process, on as many machines as reach the store; each claims runs of the
agent through the store's leases, executes them until they pause, finish or fail, and
claims more. The first Ctrl-C (or SIGTERM) stops claiming and lets the runs executing
finish their stretch; a second one quits at once, and another worker takes those runs
over when their leases run out (``--lease-ttl``)::

    python -m pausepoint.worker myapp.agents:support --store postgresql://db/runs --concurrency 4
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ._command import (
    CommandError,
    load_agent,
    on_stop_signals,
    open_store,
    served_agents,
    stopping_early,
)
from .errors import PausepointError
from .run import Agent, Worker, WorkerTally
from .store import RunStore

__all__ = ["Options", "main", "parse"]

_DESCRIPTION = """Execute the stored runs of an agent: claim runs that can go on (new,
answered, or left by a worker that stopped), run each until it pauses, finishes or fails,
and claim more. AGENT is module:attribute, an Agent or a function of no arguments
returning one, e.g. myapp.agents:support; name several to serve each under its name."""


@dataclass(frozen=True)
class Options:
    agents: tuple[str, ...]
    store: str | None
    name: str | None
    concurrency: int
    lease_ttl: float | None
    poll: float
    until_idle: bool


def parse(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(prog="python -m pausepoint.worker", description=_DESCRIPTION)
    parser.add_argument("agents", metavar="AGENT", nargs="+", help="module:attribute of an agent")
    parser.add_argument(
        "--store",
        metavar="URL",
        help="sqlite:PATH or postgresql://... (default: the agent's own store)",
    )
    parser.add_argument("--name", help="this worker's name in leases and logs (worker-PID)")
    parser.add_argument("--concurrency", type=int, default=1, help="runs executed at once (1)")
    parser.add_argument(
        "--lease-ttl",
        type=float,
        metavar="SECONDS",
        help="how long a run stays blocked when this worker dies (30)",
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="longest wait between two looks for work (0.5)",
    )
    parser.add_argument(
        "--until-idle", action="store_true", help="return once nothing is left to claim"
    )
    args = parser.parse_args(argv)
    return Options(
        agents=tuple(args.agents),
        store=args.store,
        name=args.name,
        concurrency=args.concurrency,
        lease_ttl=args.lease_ttl,
        poll=args.poll,
        until_idle=args.until_idle,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return stopping_early(lambda early: _main(argv, early))


def _main(argv: Sequence[str] | None, early: list[int]) -> int:
    options = parse(argv)
    try:
        worker = _build(options)
    except (CommandError, PausepointError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s")
    print(
        f"Worker {worker.name} executes runs of {', '.join(options.agents)} "
        f"({worker.concurrency} at a time, leases of {worker.lease_ttl:g} s)",
        file=sys.stderr,
        flush=True,
    )
    try:
        tally = asyncio.run(_work(worker, options.until_idle, early))
    except PausepointError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        worker.store.close()
    print(f"Worker {worker.name} stopped: {_said(tally)}", file=sys.stderr)
    return 0


def _build(options: Options) -> Worker:
    agents = [load_agent(spec) for spec in options.agents]
    store = open_store(options.store) if options.store else _agents_store(agents)
    served = served_agents(agents)
    try:
        return Worker(
            store,
            served,
            name=options.name,
            lease_ttl=options.lease_ttl,
            poll=options.poll,
            concurrency=options.concurrency,
        )
    except PausepointError:
        store.close()
        raise


def _agents_store(agents: list[Agent]) -> RunStore:
    stores = {id(agent.store): agent.store for agent in agents}
    store = next(iter(stores.values()))
    if store is None or len(stores) > 1:
        raise CommandError(
            "Say where the runs are: --store sqlite:PATH or --store postgresql://... "
            "(or build the agent with Agent(store=...))."
        )
    return store


async def _work(worker: Worker, until_idle: bool, early: list[int]) -> WorkerTally:
    on_signal = on_stop_signals(worker.stop, "Stopping: the runs executing finish their stretch")
    if early:  # asked to stop while it started: nothing is claimed
        on_signal()
        return worker.tally
    return await worker.work(until_idle=until_idle)


def _said(tally: WorkerTally) -> str:
    return (
        f"{tally.claimed} runs claimed, {tally.finished} completed, {tally.paused} waiting "
        f"for a person, {tally.failed} failed, {tally.lost} left to others; "
        f"{tally.steps} model turns"
    )


if __name__ == "__main__":
    raise SystemExit(main())
