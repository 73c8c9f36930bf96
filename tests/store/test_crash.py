"""Crash safety: a process writing runs to SQLite is killed (SIGKILL) at random moments.

After every kill the store must open, every run must load and validate, and each run must
be exactly some version of what the writer meant to write (never a torn mix), at least the
last version the writer saw committed. At most the one write in flight when the process
died is there without having been reported.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import sqlite3
import time
from collections import defaultdict
from pathlib import Path

from tests.store.transcripts import advance, first_version

from pausepoint import Prompt
from pausepoint.store import RunWriter, SQLiteStore

KILLS = 200
ROUNDS_PER_FILE = 50
MAX_RUNS = 25


def _writer(path: str, log_path: str, seed: int) -> None:
    """Writes forever: new runs and version-checked deltas to random runs. Each commit is
    logged (run id and version) only after the store returned."""
    chance = random.Random(seed)
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    store = SQLiteStore(path)
    open_runs: dict[str, tuple[RunWriter, Prompt]] = {}
    known = [s.run_id for s in store.runs()]
    made = 0
    while True:
        if not known or (len(known) < MAX_RUNS and chance.random() < 0.1):
            run_id = f"run_{seed}_{made}"
            made += 1
            prompt = first_version(run_id)
            open_runs[run_id] = (RunWriter.create(store, prompt, status="running"), prompt)
            known.append(run_id)
            os.write(log, f"{run_id} 1\n".encode())
            continue
        run_id = chance.choice(known)
        if run_id not in open_runs:
            open_runs[run_id] = RunWriter.load(store, run_id)
        writer, prompt = open_runs[run_id]
        for _ in range(chance.randint(1, 4)):
            advance(prompt, writer.version)
            status = "interrupted" if prompt.pending() else "running"
            version = writer.save(prompt, status=status)
            os.write(log, f"{run_id} {version}\n".encode())


def _committed(log_path: Path) -> dict[str, int]:
    latest: dict[str, int] = defaultdict(int)
    if log_path.exists():
        for line in log_path.read_text().splitlines():
            run_id, version = line.split()
            latest[run_id] = max(latest[run_id], int(version))
    return latest


class Expected:
    """What the writer meant each run to be at each version, advanced as versions grow."""

    def __init__(self) -> None:
        self._runs: dict[str, tuple[Prompt, int]] = {}

    def at(self, run_id: str, version: int) -> Prompt:
        prompt, current = self._runs.get(run_id) or (first_version(run_id), 1)
        assert version >= current, f"{run_id} went back from version {current} to {version}"
        while current < version:
            advance(prompt, current)
            current += 1
        self._runs[run_id] = (prompt, current)
        return prompt


def test_killed_writers_leave_every_run_whole_and_every_commit_kept(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    chance = random.Random(12)
    unreported = 0
    started = time.monotonic()
    for kill in range(KILLS):
        batch = kill // ROUNDS_PER_FILE
        path = tmp_path / f"runs-{batch}.db"
        log_path = tmp_path / f"committed-{batch}.log"
        if kill % ROUNDS_PER_FILE == 0:
            expected = Expected()
            verified: dict[str, int] = {}
        writer = context.Process(target=_writer, args=(str(path), str(log_path), kill))
        writer.start()
        time.sleep(chance.uniform(0.005, 0.06))
        assert writer.pid is not None
        os.kill(writer.pid, signal.SIGKILL)
        writer.join()
        assert writer.exitcode == -signal.SIGKILL

        # A run is at least at the newest version reported or seen after an earlier kill,
        # and at most one write further: the one in flight when this writer died.
        committed = _committed(log_path)
        known = set(committed) | set(verified)
        with sqlite3.connect(path) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        store = SQLiteStore(path)
        stored = {s.run_id: s for s in store.runs()}
        in_flight = 0
        assert known <= set(stored), "a run reported as created is missing"
        assert len(set(stored) - known) <= 1, "more than one write was in flight"
        for run_id, summary in stored.items():
            prompt, version = store.load_prompt(run_id)
            assert Prompt.model_validate_json(store.export(run_id)) == prompt
            assert summary.version == version
            floor = max(committed.get(run_id, 0), verified.get(run_id, 0))
            assert floor <= version <= floor + 1, f"{run_id}: v{version}, committed v{floor}"
            in_flight += version - floor
            verified[run_id] = version
            assert prompt == expected.at(run_id, version), f"{run_id} v{version} is torn"
        store.close()
        assert in_flight <= 1, f"{in_flight} writes were unreported; one at most was in flight"
        unreported += in_flight

    total = sum(sum(_committed(p).values()) for p in tmp_path.glob("committed-*.log"))
    print(
        f"{KILLS} kills in {time.monotonic() - started:.1f} s; versions reported committed: "
        f"{total}; committed but killed before reporting: {unreported}"
    )
    assert unreported > 0, "no kill landed between a commit and its report; kill later"
