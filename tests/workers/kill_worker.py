"""A worker process of the kill test, forked from a server that has imported everything
already (multiprocessing's forkserver), so that a replacement starts in milliseconds:
`python -m pausepoint.worker`'s own `main`, with the executions logged."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from tests.workers.batch_agents import DSN_VARIABLE

from pausepoint.worker import main

AGENT = "tests.workers.batch_agents:batch"


def work(dsn: str, name: str, lease_ttl: float, concurrency: int, started: Any) -> None:
    """`main` in this process; `started` is set as it begins. It stops cleanly on a
    SIGTERM however far it got: `main` takes SIGTERM from its first line, and one that
    comes before that line ends this process with 0 (it has claimed nothing yet)."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
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
