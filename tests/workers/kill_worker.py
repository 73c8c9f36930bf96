"""A worker process of the kill test, forked from a server that has imported everything
already (multiprocessing's forkserver), so that a replacement starts in milliseconds:
`python -m pausepoint.worker`'s own `main`, with the executions logged."""

from __future__ import annotations

import os
import sys
from typing import Any

from tests.workers.batch_agents import DSN_VARIABLE

from pausepoint.worker import main

AGENT = "tests.workers.batch_agents:batch"


def work(dsn: str, name: str, lease_ttl: float, concurrency: int, started: Any) -> None:
    """`main` in this process; `started` is set as it begins (it then stops cleanly on a
    SIGTERM however far it got, as `main` takes SIGTERM from its first line)."""
    started.set()
    os.environ[DSN_VARIABLE] = dsn
    sys.exit(
        main(
            [
                AGENT,
                "--store",
                dsn,
                "--name",
                name,
                "--lease-ttl",
                str(lease_ttl),
                "--concurrency",
                str(concurrency),
                "--poll",
                "0.2",
            ]
        )
    )
