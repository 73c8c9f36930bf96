"""What a store refuses, and why. Every refused write leaves the store unchanged."""

from __future__ import annotations

from datetime import datetime

from ._core import PausepointError

__all__ = [
    "DamagedRunError",
    "LeaseHeldError",
    "LeaseLostError",
    "PostgresMissingError",
    "RunExistsError",
    "RunNotFoundError",
    "StoreConflictError",
    "StoreError",
    "StoreSchemaError",
    "StoreUsageError",
]


class StoreError(PausepointError):
    """Base class of the errors a run store raises."""


class StoreUsageError(StoreError, ValueError):
    """A call the store cannot carry out as asked (a position that is not stored, a
    transcript that shrank, a lease without time, a closed store). Nothing was written."""


class RunNotFoundError(StoreError):
    """No run with this id is in the store."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(
            f"The store has no run {run_id!r}. List what it holds with store.runs(); "
            "the run may have been deleted."
        )


class DamagedRunError(StoreError):
    """A stored run cannot be read: one of its rows was changed outside pausepoint (a
    column that is not JSON, a transcript that no longer loads, items missing).

    Only this run is affected: listings still show it (its `RunSummary.damage` says why)
    and every other run stays readable. `reason` says what is wrong with it.
    """

    def __init__(self, run_id: str, reason: str) -> None:
        self.run_id = run_id
        self.reason = reason
        super().__init__(
            f"Run {run_id!r} in the store cannot be read: {reason}. The database was changed "
            "outside pausepoint; restore this run from a backup, or remove it with "
            f"store.delete({run_id!r}). Other runs are not affected."
        )


class RunExistsError(StoreError):
    """`create` was given a Prompt whose run id is already stored."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(
            f"The store already holds run {run_id!r}. Load it with store.load_prompt() to "
            "continue it, or give the new Prompt a fresh run_id."
        )


class StoreConflictError(StoreError):
    """A write was based on an older version of the run: someone else wrote first.

    Nothing of the refused write was applied. Load the run again (its newest version)
    and decide whether the change still makes sense.
    """

    def __init__(self, run_id: str, expected: int, actual: int) -> None:
        self.run_id = run_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"Run {run_id!r} is at version {actual}, not {expected}: another writer changed "
            "it first and nothing of this write was applied. Load the run again with "
            "store.load_prompt() and retry on the newest version."
        )


class LeaseHeldError(StoreError):
    """Another owner holds a live lease on the run: it is executing elsewhere."""

    def __init__(self, run_id: str, owner: str, expires_at: datetime) -> None:
        self.run_id = run_id
        self.owner = owner
        self.expires_at = expires_at
        super().__init__(
            f"Run {run_id!r} is leased by {owner!r} until {expires_at.isoformat()}: it is "
            "executing elsewhere. Try again after the lease is released or has expired."
        )


class LeaseLostError(StoreError):
    """The caller no longer holds the lease it writes or renews under (expired and taken
    over, or released)."""

    def __init__(self, run_id: str, owner: str, holder: str | None) -> None:
        self.run_id = run_id
        self.owner = owner
        self.holder = holder
        now = f"now held by {holder!r}" if holder else "now held by nobody"
        super().__init__(
            f"{owner!r} no longer holds the lease on run {run_id!r} ({now}); nothing was "
            "written. Stop executing the run here; acquire the lease again and reload it "
            "before continuing."
        )


class StoreSchemaError(StoreError):
    """The database was written by a newer pausepoint whose tables this one cannot read."""

    def __init__(self, found: int, known: int) -> None:
        self.found = found
        self.known = known
        super().__init__(
            f"The store's tables are at schema version {found}, but this pausepoint knows "
            f"versions up to {known}. Upgrade pausepoint to open it."
        )


class PostgresMissingError(StoreError, ImportError):
    """`PostgresStore` was used without psycopg 3 installed."""
