"""What the commands share (``python -m pausepoint.agui``, ``python -m pausepoint.worker``):
finding the agent a command line names, and opening the store its ``--store`` URL names.
Each fails with a `CommandError` whose sentence names the fix, before anything starts.
"""

from __future__ import annotations

import importlib
import os
import sys

from .errors import PausepointError
from .run import Agent
from .store import PostgresStore, RunStore, SQLiteStore

__all__ = ["CommandError", "load_agent", "open_store"]


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
