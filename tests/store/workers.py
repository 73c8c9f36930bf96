"""Two worker processes on one PostgreSQL database, started together."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_two_workers(script: Path, dsn: str) -> dict[str, Any]:
    """Start `script dsn <name>` twice, release both at once, and return each worker's
    tally (the JSON on its last line of output)."""
    workers = {
        name: subprocess.Popen(
            [sys.executable, str(script), dsn, name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for name in ("worker-a", "worker-b")
    }
    for worker in workers.values():
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "ready"
    for worker in workers.values():  # both start together
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    tallies = {}
    for name, worker in workers.items():
        out, _ = worker.communicate(timeout=180)
        assert worker.returncode == 0, out
        tallies[name] = json.loads(out.strip().splitlines()[-1])
    print(tallies)
    return tallies
