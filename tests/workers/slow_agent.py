"""An agent module that takes its time to load, as one importing a large library does:
it says it is loading (the file named by ``PAUSEPOINT_TEST_LOADING``), then waits until
the file named by ``PAUSEPOINT_TEST_RELEASE`` exists before it defines ``agent``."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pausepoint import Agent, ScriptedModel
from pausepoint.store import SQLiteStore

Path(os.environ["PAUSEPOINT_TEST_LOADING"]).touch()
_release = Path(os.environ["PAUSEPOINT_TEST_RELEASE"])
_deadline = time.monotonic() + 120  # a budget for a busy machine, not a requirement
while not _release.exists() and time.monotonic() < _deadline:
    time.sleep(0.01)

agent = Agent(model=ScriptedModel(["done"]), store=SQLiteStore(os.environ["PAUSEPOINT_TEST_DB"]))
