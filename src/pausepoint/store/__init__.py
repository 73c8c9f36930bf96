"""Durable runs: a store contract with SQLite (default) and PostgreSQL implementations.

A store keeps each run as a header row plus one row per transcript item, and changes it
by version-checked deltas (`StoreConflictError` for a stale writer, nothing applied).
`RunWriter` turns "the Prompt as it is now" into the smallest such delta::

    store = SQLiteStore("runs.db")
    writer = RunWriter.create(store, prompt, status="running", agent="ops")
    ...                                   # the run appends and updates items
    writer.save(prompt, status="interrupted")
    prompt, version = store.load_prompt(prompt.run_id)
    store.runs(status="interrupted")      # summaries, no transcripts loaded
    store.waiting(sort="-amount")         # a page of waiting runs to triage, and the total
    store.changes().version()             # moves when any process changes a run

`PostgresStore` needs the optional extra ``pausepoint[postgres]`` (psycopg 3, imported
when a store is opened).
"""

from __future__ import annotations

from ..errors import (
    DamagedRunError,
    LeaseHeldError,
    LeaseLostError,
    PostgresMissingError,
    RunExistsError,
    RunNotFoundError,
    StoreConflictError,
    StoreError,
    StoreSchemaError,
    StoreUsageError,
)
from ._changes import RunChanges, UnwatchedChanges
from ._contract import (
    KEEP,
    Change,
    EncodedItems,
    Lease,
    PendingSummary,
    RunStore,
    RunSummary,
    TriagePage,
    Write,
)
from ._rows import pending_of
from ._sql import STORE_SCHEMA_VERSION
from ._temporary import TemporaryPostgres
from ._triage import TRIAGE_STATUSES
from ._writer import PreparedSave, RunWriter
from .postgres import PostgresStore
from .sqlite import SQLiteStore

__all__ = [
    "KEEP",
    "STORE_SCHEMA_VERSION",
    "TRIAGE_STATUSES",
    "Change",
    "DamagedRunError",
    "EncodedItems",
    "Lease",
    "LeaseHeldError",
    "LeaseLostError",
    "PendingSummary",
    "PostgresMissingError",
    "PostgresStore",
    "PreparedSave",
    "RunChanges",
    "RunExistsError",
    "RunNotFoundError",
    "RunStore",
    "RunSummary",
    "RunWriter",
    "SQLiteStore",
    "StoreConflictError",
    "StoreError",
    "StoreSchemaError",
    "StoreUsageError",
    "TemporaryPostgres",
    "TriagePage",
    "UnwatchedChanges",
    "Write",
    "pending_of",
]
