"""What the commands share (``python -m pausepoint.agui``, ``python -m pausepoint.worker``,
``python -m pausepoint.temporal.worker``): finding the agents a command line names, opening
the store its ``--store`` URL names, and a worker's way of stopping on a signal. Each fails
with a `CommandError` whose sentence names the fix, before anything starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence

from .errors import PausepointError
from .run import Agent
from .store import PostgresStore, RunStore, SQLiteStore

__all__ = [
    "CommandError",
    "load_agent",
    "on_stop_signals",
    "open_store",
    "served_agents",
    "stopping_early",
]


class CommandError(Exception):
    """A command line that cannot be carried out; the message says what to change."""


def load_agent(spec: str) -> Agent:
    """The agent `module:attribute` names (called first when it is a function)."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise CommandError(
            f"{spec!r} does not name an agent: write module:attribute, e.g. myapp.agents:agent."
        )
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # a module beside the command, as `python -m` finds it
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise CommandError(
                f"No module named {module_name!r} (looked in {os.getcwd()} and on sys.path). "
                "Run the command from the folder holding it, or install its package."
            ) from exc
        raise
    target: object = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise CommandError(f"Module {module_name!r} has no attribute {attribute!r}.")
        target = getattr(target, part)
    if not isinstance(target, Agent) and callable(target):
        target = target()
    if not isinstance(target, Agent):
        raise CommandError(
            f"{spec} is not an Agent (nor a function returning one); it is of type "
            f"{type(target).__name__}."
        )
    return target


def open_store(url: str) -> RunStore:
    """The store a `--store` URL names: ``sqlite:PATH`` or ``postgresql://...``."""
    kind: type[RunStore]
    if url.startswith(("postgresql://", "postgres://")):
        kind, where = PostgresStore, url
    elif url.startswith("sqlite:"):
        kind, where = SQLiteStore, url.removeprefix("sqlite:").removeprefix("//")
        if not where:
            raise CommandError("sqlite: needs a file path, e.g. --store sqlite:runs.db.")
    else:
        raise CommandError(
            f"--store {url!r} is not a store URL: use sqlite:PATH or postgresql://user@host/db."
        )
    try:
        return kind(where)
    except PausepointError:
        raise
    except Exception as exc:  # the driver's own error: a server down, a folder missing
        raise CommandError(f"The store {url} cannot be opened: {exc}") from exc


def served_agents(agents: Sequence[Agent], why: str = "") -> Agent | dict[str, Agent]:
    """One agent as it is; several by their names, which must be distinct (`why`: what the
    names are for, said when they are not)."""
    if len(agents) == 1:
        return agents[0]
    names = [agent.name for agent in agents]
    if None in names or len(set(names)) != len(names):
        raise CommandError(
            f"Several agents are told apart by their names{why}: give each a distinct "
            f"Agent(name=...); these have {names}."
        )
    return {agent.name: agent for agent in agents if agent.name is not None}


def stopping_early(body: Callable[[list[int]], int]) -> int:
    """`body(early)` with a SIGTERM that comes while it starts (the agent loading, the
    store opening) noted in `early` instead of killing the process: a deployment stops
    workers as they start, and a worker told so takes no work, says so and exits 0."""
    early: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda number, _: early.append(number))
    try:
        return body(early)
    finally:
        signal.signal(signal.SIGTERM, previous)


def on_stop_signals(stop: Callable[[], None], stopping: str) -> Callable[[], None]:
    """Make SIGINT and SIGTERM stop a worker on the running loop: the first prints
    `stopping` and calls `stop()` (the work under way finishes), a second quits at once.
    Returns what a signal calls, for a stop asked another way."""
    loop = asyncio.get_running_loop()
    signals = 0

    def on_signal() -> None:
        nonlocal signals
        signals += 1
        if signals > 1:
            print("Quitting now; other workers take these runs over.", file=sys.stderr)
            sys.stderr.flush()
            os._exit(1)
        print(f"{stopping} (signal again to quit now).", file=sys.stderr, flush=True)
        stop()

    for number in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # Windows: Ctrl-C cancels instead
            loop.add_signal_handler(number, on_signal)
    return on_signal
