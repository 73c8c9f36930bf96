"""The SQL both stores share: one header row per run, one row per transcript item.

Statements are written with `?` placeholders; a dialect turns them into its own. Every
write is one transaction whose first statement is the version-checked update of the
header row, so of two writers on one version exactly one commits.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ..errors import (
    DamagedRunError,
    InvalidTranscriptError,
    LeaseHeldError,
    LeaseLostError,
    RunExistsError,
    RunNotFoundError,
    StoreConflictError,
    StoreError,
    StoreSchemaError,
    StoreUsageError,
    UnsupportedSchemaVersionError,
)
from ..transcript import Prompt, UserMessage, utc_now
from ._claim import CLAIMABLE_INDEX, plan_claim
from ._contract import (
    Change,
    Keep,
    Lease,
    RunStore,
    RunSummary,
    Seconds,
    StatusFilter,
    TriagePage,
    Write,
    one_change_per_run,
)
from ._rows import (
    HEADER_COLUMNS,
    aware,
    damage_of,
    fork_origin_to_json,
    model_pause_to_json,
    pending_of,
    pending_to_json,
    prompt_from_rows,
    seconds,
    summary_from_row,
)
from ._triage import backfill, pause_columns, title_of, triage_query

__all__ = ["STORE_SCHEMA_VERSION", "Cursor", "SQLStore", "WritePlan"]

# The version of the tables below; raise it with a migration when they change.
STORE_SCHEMA_VERSION = 5

# What brings tables of each older version to the next one: statements, or functions of
# the cursor and `SQLStore._run` for what SQL alone cannot compute.
_MIGRATIONS: dict[int, tuple[str | Callable[[Any, Any], None], ...]] = {
    # A stepping run's pause before a model request (Prompt.model_pause), as JSON.
    1: ("ALTER TABLE pausepoint_runs ADD COLUMN model_pause TEXT",),
    # What a triage list shows and sorts by (see _triage.py), filled in from the items.
    2: (
        "ALTER TABLE pausepoint_runs ADD COLUMN title TEXT",
        "ALTER TABLE pausepoint_runs ADD COLUMN pause_kind TEXT",
        "ALTER TABLE pausepoint_runs ADD COLUMN pause_args TEXT",
        "ALTER TABLE pausepoint_runs ADD COLUMN ignored_by TEXT",
        "ALTER TABLE pausepoint_runs ADD COLUMN ignored_at TEXT",
        backfill,
    ),
    # Where a fork came from, fork point included (Prompt.parent, as JSON): the parent
    # columns keep only the run and an interrupt. Older forks keep what those say.
    3: ("ALTER TABLE pausepoint_runs ADD COLUMN fork_origin TEXT",),
    # Who started a served run (Prompt.owner); older runs have none.
    4: ("ALTER TABLE pausepoint_runs ADD COLUMN owner TEXT",),
}

Clock = Callable[[], datetime]


class Cursor(Protocol):
    """What the shared SQL needs of a DB-API cursor."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, params: Sequence[Sequence[Any]], /) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    @property
    def rowcount(self) -> int: ...


