"""Serve the chat page and a pausepoint agent beside it: the page at /, the agent's AG-UI
endpoint at /api/chat.

    python serve.py refunds:agent [--store sqlite:runs.db] [--port 8000]

Build the page first (`npm ci && npm run build`, into dist/). Without --store the server
is stateless: the page's client sends the conversation back with every request.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Any

from starlette.staticfiles import StaticFiles

from pausepoint import Agent
from pausepoint.agui import app
from pausepoint.store import RunStore, SQLiteStore

HERE = Path(__file__).resolve().parent


def page_app(agent: Any, store: RunStore | None = None, dist: Path = HERE / "dist") -> Any:
    """The agent at /api/chat, the built page at /."""
    served = app(agent, store, path="/api/chat", secret=os.environ.get("CHAT_SECRET"))
    served.mount("/", StaticFiles(directory=dist, html=True))
    return served


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="module:attribute of an Agent, e.g. refunds:agent")
    parser.add_argument("--store", help="sqlite:PATH to keep the runs (default: stateless)")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    module, _, name = args.agent.partition(":")
    agent = getattr(importlib.import_module(module), name)
    if not isinstance(agent, Agent) and callable(agent):
        agent = agent()
    store = SQLiteStore(args.store.removeprefix("sqlite:")) if args.store else None

    import uvicorn

    print(f"The chat page: http://127.0.0.1:{args.port}/", file=sys.stderr)
    uvicorn.run(page_app(agent, store), host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
