"""Claiming work: the stored runs that can go on, each taken with its lease in one go.

A run can go on when nothing executes it and nobody waits on it. In the store that is:

- status ``idle`` without a live lease: a run stored but never run
  (``agent.new_run(..., store=store)``), or one whose answers were recorded with
  ``continue_run=False`` and that nothing has continued yet;
- status ``running`` without a live lease: the process that executed it stopped (killed,
  crashed, its machine lost) before it saved how its stretch ended; it goes on from its
  last committed step, and an action cut short runs again with a higher ``ctx.attempt``.

Runs ``interrupted`` or ``paused`` wait for a person; ``completed``, ``failed`` and
``cancelled`` runs are done (a person may Continue them); a run with a live lease is
executing somewhere. None of these is ever claimed.

Claiming is one statement: the oldest claimable runs are picked and leased together. On
PostgreSQL the pick locks its rows ``FOR UPDATE SKIP LOCKED``, so concurrent claimers
pass over each other's rows instead of waiting or taking the same run; SQLite's write lock
makes claims take turns. No queue table: the runs' header rows and leases are the queue.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import StoreUsageError

__all__ = ["CLAIMABLE", "CLAIMABLE_INDEX", "Claim", "plan_claim"]

CLAIMABLE = ("idle", "running")
"""The statuses of runs that go on once their lease is free (see the module)."""

# Claimable runs, oldest first, without reading the rows of finished ones. Neither column
# changes as a run steps (and status only between stretches), so PostgreSQL still updates
# header rows in place (HOT) on every step.
_CLAIMABLE_SQL = f"status IN ({', '.join(repr(status) for status in CLAIMABLE)})"
CLAIMABLE_INDEX = (
    "CREATE INDEX IF NOT EXISTS pausepoint_runs_claimable ON pausepoint_runs "
    f"(created_at, run_id) WHERE {_CLAIMABLE_SQL}"
)
"""The index that keeps a claim from reading finished runs; a store makes it once."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim as a statement (``?`` placeholders, times as the store writes them) that
    leases the picked runs and returns their ``run_id, created_at``; None when the claim
    can pick nothing (an empty list of agents)."""

    statement: str
    params: list[Any]


def plan_claim(
    owner: str,
    expires: object,
    now: object,
    *,
    agents: Iterable[str | None] | None = None,
    limit: int = 1,
    skip_locked: bool = False,
) -> Claim | None:
    """The claim of up to `limit` claimable runs of `agents` (any agent when None; None in
    it means runs stored without an agent name) for `owner`, leased until `expires` and
    free of any lease that ended by `now` (both as the store writes times); oldest first.
    Refuses what is not a claim with `StoreUsageError`."""
    if not isinstance(owner, str) or not owner:
        raise StoreUsageError(f"A claim needs an owner name, not {owner!r}; nothing was claimed.")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise StoreUsageError(
            f"limit is how many runs to claim at most: a positive int, not {limit!r}."
        )
    if isinstance(agents, str):
        raise StoreUsageError(f"agents is a list of agent names: pass [{agents!r}].")
    names = None if agents is None else list(dict.fromkeys(agents))
    if names is not None and not all(n is None or isinstance(n, str) for n in names):
        raise StoreUsageError(f"agents are agent names (str or None), not {names!r}.")
    if names == []:
        return None
    where = f"{_CLAIMABLE_SQL} AND (lease_owner IS NULL OR lease_expires_at <= ?)"
    params: list[Any] = [owner, expires, now]
    if names is not None:
        named = [n for n in names if n is not None]
        either = [f"agent IN ({', '.join('?' for _ in named)})"] if named else []
        if None in names:
            either.append("agent IS NULL")
        where += f" AND ({' OR '.join(either)})"
        params += named
    lock = " FOR UPDATE SKIP LOCKED" if skip_locked else ""
    statement = (
        "UPDATE pausepoint_runs SET lease_owner = ?, lease_expires_at = ? "
        f"WHERE run_id IN (SELECT run_id FROM pausepoint_runs WHERE {where} "
        f"ORDER BY created_at, run_id LIMIT ?{lock}) "
        "RETURNING run_id, created_at"
    )
    params.append(limit)
    return Claim(statement, params)
