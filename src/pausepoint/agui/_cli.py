"""``python -m pausepoint.agui module:agent``: serve an agent over AG-UI with uvicorn.

The parsing and the loading live here, apart from the server, so each fails with a
sentence that names the fix (exit status 2) before anything listens.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._command import CommandError, load_agent, open_store
from ..errors import MissingDependencyError, PausepointError

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["CommandError", "Options", "load_agent", "main", "open_store", "parse"]

_DESCRIPTION = """Serve an agent as an AG-UI endpoint (HTTP + Server-Sent Events).
AGENT is module:attribute, an Agent or a function of no arguments returning one, e.g.
myapp.agents:support. Without --store, nothing is kept between requests: the transcript
travels sealed in the client's state (give every process the same --secret-env)."""


@dataclass(frozen=True)
class Options:
    agent: str
    host: str
    port: int
    path: str
    store: str | None
    secret_env: str | None
    token_env: str | None
    cors: tuple[str, ...]
    tool_definitions: bool = False
    allowed_hosts: tuple[str, ...] = ()


def parse(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(prog="python -m pausepoint.agui", description=_DESCRIPTION)
    parser.add_argument("agent", metavar="AGENT", help="module:attribute of the agent to serve")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    parser.add_argument("--path", default="/", help="the endpoint's path (/)")
    parser.add_argument(
        "--store",
        metavar="URL",
        help="keep runs in a store: sqlite:PATH or postgresql://... (default: stateless)",
    )
    parser.add_argument(
        "--secret-env",
        metavar="VAR",
        help="environment variable holding the secret that seals stateless transcripts",
    )
    parser.add_argument(
        "--token-env",
        metavar="VAR",
        help="environment variable holding a bearer token every request must carry",
    )
    parser.add_argument(
        "--cors",
        metavar="ORIGIN",
        nargs="+",
        default=[],
        help="web origins allowed to call from a browser, e.g. https://app.example",
    )
    parser.add_argument(
        "--allowed-host",
        metavar="HOST",
        nargs="+",
        default=[],
        help="Host names the server answers as, e.g. agent.example.com ('*' for any; "
        "default: the loopback names when --host is a loopback address, any otherwise)",
    )
    parser.add_argument(
        "--tool-definitions",
        action="store_true",
        help="print the TanStack AI tool definitions of the agent's approval tools as "
        "JSON (for a web client to import) and exit, serving nothing",
    )
    args = parser.parse_args(argv)
    return Options(
        agent=args.agent,
        host=args.host,
        port=args.port,
        path=args.path,
        store=args.store,
        secret_env=args.secret_env,
        token_env=args.token_env,
        cors=tuple(args.cors),
        tool_definitions=args.tool_definitions,
        allowed_hosts=tuple(args.allowed_host),
    )


def _env(name: str, what: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise CommandError(f"The environment variable {name} (the {what}) is not set or empty.")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    if options.tool_definitions:
        return _print_tool_definitions(options)
    try:
        served = _build(options)
    except (CommandError, PausepointError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    import uvicorn

    if options.store:
        mode = f"runs kept in {options.store}"
    elif options.secret_env:
        mode = f"stateless, transcripts sealed with ${options.secret_env}"
    else:
        mode = "stateless, transcripts sealed with a random secret: this process only"
    address = f"http://{options.host}:{options.port}{options.path}"
    print(f"Serving {options.agent} over AG-UI at {address} ({mode})", file=sys.stderr)
    uvicorn.run(served, host=options.host, port=options.port, log_level="info")
    return 0


def _print_tool_definitions(options: Options) -> int:
    from ._tools import tool_definitions

    try:
        agent = load_agent(options.agent)
    except (CommandError, PausepointError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(tool_definitions(agent), indent=2, ensure_ascii=False))
    return 0


def _build(options: Options) -> Starlette:
    from ._server import app, bearer, hosts_for

    try:
        import uvicorn  # noqa: F401  (checked before the agent's module is imported)
    except ImportError as exc:
        raise MissingDependencyError(
            "Serving needs uvicorn: pip install 'pausepoint[agui]'."
        ) from exc
    agent = load_agent(options.agent)
    secret = _env(options.secret_env, "secret") if options.secret_env else None
    token = _env(options.token_env, "bearer token") if options.token_env else None
    store = open_store(options.store) if options.store else None
    return app(
        agent,
        store,
        secret=secret,
        cors_origins=options.cors or None,
        authorize=bearer(token) if token is not None else None,
        allowed_hosts=options.allowed_hosts or hosts_for(options.host),
        path=options.path,
    )
