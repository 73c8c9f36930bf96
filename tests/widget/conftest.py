from pathlib import Path

import pytest
from tests.widget.recording import comms

from pausepoint.store import SQLiteStore

__all__ = ["comms", "store"]


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    """A store in a file of the test's own, for the inbox tests."""
    return SQLiteStore(tmp_path / "runs.db")
