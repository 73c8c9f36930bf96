"""`RunWriter`: saves a run's Prompt as it changes, writing only what changed.

The loop mutates its Prompt in place: it appends items, and moves the tool call records
of the current turn along (status, results, interrupt history). The writer remembers how
many items are stored and a small marker of every record that can still change, so a
save looks at the new items and the open records only: its cost does not grow with the
transcript, and unchanged items are never serialized again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from ..errors import StoreUsageError
from ..transcript import ForkOrigin, Item, Prompt, ToolCall
from ._contract import KEEP, Change, Keep, PendingSummary, RunStore, Seconds, Write
from ._rows import pending_of

__all__ = ["PreparedSave", "RunWriter"]

# Tool call records in these states may still change; any other state is final.
_OPEN_STATUSES = frozenset({"pending", "running", "interrupted"})

_Marker = tuple[str, int, bool, int]


def _marker(record: ToolCall) -> _Marker:
    """What moves when the loop changes a record: its status, its history's length,
    whether the latest entry has its answer, and its executions (a call re-run after a
    crash stays "running" with one more attempt)."""
    latest = record.latest_interrupt
    answered = latest is not None and not latest.is_pending
    return record.status, len(record.interrupts), answered, record.attempts


def _open_marker(item: Item) -> _Marker | None:
    """The marker of a record that may still change; None for any other item."""
    if isinstance(item, ToolCall) and item.status in _OPEN_STATUSES:
        return _marker(item)
    return None


@dataclass(frozen=True, slots=True)
class PreparedSave:
    """A save made ready on the loop (`RunWriter.prepare`) for `RunWriter.commit`: the
    change with its items serialized, the version it expects, the lease owner it writes
    as, and the markers of the items it stores."""

    change: Change
    version: int
    owner: str | None
    opened: dict[int, _Marker | None]


class RunWriter:
    """The link between one run's Prompt and its stored copy.

    >>> from pausepoint.store import SQLiteStore
    >>> from pausepoint.transcript import AssistantMessage, Prompt
    >>> store = SQLiteStore(":memory:")
    >>> prompt = Prompt.from_user("hello", run_id="run_w")
    >>> writer = RunWriter.create(store, prompt, status="running", agent="demo")
    >>> prompt.items.append(AssistantMessage(text="hi"))
    >>> writer.save(prompt, status="completed")
    2
    >>> store.load_prompt("run_w")[0] == prompt
    True

    `save` detects new items and changed open tool call records by itself. Anything else
    changed in place (not something the loop does) must be named in `changed=`.
    """

    def __init__(
        self,
        store: RunStore,
        prompt: Prompt,
        version: int,
        *,
        status: str | None = None,
        owner: str | None = None,
    ) -> None:
        """Attach to a run whose stored copy is `prompt` at `version` (as just loaded or
        created). Reads the Prompt once, here."""
        self.store = store
        self.run_id = prompt.run_id
        self.version = version
        self.owner = owner
        self._status = status
        self._count = len(prompt.items)
        self._instructions = prompt.instructions
        self._model_pause = prompt.model_pause
        self._parent = _copied(prompt.parent)
        self._pending = pending_of(prompt)
        self._open: dict[int, _Marker] = {}
        for position, item in enumerate(prompt.items):
            self._track(position, item)

    @classmethod
    def create(
        cls,
        store: RunStore,
        prompt: Prompt,
        *,
        status: str,
        agent: str | None = None,
        owner: str | None = None,
        parent_run_id: str | None = None,
        parent_interrupt_id: str | None = None,
    ) -> RunWriter:
        """Store `prompt` as a new run and return its writer."""
        version = store.create(
            prompt,
            status=status,
            agent=agent,
            parent_run_id=parent_run_id,
            parent_interrupt_id=parent_interrupt_id,
        )
        return cls(store, prompt, version, status=status, owner=owner)

    @classmethod
    def load(
        cls,
        store: RunStore,
        run_id: str,
        *,
        owner: str | None = None,
        ttl: Seconds | None = None,
    ) -> tuple[RunWriter, Prompt]:
        """Load a stored run to continue it. With `owner` and `ttl`, take its lease first
        (`LeaseHeldError` while another owner executes it); the writer's saves are then
        refused once the lease is lost."""
        if owner is not None and ttl is not None:
            store.acquire(run_id, owner, ttl)
        while True:
            prompt, version = store.load_prompt(run_id)
            summary = store.summary(run_id)
            if summary.version == version:  # else a write landed in between: read again
                return cls(store, prompt, version, status=summary.status, owner=owner), prompt

    @property
    def saved_items(self) -> int:
        """How many items of the Prompt are stored."""
        return self._count

    def change(self, prompt: Prompt, *, changed: Iterable[int] = ()) -> Change | None:
        """The delta from the stored copy to `prompt`, or None when nothing moved.

        Reads only the items after the stored ones, the open tool call records and the
        positions in `changed`. Writes nothing."""
        if prompt.run_id != self.run_id:
            raise StoreUsageError(
                f"This writer saves run {self.run_id!r}, not {prompt.run_id!r}: make a "
                "writer for that run (RunWriter.create or RunWriter.load)."
            )
        items = prompt.items
        if len(items) < self._count:
            raise StoreUsageError(
                f"Run {self.run_id!r} has {self._count} stored items but the Prompt now has "
                f"{len(items)}: transcripts only grow. Fork into a new run instead of "
                "removing items."
            )
        replaced: dict[int, Item] = {}
        for position, marker in self._open.items():
            record = items[position]
            if not isinstance(record, ToolCall) or _marker(record) != marker:
                replaced[position] = record
        for position in changed:
            if not 0 <= position < len(items):
                raise StoreUsageError(
                    f"No item at position {position} of run {self.run_id!r}; nothing was written."
                )
            if position < self._count:
                replaced[position] = items[position]
        appended = items[self._count :]
        pending = pending_of(prompt)
        if (
            not appended
            and not replaced
            and pending == self._pending
            and (prompt.instructions == self._instructions)
            and (prompt.model_pause == self._model_pause)
            and (prompt.parent == self._parent)
        ):
            return None
        return Change(
            appended=appended,
            replaced=replaced,
            pending=pending if pending != self._pending else KEEP,
            instructions=(
                prompt.instructions if prompt.instructions != self._instructions else KEEP
            ),
            model_pause=(prompt.model_pause if prompt.model_pause != self._model_pause else KEEP),
            parent=_copied(prompt.parent) if prompt.parent != self._parent else KEEP,
        )

    def save(
        self,
        prompt: Prompt,
        *,
        status: str | None = None,
        changed: Iterable[int] = (),
        release: bool = False,
    ) -> int:
        """Write what changed since the last save, checked against the version this writer
        last wrote or loaded; returns the run's version afterwards (unchanged when nothing
        moved). `status` is the run's status as the caller knows it (e.g. "running",
        "interrupted", "completed"). `release` also gives up this writer's lease, in the
        same transaction (a write even when nothing else moved).

        Raises `StoreConflictError` (someone else wrote first: reload) or `LeaseLostError`
        (the lease went to another owner); then nothing was written and the writer is as
        it was before the call.
        """
        prepared = self.prepare(prompt, status=status, changed=changed, release=release)
        if prepared is None:
            return self.version
        return self.commit(prepared)

    def prepare(
        self,
        prompt: Prompt,
        *,
        status: str | None = None,
        changed: Iterable[int] = (),
        release: bool = False,
    ) -> PreparedSave | None:
        """What `save` would write, with its items serialized now, or None when nothing
        moved. Writes nothing; `commit` writes it, on any thread, while the Prompt moves
        on. Prepare the next save only once this one is committed (or refused)."""
        change = self.change(prompt, changed=changed)
        new_status: str | Keep = status if status is not None and status != self._status else KEEP
        release = release and self.owner is not None
        if change is None and new_status is KEEP and not release:
            return None
        if change is None:
            change = Change(status=new_status, release=release)
        else:
            change = Change(
                appended=change.appended,
                replaced=change.replaced,
                status=new_status,
                pending=change.pending,
                instructions=change.instructions,
                model_pause=change.model_pause,
                parent=change.parent,
                release=release,
            )
        start = self._count
        opened = {p: _open_marker(prompt.items[p]) for p in change.replaced}
        for offset, item in enumerate(change.appended):
            opened[start + offset] = _open_marker(item)
        return PreparedSave(change.encode(), self.version, self.owner, opened)

    def commit(self, prepared: PreparedSave) -> int:
        """Write a prepared save (blocking; safe on another thread than the loop's);
        returns the new version. Refused as `save` is, leaving the writer as it was."""
        change = prepared.change
        version = self.store.write(
            self.run_id, change, expected_version=prepared.version, owner=prepared.owner
        )
        return self.committed(prepared, version)

    def write_of(self, prepared: PreparedSave) -> Write:
        """A prepared save as one of the writes `RunStore.write_many` commits together;
        tell this writer with `committed` once it is in."""
        return Write(self.run_id, prepared.change, prepared.version, prepared.owner)

    def committed(self, prepared: PreparedSave, version: int) -> int:
        """Take note that `prepared` was written, the run now at `version`."""
        change = prepared.change
        self.version = version
        self._count += len(change.appended)
        for position, marker in prepared.opened.items():
            if marker is None:
                self._open.pop(position, None)
            else:
                self._open[position] = marker
        if not isinstance(change.status, Keep):
            self._status = change.status
        if not isinstance(change.pending, Keep):
            self._pending = change.pending
        if not isinstance(change.instructions, Keep):
            self._instructions = change.instructions
        if not isinstance(change.model_pause, Keep):
            self._model_pause = change.model_pause
        if not isinstance(change.parent, Keep):
            self._parent = change.parent
        if change.release:
            self.owner = None
        return self.version

    def _track(self, position: int, item: Item) -> None:
        marker = _open_marker(item)
        if marker is None:
            self._open.pop(position, None)
        else:
            self._open[position] = marker

    def renew(self, ttl: Seconds) -> datetime:
        """Extend this writer's lease; returns the new expiry."""
        if self.owner is None:
            raise StoreUsageError("This writer holds no lease: give RunWriter.load an owner.")
        return self.store.renew(self.run_id, self.owner, ttl).expires_at

    @property
    def status(self) -> str | None:
        """The run's status as last saved."""
        return self._status

    @property
    def pending(self) -> tuple[PendingSummary, ...]:
        """The pending interrupts as last saved."""
        return self._pending


def _copied(origin: ForkOrigin | None) -> ForkOrigin | None:
    """A copy of a fork's origin that later edits of the run's own do not move."""
    return origin.model_copy(deep=True) if origin is not None else None
