"""The store contract: what every run store does, whatever database is behind it.

A store keeps runs as a header (ids, agent, status, pending interrupts, version, lease)
and one row per transcript item. Every change is a version-checked delta: the writer
says which version it started from, and a stale writer gets `StoreConflictError` with
nothing applied. Stores know transcripts and versions, never the loop that makes them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Final, Literal

from ..errors import StoreError, StoreUsageError
from ..transcript import ForkOrigin, Item, ModelPause, Prompt
from ._changes import RunChanges, UnwatchedChanges

__all__ = [
    "KEEP",
    "Change",
    "EncodedItems",
    "Keep",
    "Lease",
    "PendingSummary",
    "RunStore",
    "RunSummary",
    "StatusFilter",
    "TriagePage",
    "Write",
]


class Keep:
    """The type of `KEEP`: a header field a change leaves as it is."""

    _instance: Keep | None = None

    def __new__(cls) -> Keep:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Final = Keep()

StatusFilter = str | Sequence[str] | None


@dataclass(frozen=True, slots=True)
class PendingSummary:
    """One unanswered interrupt as a listing shows it, without the transcript."""

    interrupt_id: str
    kind: str
    message: str
    tool_call_id: str
    tool_name: str
    created_at: datetime
    expires_at: datetime | None = None
    arguments: str | None = field(default=None, compare=False)
    """The key arguments of the call that pauses, as JSON (see `_triage.key_arguments`):
    what the store keeps of the run's first pause to list and sort by. Not in the pending
    column: None when read back from it."""


@dataclass(frozen=True, slots=True)
class RunSummary:
    """A run's header row: enough to list and pick runs without loading transcripts.

    `damage` is None for a row as pausepoint wrote it. For a row changed outside
    pausepoint it says what cannot be read; the fields it names hold empty values (no
    pending interrupts, the epoch for a time), and loading the run raises
    `DamagedRunError`.
    """

    run_id: str
    thread_id: str
    agent: str | None
    status: str
    pending: tuple[PendingSummary, ...]
    version: int
    item_count: int
    created_at: datetime
    updated_at: datetime
    lease_owner: str | None = None
    lease_expires_at: datetime | None = None
    parent_run_id: str | None = None
    parent_interrupt_id: str | None = None
    damage: str | None = None
    title: str | None = None
    """The title given when the run was created, else its first user message (cut)."""
    arguments: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The key arguments of the call the run's first pause belongs to (top-level numbers,
    booleans and texts, cut), to list and sort by."""
    ignored_by: str | None = None
    ignored_at: datetime | None = None
    """Who set the run aside with `RunStore.ignore`, and when (None: not ignored)."""


@dataclass(frozen=True, slots=True)
class Lease:
    """`owner` may execute the run until `expires_at` (renew before then)."""

    run_id: str
    owner: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Change:
    """One delta to a stored run, applied whole or not at all.

    `appended` items go after the stored ones; `replaced` maps positions of stored items
    to their new content (a tool call record whose status or history moved on). Header
    fields left as `KEEP` are not touched. `release` gives up the writer's lease in the
    same transaction (a run's last write of a stretch: no commit of its own for that).
    """

    appended: Sequence[Item] = ()
    replaced: Mapping[int, Item] = field(default_factory=dict)
    status: str | Keep = KEEP
    pending: tuple[PendingSummary, ...] | Keep = KEEP
    instructions: str | Keep | None = KEEP
    model_pause: ModelPause | Keep | None = KEEP
    parent: ForkOrigin | Keep | None = KEEP
    """Where a fork came from, whole (`Prompt.parent`): the items a fork at a model turn
    had edited move it on."""
    release: bool = False
    encoded: EncodedItems | None = None
    """The items as JSON when the change was made (`encode()`): a store writes these
    instead of serializing items that may have moved on since (a write on another
    thread)."""

    def encode(self) -> Change:
        """This change with its items serialized now (see `encoded`)."""
        if self.encoded is not None:
            return self
        appended = tuple(item.model_dump_json() for item in self.appended)
        replaced = tuple(sorted((p, item.model_dump_json()) for p, item in self.replaced.items()))
        return replace(self, encoded=EncodedItems(appended, replaced))


