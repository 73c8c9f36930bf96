"""benchmarks/bench_batch.py's pausepoint half at a tiny size, on the test PostgreSQL: two
worker processes carry every run through its approval to completion, and the figures it
prints are ones a reader can trust (every run completed, every approved action timed,
two commits per step)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_batch.py"


def test_the_batch_benchmark_completes_every_run_at_two_commits_per_step(
    postgres_dsn: str,
) -> None:
    tiny = ["--runs", "4", "--steps", "3", "--workers", "2", "--split-runs", "2"]
    done = subprocess.run(
        [sys.executable, str(BENCH), "--dsn", postgres_dsn, "--sides", "pausepoint", *tiny],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    row = re.search(
        r"^pausepoint\s+2\s+(?P<runs>\S+)\s+(?P<steps>\S+)\s+(?P<commits>\S+)\s+(?P<cpu>\S+)"
        r"\s+(?P<p50>\S+)\s+(?P<p99>\S+)\s.*\s(?P<completed>\d+)/4 completed",
        done.stdout,
        re.M,
    )
    assert row is not None, done.stdout
    assert row["completed"] == "4"
    assert float(row["runs"]) > 0
    assert float(row["cpu"]) > 0
    # Every approved action ran after its approval was committed, and was timed.
    assert 0 <= float(row["p50"]) <= float(row["p99"])
    # All included (creating, claiming, pausing, approving), a 3-step run costs more than
    # its steps' two commits each, and no more than two a step and 14 a run would. (How
    # many commits a step takes, exactly, is counted in tests/store/test_commits_per_step.py:
    # at this size the printed split carries the timing of the approvals' group commits.)
    assert 2 < float(row["commits"]) <= 2 + 14 / 3
    per_step = re.search(r"^\s+pausepoint\s+(\S+) per step \+ (\S+) per run", done.stdout, re.M)
    assert per_step is not None, done.stdout
    assert float(per_step[1]) > 0