class SQLStore(RunStore):
    """The contract over SQL; subclasses bring connections, transactions and types."""

    def __init__(self, *, clock: Clock | None = None) -> None:
        self._clock: Clock = clock or utc_now

    # -- what a dialect provides -------------------------------------------------------

    @abstractmethod
    def _transaction(self, *, write: bool) -> AbstractContextManager[Cursor]:
        """A transaction: committed on a normal exit, rolled back on an exception.
        Write transactions must take the database's write lock before their first read."""

    @abstractmethod
    def _sql(self, statement: str) -> str:
        """`statement` with `?` placeholders in the dialect's form."""

    @abstractmethod
    def _to_db_time(self, moment: datetime) -> Any: ...

    @abstractmethod
    def _from_db_time(self, value: Any) -> datetime: ...

    @abstractmethod
    def _is_duplicate(self, exc: Exception) -> bool:
        """Whether `exc` is a unique-key violation."""

    def _announce(self, cur: Cursor, run_id: str) -> None:
        """Tell the store's readers, in the transaction that creates or deletes `run_id`,
        that it changed (a dialect whose readers learn otherwise does nothing)."""

    def _now(self) -> datetime:
        return aware(self._clock())

    def _run(self, cur: Cursor, statement: str, params: Sequence[Any] = ()) -> Any:
        return cur.execute(self._sql(statement), params)

    # -- schema ------------------------------------------------------------------------

    def _check_schema(self, cur: Cursor) -> None:
        row = self._run(cur, "SELECT version FROM pausepoint_schema").fetchone()
        if row is None:
            self._run(
                cur, "INSERT INTO pausepoint_schema (version) VALUES (?)", (STORE_SCHEMA_VERSION,)
            )
            return
        if row[0] > STORE_SCHEMA_VERSION:
            raise StoreSchemaError(row[0], STORE_SCHEMA_VERSION)
        for version in range(row[0], STORE_SCHEMA_VERSION):
            for statement in _MIGRATIONS[version]:
                if callable(statement):
                    statement(cur, self._run)
                else:
                    self._run(cur, statement)
        if row[0] < STORE_SCHEMA_VERSION:
            self._run(cur, "UPDATE pausepoint_schema SET version = ?", (STORE_SCHEMA_VERSION,))

    # -- writing -----------------------------------------------------------------------

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
        if prompt.parent is not None:  # a fork: its parent is also a column, for queries
            parent_run_id = parent_run_id or prompt.parent.run_id
            parent_interrupt_id = parent_interrupt_id or prompt.parent.interrupt_id
        items = [(prompt.run_id, i, item.model_dump_json()) for i, item in enumerate(prompt.items)]
        waits = pending_of(prompt)
        pending = pending_to_json(waits)
        kind, arguments = pause_columns(waits)
        texts = (item.text for item in prompt.items if isinstance(item, UserMessage))
        now = self._to_db_time(self._now())
        try:
            with self._transaction(write=True) as cur:
                self._run(
                    cur,
                    "INSERT INTO pausepoint_runs (run_id, thread_id, agent, status, pending, "
                    "version, item_count, created_at, updated_at, schema_version, "
                    "instructions, parent_run_id, parent_interrupt_id, model_pause, "
                    "title, pause_kind, pause_args, fork_origin, owner) "
                    "VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        prompt.run_id,
                        prompt.thread_id,
                        agent,
                        status,
                        pending,
                        len(items),
                        now,
                        now,
                        prompt.schema_version,
                        prompt.instructions,
                        parent_run_id,
                        parent_interrupt_id,
                        model_pause_to_json(prompt.model_pause),
                        title_of(texts, title),
                        kind,
                        arguments,
                        fork_origin_to_json(prompt.parent),
                        prompt.owner,
                    ),
                )
                if items:
                    cur.executemany(
                        self._sql(
                            "INSERT INTO pausepoint_items (run_id, position, item) VALUES (?, ?, ?)"
                        ),
                        items,
                    )
                self._announce(cur, prompt.run_id)
        except Exception as exc:
            if self._is_duplicate(exc):
                raise RunExistsError(prompt.run_id) from None
            raise
        return 1

    def write(
        self, run_id: str, change: Change, *, expected_version: int, owner: str | None = None
    ) -> int:
        plan = self._plan(run_id, change, expected_version, owner)
        if not self._apply(run_id, plan):
            self._refuse(run_id, expected_version, owner, plan.now, plan.replaced)
        return int(expected_version) + 1

    def write_many(self, writes: Sequence[Write]) -> list[int | StoreError]:
        """Every change in one transaction (one commit, one flush to disk); a change whose
        version or lease check fails writes nothing and is refused alone."""
        if len(writes) < 2:
            return super().write_many(writes)
        one_change_per_run(writes)
        plans: list[WritePlan | StoreError] = []
        for w in writes:
            try:
                plans.append(self._plan(w.run_id, w.change, w.expected_version, w.owner))
            except StoreError as exc:
                plans.append(exc)
        try:
            with self._transaction(write=True) as cur:
                applied = [
                    isinstance(plan, WritePlan) and self._apply_in(cur, w.run_id, plan)
                    for w, plan in zip(writes, plans, strict=True)
                ]
        except Exception:  # one change broke the transaction: each on its own, then
            return super().write_many(writes)
        done: list[int | StoreError] = []
        for w, plan, ok in zip(writes, plans, applied, strict=True):
            if isinstance(plan, StoreError):
                done.append(plan)
            elif ok:
                done.append(int(w.expected_version) + 1)
            else:
                try:
                    self._refuse(w.run_id, w.expected_version, w.owner, plan.now, plan.replaced)
                except StoreError as exc:
                    done.append(exc)
        return done

    def _plan(
        self, run_id: str, change: Change, expected_version: int, owner: str | None
    ) -> WritePlan:
        """The version- and lease-checked header update of a write, and its items."""
        encoded = change.encode().encoded
        assert encoded is not None
        appended, replaced = encoded.appended, encoded.replaced
        if replaced and replaced[0][0] < 0:
            raise StoreUsageError(
                f"No item at position {replaced[0][0]} of run {run_id!r}; nothing was written."
            )
        now = self._now()
        sets = ["version = version + 1", "item_count = item_count + ?", "updated_at = ?"]
        params: list[Any] = [len(appended), self._to_db_time(now)]
        if not isinstance(change.status, Keep):
            sets.append("status = ?")
            params.append(change.status)
        if not isinstance(change.pending, Keep):
            sets.append("pending = ?, pause_kind = ?, pause_args = ?")
            params += [pending_to_json(change.pending), *pause_columns(change.pending)]
        if not isinstance(change.instructions, Keep):
            sets.append("instructions = ?")
            params.append(change.instructions)
        if not isinstance(change.model_pause, Keep):
            sets.append("model_pause = ?")
            params.append(model_pause_to_json(change.model_pause))
        if not isinstance(change.parent, Keep):
            sets.append("fork_origin = ?")
            params.append(fork_origin_to_json(change.parent))
        if change.release:
            if owner is None:
                raise StoreUsageError(
                    f"A change of run {run_id!r} that releases the lease needs its owner; "
                    "nothing was written."
                )
            sets.append("lease_owner = NULL, lease_expires_at = NULL")
        # Replaced positions must be stored ones: checked by the same update, so a bad
        # position refuses the whole change like a stale version does.
        where = "run_id = ? AND version = ? AND item_count > ?"
        params += [run_id, expected_version, replaced[-1][0] if replaced else -1]
        if owner is not None:
            where += " AND lease_owner = ? AND lease_expires_at > ?"
            params += [owner, self._to_db_time(now)]
        header = f"UPDATE pausepoint_runs SET {', '.join(sets)} WHERE {where}"
        return WritePlan(header, params, appended, replaced, now)

    def _apply(self, run_id: str, plan: WritePlan) -> bool:
        """Run the plan's version-checked header update and, if it matched, write the
        items, in one transaction. False (and nothing written) when the update matched no
        row."""
        with self._transaction(write=True) as cur:
            return self._apply_in(cur, run_id, plan)

    def _apply_in(self, cur: Cursor, run_id: str, plan: WritePlan) -> bool:
        """`_apply` inside the transaction of `cur`."""
        appended, replaced = plan.appended, plan.replaced
        row = self._run(cur, plan.header + " RETURNING item_count", plan.params).fetchone()
        if row is None:
            return False
        start = row[0] - len(appended)
        if appended:
            cur.executemany(
                self._sql("INSERT INTO pausepoint_items (run_id, position, item) VALUES (?, ?, ?)"),
                [(run_id, start + i, text) for i, text in enumerate(appended)],
            )
        if replaced:
            cur.executemany(
                self._sql("UPDATE pausepoint_items SET item = ? WHERE run_id = ? AND position = ?"),
                [(text, run_id, position) for position, text in replaced],
            )
        self._announce(cur, run_id)
        return True

    def _refuse(
        self,
        run_id: str,
        expected: int,
        owner: str | None,
        now: datetime,
        replaced: Sequence[tuple[int, str]],
    ) -> None:
        """Raise the reason a write's header update matched no row."""
        with self._transaction(write=False) as cur:
            row = self._run(
                cur,
                "SELECT version, lease_owner, lease_expires_at, item_count "
                "FROM pausepoint_runs WHERE run_id = ?",
                (run_id,),
            ).fetchone()
        if row is None:
            raise RunNotFoundError(run_id)
        version, holder, until, count = row
        if version != expected:
            raise StoreConflictError(run_id, expected, version)
        if owner is not None and (holder != owner or self._from_db_time(until) <= now):
            raise LeaseLostError(run_id, owner, holder)
        raise StoreUsageError(
            f"Run {run_id!r} has {count} stored items; there is no item at position "
            f"{replaced[-1][0] if replaced else count} to replace. Nothing was written. "
            "Append new items instead of replacing them."
        )

    def delete(self, run_id: str) -> None:
        with self._transaction(write=True) as cur:
            gone = self._run(cur, "DELETE FROM pausepoint_runs WHERE run_id = ?", (run_id,))
            if gone.rowcount == 0:
                raise RunNotFoundError(run_id)
            self._run(cur, "DELETE FROM pausepoint_items WHERE run_id = ?", (run_id,))
            self._announce(cur, run_id)

    # -- reading -----------------------------------------------------------------------

    def load_prompt(self, run_id: str) -> tuple[Prompt, int]:
        with self._transaction(write=False) as cur:
            head = self._run(
                cur,
                "SELECT schema_version, thread_id, instructions, version, item_count, "
                "parent_run_id, parent_interrupt_id, model_pause, fork_origin, owner "
                "FROM pausepoint_runs WHERE run_id = ?",
                (run_id,),
            ).fetchone()
            if head is None:
                raise RunNotFoundError(run_id)
            rows = self._run(
                cur,
                "SELECT item FROM pausepoint_items WHERE run_id = ? ORDER BY position",
                (run_id,),
            ).fetchall()
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (head[3], head[4])):
            raise DamagedRunError(run_id, "its version or item count is not a number")
        if len(rows) != head[4]:
            raise DamagedRunError(
                run_id, f"it should have {head[4]} transcript items but {len(rows)} are stored"
            )
        try:
            prompt = prompt_from_rows(
                schema_version=head[0],
                thread_id=head[1],
                run_id=run_id,
                instructions=head[2],
                items=(row[0] for row in rows),
                parent=(head[5], head[6]) if head[5] is not None and head[6] is not None else None,
                model_pause=head[7],
                fork_origin=head[8],
                owner=head[9],
            )
        except UnsupportedSchemaVersionError:
            raise  # written by a newer pausepoint: not damage, and its message says so
        except (ValueError, TypeError, InvalidTranscriptError) as exc:
            raise DamagedRunError(run_id, damage_of(exc)) from exc
        return prompt, int(head[3])

    def summary(self, run_id: str) -> RunSummary:
        with self._transaction(write=False) as cur:
            row = self._run(
                cur, f"SELECT {HEADER_COLUMNS} FROM pausepoint_runs WHERE run_id = ?", (run_id,)
            ).fetchone()
        if row is None:
            raise RunNotFoundError(run_id)
        return summary_from_row(row, self._from_db_time)

    def runs(
        self,
        *,
        status: StatusFilter = None,
        agent: str | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[RunSummary]:
        where: list[str] = []
        params: list[Any] = []
        if status is not None:
            wanted = [status] if isinstance(status, str) else list(status)
            where.append(f"status IN ({', '.join('?' for _ in wanted)})" if wanted else "1 = 0")
            params += wanted
        if agent is not None:
            where.append("agent = ?")
            params.append(agent)
        if since is not None:
            where.append("updated_at >= ?")
            params.append(self._to_db_time(aware(since)))
        query = f"SELECT {HEADER_COLUMNS} FROM pausepoint_runs"
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY updated_at DESC, run_id"
        if limit is not None:
            query += " LIMIT ?"
            params.append(limit)
        with self._transaction(write=False) as cur:
            rows = self._run(cur, query, params).fetchall()
        return [summary_from_row(row, self._from_db_time) for row in rows]

    def _argument(self, key: str) -> str:
        """The SQL for the key argument `key` (checked to be a plain name) of a header
        row, sortable: numbers as numbers."""
        return f"json_extract(pause_args, '$.{key}')"

    def _pause_message(self) -> str:
        """The SQL for the message of a header row's first pending interrupt."""
        return "json_extract(pending, '$[0].message')"

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
        query = triage_query(
            status=status,
            agent=agent,
            kind=kind,
            text=text,
            ignored=ignored,
            sort=sort,
            offset=offset,
            limit=limit,
            argument=self._argument,
            message=self._pause_message(),
        )
        with self._transaction(write=False) as cur:
            rows = self._run(
                cur,
                f"SELECT {HEADER_COLUMNS} FROM pausepoint_runs WHERE {query.where} "
                f"ORDER BY {query.order} LIMIT ? OFFSET ?",
                (*query.params, query.limit, query.offset),
            ).fetchall()
            total = self._run(
                cur, f"SELECT COUNT(*) FROM pausepoint_runs WHERE {query.where}", query.params
            ).fetchone()[0]
            # What to filter by comes with the first page, not with each page scrolled to.
            facets = (
                self._run(
                    cur,
                    "SELECT agent, pause_kind, COUNT(*) FROM pausepoint_runs "
                    f"WHERE {query.facet_where} GROUP BY agent, pause_kind",
                    query.facet_params,
                ).fetchall()
                if query.offset == 0
                else []
            )
        agents: dict[str, int] = {}
        kinds: dict[str, int] = {}
        for name, pause, count in facets:
            if name is not None:
                agents[name] = agents.get(name, 0) + count
            if pause is not None:
                kinds[pause] = kinds.get(pause, 0) + count
        return TriagePage(
            runs=tuple(summary_from_row(row, self._from_db_time) for row in rows),
            total=int(total),
            offset=query.offset,
            agents=tuple(sorted(agents.items())),
            kinds=tuple(sorted(kinds.items())),
        )

    def ignore(self, run_id: str, *, by: str | None = None) -> None:
        if by is not None and not isinstance(by, str):
            raise StoreUsageError(f"by must be text (who ignores the run), not {by!r}.")
        self._set(run_id, "ignored_by = ?, ignored_at = ?", (by, self._now().isoformat()))

    def unignore(self, run_id: str) -> None:
        self._set(run_id, "ignored_by = NULL, ignored_at = NULL", ())

    def set_title(self, run_id: str, title: str | None) -> None:
        if title is not None and not isinstance(title, str):
            raise StoreUsageError(f"A run's title is text or None, not {title!r}.")
        if title is None:
            prompt, _ = self.load_prompt(run_id)
            title = title_of(i.text for i in prompt.items if isinstance(i, UserMessage))
        self._set(run_id, "title = ?", (title_of((), title) if title is not None else None,))

    def _set(self, run_id: str, sets: str, params: Sequence[Any]) -> None:
        """Change listing fields of a run's header, not its version: a run's writer, whose
        next write names the version it loaded, goes on undisturbed."""
        with self._transaction(write=True) as cur:
            row = self._run(
                cur,
                f"UPDATE pausepoint_runs SET {sets} WHERE run_id = ? RETURNING run_id",
                (*params, run_id),
            ).fetchone()
            if row is None:
                raise RunNotFoundError(run_id)
            self._announce(cur, run_id)

    # -- leases ------------------------------------------------------------------------

    # Whether a claim passes over rows other claimers have locked (PostgreSQL); SQLite's
    # write lock makes claims take turns instead.
    _skip_locked = False

    def claim(
        self,
        owner: str,
        ttl: Seconds,
        *,
        agents: Iterable[str | None] | None = None,
        limit: int = 1,
    ) -> list[Lease]:
        now = self._now()
        expires = now + seconds(ttl)
        plan = plan_claim(
            owner,
            self._to_db_time(expires),
            self._to_db_time(now),
            agents=agents,
            limit=limit,
            skip_locked=self._skip_locked,
        )
        if plan is None:
            return []
        self._claimable_index()
        with self._transaction(write=True) as cur:
            rows = self._run(cur, plan.statement, plan.params).fetchall()
        rows.sort(key=lambda row: (self._from_db_time(row[1]), row[0]))
        return [Lease(row[0], owner, expires) for row in rows]

    _indexed_claims = False

    def _claimable_index(self) -> None:
        """Make the claimable runs' index once per store object (it outlives the store)."""
        if self._indexed_claims:
            return
        try:
            with self._transaction(write=True) as cur:
                self._run(cur, CLAIMABLE_INDEX)
        except Exception as exc:
            # Two processes creating it at once on PostgreSQL: the other one made it.
            if not self._is_duplicate(exc):
                raise
        self._indexed_claims = True

    def acquire(self, run_id: str, owner: str, ttl: Seconds) -> Lease:
        now = self._now()
        expires = now + seconds(ttl)
        with self._transaction(write=True) as cur:
            while True:
                row = self._run(
                    cur,
                    "UPDATE pausepoint_runs SET lease_owner = ?, lease_expires_at = ? "
                    "WHERE run_id = ? AND (lease_owner IS NULL OR lease_owner = ? "
                    "OR lease_expires_at <= ?) RETURNING run_id",
                    (owner, self._to_db_time(expires), run_id, owner, self._to_db_time(now)),
                ).fetchone()
                if row is not None:
                    return Lease(run_id, owner, expires)
                holder, until = self._lease_of(cur, run_id)
                # Read committed: the holder may have released it since the update looked.
                if holder is not None and self._from_db_time(until) > now:
                    raise LeaseHeldError(run_id, holder, self._from_db_time(until))

    def renew(self, run_id: str, owner: str, ttl: Seconds) -> Lease:
        expires = self._now() + seconds(ttl)
        with self._transaction(write=True) as cur:
            row = self._run(
                cur,
                "UPDATE pausepoint_runs SET lease_expires_at = ? "
                "WHERE run_id = ? AND lease_owner = ? RETURNING run_id",
                (self._to_db_time(expires), run_id, owner),
            ).fetchone()
            if row is None:
                raise LeaseLostError(run_id, owner, self._lease_of(cur, run_id)[0])
        return Lease(run_id, owner, expires)

    def release(self, run_id: str, owner: str) -> bool:
        with self._transaction(write=True) as cur:
            row = self._run(
                cur,
                "UPDATE pausepoint_runs SET lease_owner = NULL, lease_expires_at = NULL "
                "WHERE run_id = ? AND lease_owner = ? RETURNING run_id",
                (run_id, owner),
            ).fetchone()
            if row is None:
                self._lease_of(cur, run_id)
                return False
        return True

    def _lease_of(self, cur: Cursor, run_id: str) -> tuple[str | None, Any]:
        row = self._run(
            cur,
            "SELECT lease_owner, lease_expires_at FROM pausepoint_runs WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        if row is None:
            raise RunNotFoundError(run_id)
        return row[0], row[1]


def iter_statements(script: str) -> Iterator[str]:
    """The statements of a `;`-separated DDL script."""
    for statement in script.split(";"):
        if statement.strip():
            yield statement.strip()


@dataclass(frozen=True, slots=True)
class WritePlan:
    """A write made ready: its header update and parameters, its items as JSON."""

    header: str
    params: list[Any]
    appended: tuple[str, ...]
    replaced: tuple[tuple[int, str], ...]
    now: datetime
