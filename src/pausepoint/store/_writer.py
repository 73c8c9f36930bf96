"""`RunWriter`: saves a run's Prompt as it changes, writing only what changed.

The loop mutates its Prompt in place: it appends items, and moves the tool call records
of the current turn along (status, results, interrupt history). The writer remembers how
many items are stored and a small marker of every record that can still change, so a
save looks at the new items and the open records only: its cost does not grow with the
transcript, and unchanged items are never serialized again.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from ..transcript import Item, Prompt, ToolCall
from ._contract import KEEP, Change, Keep, PendingSummary, RunStore, Seconds
from ._errors import StoreUsageError
from ._rows import pending_of

__all__ = ["RunWriter"]

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


class RunWriter:
    """The link between one run's Prompt and its stored copy.

    >>> from pausepoint.store import SQLiteStore
    >>> from pausepoint import Prompt, AssistantMessage
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
        )

    def save(
        self,
        prompt: Prompt,
        *,
        status: str | None = None,
        changed: Iterable[int] = (),
    ) -> int:
        """Write what changed since the last save, checked against the version this writer
        last wrote or loaded; returns the run's version afterwards (unchanged when nothing
        moved). `status` is the run's status as the caller knows it (e.g. "running",
        "interrupted", "completed").

        Raises `StoreConflictError` (someone else wrote first: reload) or `LeaseLostError`
        (the lease went to another owner); then nothing was written and the writer is as
        it was before the call.
        """
        change = self.change(prompt, changed=changed)
        new_status: str | Keep = status if status is not None and status != self._status else KEEP
        if change is None and new_status is KEEP:
            return self.version
        if change is None:
            change = Change(status=new_status)
        else:
            change = Change(
                appended=change.appended,
                replaced=change.replaced,
                status=new_status,
                pending=change.pending,
                instructions=change.instructions,
                model_pause=change.model_pause,
            )
        self.version = self.store.write(
            self.run_id, change, expected_version=self.version, owner=self.owner
        )
        self._applied(prompt, change)
        return self.version

    def _applied(self, prompt: Prompt, change: Change) -> None:
        start = self._count
        self._count = start + len(change.appended)
        for position in change.replaced:
            self._track(position, prompt.items[position])
        for offset, item in enumerate(change.appended):
            self._track(start + offset, item)
        if not isinstance(change.status, Keep):
            self._status = change.status
        if not isinstance(change.pending, Keep):
            self._pending = change.pending
        if not isinstance(change.instructions, Keep):
            self._instructions = change.instructions
        if not isinstance(change.model_pause, Keep):
            self._model_pause = change.model_pause

    def _track(self, position: int, item: Item) -> None:
        if isinstance(item, ToolCall) and item.status in _OPEN_STATUSES:
            self._open[position] = _marker(item)
        else:
            self._open.pop(position, None)

    def renew(self, ttl: Seconds) -> datetime:
        """Extend this writer's lease; returns the new expiry."""
        if self.owner is None:
            raise StoreUsageError("This writer holds no lease: give RunWriter.load an owner.")
        return self.store.renew(self.run_id, self.owner, ttl).expires_at

    @property
    def pending(self) -> tuple[PendingSummary, ...]:
        """The pending interrupts as last saved."""
        return self._pending