@dataclass(frozen=True, slots=True)
class EncodedItems:
    """A change's items as JSON: `appended` in order, `replaced` as (position, JSON) pairs
    sorted by position."""

    appended: tuple[str, ...]
    replaced: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Write:
    """One run's change for `RunStore.write_many`, with what `write` would be given."""

    run_id: str
    change: Change
    expected_version: int
    owner: str | None = None


Seconds = float | timedelta


@dataclass(frozen=True, slots=True)
class TriagePage:
    """One page of a triage listing: `runs` from `offset` on, `total` matching in all,
    and, with the first page (offset 0), over the runs of the asked statuses (before the
    agent, kind and text filters), how many each agent and each kind of pause has."""

    runs: tuple[RunSummary, ...]
    total: int
    offset: int
    agents: tuple[tuple[str, int], ...] = ()
    kinds: tuple[tuple[str, int], ...] = ()


class RunStore(ABC):
    """Durable runs: create, change by version-checked deltas, load, list, lease.

    >>> from pausepoint.store import SQLiteStore
    >>> from pausepoint import Prompt
    >>> store = SQLiteStore(":memory:")
    >>> prompt = Prompt.from_user("Delete record 7", run_id="run_doc")
    >>> store.create(prompt, status="idle", agent="ops")
    1
    >>> store.load_prompt("run_doc") == (prompt, 1)
    True
    """

    # -- writing -----------------------------------------------------------------------

    @abstractmethod
    def create(
        self,
        prompt: Prompt,
        *,
        status: str,
        agent: str | None = None,
        parent_run_id: str | None = None,
        parent_interrupt_id: str | None = None,
        title: str | None = None,
    ) -> int:
        """Store a new run with all of `prompt`'s items; returns its first version (1).
        `title` names it in listings (default: its first user message).

        Raises `RunExistsError` when the run id is taken."""

    @abstractmethod
    def write(
        self, run_id: str, change: Change, *, expected_version: int, owner: str | None = None
    ) -> int:
        """Apply `change` if the run is still at `expected_version`; returns the new version.

        Only the items in `change` are serialized and written, so a write costs what
        changed, not what the transcript holds. With `owner`, the write is also refused
        (`LeaseLostError`) unless `owner` holds a live lease on the run. A stale version
        raises `StoreConflictError`; an unknown run `RunNotFoundError`. A refused write
        changes nothing. A change with `release` needs `owner`, whose lease it ends.
        """

    def write_many(self, writes: Sequence[Write]) -> list[int | StoreError]:
        """Apply changes of several runs (at most one each), each checked as `write`
        checks it, in as few commits as the store can: SQL stores commit them together,
        a group commit of what several runs of a process have ready at once. A refused
        change is refused alone: its place in the result holds the error `write` would
        raise (`StoreConflictError`, `LeaseLostError`, ...), the others their new
        versions."""
        one_change_per_run(writes)
        done: list[int | StoreError] = []
        for w in writes:
            try:
                done.append(
                    self.write(
                        w.run_id, w.change, expected_version=w.expected_version, owner=w.owner
                    )
                )
            except StoreError as exc:
                done.append(exc)
        return done

    def append(
        self,
        run_id: str,
        items: Sequence[Item],
        *,
        expected_version: int,
        status: str | Keep = KEEP,
        pending: tuple[PendingSummary, ...] | Keep = KEEP,
        owner: str | None = None,
    ) -> int:
        """Add `items` after the stored ones (see `write`)."""
        change = Change(appended=tuple(items), status=status, pending=pending)
        return self.write(run_id, change, expected_version=expected_version, owner=owner)

    def replace(
        self,
        run_id: str,
        position: int,
        item: Item,
        *,
        expected_version: int,
        status: str | Keep = KEEP,
        pending: tuple[PendingSummary, ...] | Keep = KEEP,
        owner: str | None = None,
    ) -> int:
        """Overwrite the stored item at `position` (see `write`)."""
        change = Change(replaced={position: item}, status=status, pending=pending)
        return self.write(run_id, change, expected_version=expected_version, owner=owner)

    @abstractmethod
    def delete(self, run_id: str) -> None:
        """Remove the run and its items. Raises `RunNotFoundError` for an unknown run."""

    # -- reading -----------------------------------------------------------------------

    @abstractmethod
    def load_prompt(self, run_id: str) -> tuple[Prompt, int]:
        """The run's transcript exactly as written, and its version (read together)."""

    @abstractmethod
    def summary(self, run_id: str) -> RunSummary:
        """The run's header row, without its transcript."""

    @abstractmethod
    def runs(
        self,
        *,
        status: StatusFilter = None,
        agent: str | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[RunSummary]:
        """Header rows, most recently updated first, without loading any transcript.

        `status` is one status or several; `since` keeps runs updated at or after it."""

    @abstractmethod
    def waiting(
        self,
        *,
        status: str | Sequence[str] = "waiting",
        agent: str | None = None,
        kind: str | None = None,
        text: str | None = None,
        ignored: bool | None = False,
        sort: str = "newest",
        offset: int = 0,
        limit: int = 50,
    ) -> TriagePage:
        """One page of the runs waiting on a person, for triage, from header rows alone.

        `status` is ``"waiting"``, ``"failed"``, ``"stopped"`` or several; `agent` and
        `kind` (of the first pause) keep exact matches; `text` keeps runs whose title,
        agent, pause message, tool, key arguments or id hold it (any case). Ignored runs
        are left out (`ignored=True` lists only them, None both). `sort` is ``"newest"``
        (the latest to pause first), ``"oldest"``, a key argument's name (``"amount"``:
        smallest first, numbers as numbers) or ``"-amount"`` (largest first); runs
        without it come last. The page has `total`, the count of all matching runs::

            page = store.waiting(agent="payments", sort="-amount", limit=20)
            page.total, [run.title for run in page.runs]
        """

    @abstractmethod
    def ignore(self, run_id: str, *, by: str | None = None) -> None:
        """Set a run aside: `waiting()` leaves it out from now on, recording `by` and when
        (`RunSummary.ignored_by`, `ignored_at`). The run is not changed otherwise and can
        still be answered; `unignore` lists it again."""

    @abstractmethod
    def unignore(self, run_id: str) -> None:
        """List an ignored run again (undo `ignore`)."""

    @abstractmethod
    def set_title(self, run_id: str, title: str | None) -> None:
        """Name a run in listings (None: its first user message again)."""

    def export(self, run_id: str) -> str:
        """The run's Prompt as JSON, as `Prompt.model_dump_json()` gives it."""
        prompt, _ = self.load_prompt(run_id)
        return prompt.model_dump_json()

    def changes(self) -> RunChanges:
        """What tells that runs were created, written or deleted, here or by another
        process, without listing them (see `RunChanges`). One per store, closed with it.

        A store that cannot tell returns one whose version never moves."""
        return UnwatchedChanges()

    # -- leases ------------------------------------------------------------------------

    @abstractmethod
    def acquire(self, run_id: str, owner: str, ttl: Seconds) -> Lease:
        """Take (or extend) the lease on a run for `ttl`. Refused with `LeaseHeldError`
        while another owner's lease is live; an expired lease is taken over."""

    @abstractmethod
    def renew(self, run_id: str, owner: str, ttl: Seconds) -> Lease:
        """Extend `owner`'s lease to `ttl` from now. Raises `LeaseLostError` when another
        owner took it over (or it was released)."""

    @abstractmethod
    def release(self, run_id: str, owner: str) -> bool:
        """Give the lease up. False (and nothing changed) when `owner` did not hold it."""

    @abstractmethod
    def claim(
        self,
        owner: str,
        ttl: Seconds,
        *,
        agents: Iterable[str | None] | None = None,
        limit: int = 1,
    ) -> list[Lease]:
        """Lease up to `limit` runs that can go on to `owner` for `ttl`, oldest first, in
        one transaction; returns their leases (none: nothing to do now). Claimable are runs
        `idle` (never run, or answered with `continue_run=False`) and runs left `running`
        by a process that stopped, whose lease is free or expired. Never a run that waits
        for a person, a finished one, or one with a live lease; two claimers at once never
        get the same run. `agents` keeps runs stored under these agent names (None in it:
        runs stored without one). What a `Worker` calls between runs."""

    # -- lifetime ----------------------------------------------------------------------

    @abstractmethod
    def close(self) -> None:
        """Close every connection this store opened."""

    def __enter__(self) -> RunStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        self.close()
        return False


def one_change_per_run(writes: Sequence[Write]) -> None:
    """Refuse a group of writes that changes one run twice."""
    runs = [w.run_id for w in writes]
    if len(set(runs)) != len(runs):
        raise StoreUsageError(
            "write_many takes at most one change per run; write a run's changes in order, "
            "one call each. Nothing was written."
        )
