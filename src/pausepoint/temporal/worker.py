"""``python -m pausepoint.temporal.worker module:agent --address HOST:PORT --task-queue Q
--store URL``: a Temporal worker for pausepoint's runs, from the shell.

Start one per process, on as many machines as reach the Temporal cluster and the store;
each executes the stretches of the runs `TemporalRunner` starts on the task queue, and
commits the answers sent to them. The first Ctrl-C (or SIGTERM) stops taking work and lets
the stretches executing finish; a second one quits at once, and Temporal gives those
stretches to another worker once their heartbeats stop and the runs' leases run out::

    python -m pausepoint.temporal.worker myapp.agents:support --address temporal:7233 \\
        --task-queue support --store postgresql://db/runs --concurrency 4
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from temporalio.client import Client

from .._command import (
    CommandError,
    load_agent,
    on_stop_signals,
    open_store,
    served_agents,
    stopping_early,
)
from ..errors import PausepointError
from ..run import Agent
from ..store import RunStore
from ._runner import temporal_worker

__all__ = ["Options", "main", "parse"]

_DESCRIPTION = """Execute the stored runs a TemporalRunner starts on a task queue: each
run's stretches (up to a pause or the end) and the answers people send it. AGENT is
module:attribute, an Agent or a function of no arguments returning one, e.g.
myapp.agents:support; name several to serve each under its name."""

# Stretches executing when the worker is told to stop finish however long they take: one
# cut short would be recorded as cancelled. A second signal quits without waiting.
_FINISH_WITHIN = timedelta(days=7)


@dataclass(frozen=True)
class Options:
    agents: tuple[str, ...]
    address: str
    task_queue: str
    store: str
    namespace: str
    concurrency: int


def parse(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m pausepoint.temporal.worker", description=_DESCRIPTION
    )
    parser.add_argument("agents", metavar="AGENT", nargs="+", help="module:attribute of an agent")
    parser.add_argument(
        "--address", required=True, metavar="HOST:PORT", help="the Temporal frontend"
    )
    parser.add_argument(
        "--task-queue", required=True, metavar="QUEUE", help="the queue TemporalRunner uses"
    )
    parser.add_argument(
        "--store", required=True, metavar="URL", help="sqlite:PATH or postgresql://..."
    )
    parser.add_argument("--namespace", default="default", help="Temporal namespace (default)")
    parser.add_argument(
        "--concurrency", type=int, default=1, help="stretches and answers executed at once (1)"
    )
    args = parser.parse_args(argv)
    return Options(
        agents=tuple(args.agents),
        address=args.address,
        task_queue=args.task_queue,
        store=args.store,
        namespace=args.namespace,
        concurrency=args.concurrency,
    )


def main(argv: Sequence[str] | None = None) -> int:
    return stopping_early(lambda early: _main(argv, early))


def _main(argv: Sequence[str] | None, early: list[int]) -> int:
    options = parse(argv)
    try:
        _check(options)
        served = _agents(options.agents)
        store = open_store(options.store)
    except (CommandError, PausepointError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(message)s")
    try:
        return asyncio.run(_work(options, served, store, early))
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()


def _check(options: Options) -> None:
    host, sep, port = options.address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise CommandError(
            f"--address {options.address!r} is not HOST:PORT: name Temporal's frontend, "
            "e.g. --address localhost:7233."
        )
    if not options.task_queue.strip():
        raise CommandError(
            "--task-queue is empty: give the queue the TemporalRunner starts runs on."
        )
    if options.concurrency < 1:
        raise CommandError(
            f"--concurrency must be 1 or more (stretches executed at once), not "
            f"{options.concurrency}."
        )


def _agents(specs: tuple[str, ...]) -> Agent | dict[str, Agent]:
    agents = [load_agent(spec) for spec in specs]
    return served_agents(agents, " (a run's workflow carries its agent's)")


async def _work(
    options: Options, served: Agent | dict[str, Agent], store: RunStore, early: list[int]
) -> int:
    stopping = asyncio.Event()
    on_signal = on_stop_signals(stopping.set, "Stopping: the stretches executing finish")
    served_names = ", ".join(options.agents)
    if early:  # asked to stop while it started: it takes no work
        on_signal()
        print(f"Temporal worker for {served_names} stopped before it took work.", file=sys.stderr)
        return 0
    try:
        client = await Client.connect(options.address, namespace=options.namespace)
    except Exception as exc:  # the SDK's own error: a server down, a name unknown
        raise CommandError(
            f"Temporal at {options.address} (namespace {options.namespace!r}) cannot be "
            f"reached: {exc}. Check --address and --namespace."
        ) from exc
    worker = temporal_worker(
        client,
        options.task_queue,
        served,
        store,
        max_concurrent_activities=options.concurrency,
        graceful_shutdown_timeout=_FINISH_WITHIN,
    )
    print(
        f"Temporal worker executes runs of {served_names} from task queue "
        f"{options.task_queue!r} at {options.address} ({options.concurrency} at a time)",
        file=sys.stderr,
        flush=True,
    )
    running = asyncio.ensure_future(worker.run())
    told = asyncio.ensure_future(stopping.wait())
    await asyncio.wait([running, told], return_when=asyncio.FIRST_COMPLETED)
    if not running.done():
        await worker.shutdown()
    told.cancel()
    try:
        await running
    except Exception as exc:
        print(f"error: the Temporal worker failed: {exc}", file=sys.stderr)
        return 1
    print(
        f"Temporal worker for {served_names} stopped (task queue {options.task_queue!r}).",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
