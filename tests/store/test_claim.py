"""Claiming work: a store hands out the runs that can go on, each to one claimer, with its
lease, and never a run that waits for a person, has ended, or executes somewhere."""

from __future__ import annotations

import threading
from datetime import timedelta

import psycopg
import pytest
from tests.helpers import Clock, StoreFactory

from pausepoint import Prompt
from pausepoint.store import Change, LeaseHeldError, PostgresStore, RunStore, StoreUsageError


def stored(store: RunStore, run_id: str, status: str, agent: str | None = "ops") -> str:
    store.create(Prompt.from_user(f"task {run_id}", run_id=run_id), status=status, agent=agent)
    return run_id


def test_new_and_abandoned_runs_are_claimed_and_nothing_else(store: RunStore, clock: Clock) -> None:
    idle = stored(store, "run_idle", "idle")
    running = stored(store, "run_running", "running")  # its executor left no lease
    for status in ("interrupted", "paused", "completed", "failed", "cancelled"):
        stored(store, f"run_{status}", status)

    leases = store.claim("worker-a", 30, limit=10)

    assert {lease.run_id for lease in leases} == {idle, running}
    for lease in leases:
        assert lease.owner == "worker-a"
        assert lease.expires_at == clock.now + timedelta(seconds=30)
        summary = store.summary(lease.run_id)
        assert (summary.lease_owner, summary.lease_expires_at) == ("worker-a", lease.expires_at)
        assert summary.version == 1  # a claim takes the lease; it writes nothing
    assert store.summary("run_interrupted").lease_owner is None


def test_a_live_lease_is_respected_and_an_expired_one_taken_over(
    store: RunStore, clock: Clock
) -> None:
    run_id = stored(store, "run_a", "running")
    store.acquire(run_id, "crashed-worker", 30)
    clock.advance(29)

    assert store.claim("worker-b", 30) == []
    assert store.summary(run_id).lease_owner == "crashed-worker"

    clock.advance(1)
    (lease,) = store.claim("worker-b", 30)

    assert lease.run_id == run_id
    assert store.summary(run_id).lease_owner == "worker-b"
    with pytest.raises(LeaseHeldError):
        store.acquire(run_id, "crashed-worker", 30)
    assert store.claim("worker-c", 30) == []  # claimed runs are nobody else's


def test_runs_are_claimed_oldest_first_up_to_the_limit(store: RunStore, clock: Clock) -> None:
    for n in (3, 1, 2):  # ids out of creation order
        stored(store, f"run_{n}", "idle")
        clock.advance(1)

    first = store.claim("a", 30, limit=2)
    second = store.claim("b", 30, limit=2)

    assert [lease.run_id for lease in first] == ["run_3", "run_1"]
    assert [lease.run_id for lease in second] == ["run_2"]
    assert store.claim("c", 30, limit=2) == []


def test_only_the_runs_of_the_agents_named_are_claimed(store: RunStore) -> None:
    stored(store, "run_ops", "idle", agent="ops")
    stored(store, "run_billing", "idle", agent="billing")
    stored(store, "run_unnamed", "idle", agent=None)

    assert store.claim("a", 30, agents=[]) == []
    assert [lease.run_id for lease in store.claim("a", 30, agents=["ops"], limit=5)] == ["run_ops"]
    assert [lease.run_id for lease in store.claim("b", 30, agents=[None], limit=5)] == [
        "run_unnamed"
    ]
    assert [lease.run_id for lease in store.claim("c", 30, limit=5)] == ["run_billing"]


def test_a_claimed_run_is_written_under_its_lease(store: RunStore) -> None:
    run_id = stored(store, "run_a", "idle")
    store.claim("worker-a", 30)

    version = store.write(run_id, Change(status="running"), expected_version=1, owner="worker-a")

    assert version == 2
    assert store.summary(run_id).status == "running"
    assert store.claim("worker-b", 30) == []  # running, and its lease is live


@pytest.mark.parametrize(
    ("owner", "ttl", "limit", "agents", "problem"),
    [
        ("", 30, 1, None, "owner"),
        ("a", 0, 1, None, "positive"),
        ("a", 30, 0, None, "limit"),
        ("a", 30, True, None, "limit"),
        ("a", 30, 1, [3], "agent names"),
        ("a", 30, 1, "ops", "list of agent names"),
    ],
)
def test_a_bad_claim_is_refused_and_claims_nothing(
    store: RunStore, owner: str, ttl: float, limit: int, agents: list[object] | None, problem: str
) -> None:
    run_id = stored(store, "run_a", "idle")

    with pytest.raises(StoreUsageError, match=problem):
        store.claim(owner, ttl, limit=limit, agents=agents)  # type: ignore[arg-type]

    assert store.summary(run_id).lease_owner is None


def test_claimers_at_once_never_get_the_same_run(open_store: StoreFactory) -> None:
    first = open_store()
    runs = {stored(first, f"run_{n:03d}", "idle") for n in range(120)}
    claimed: dict[str, list[str]] = {}
    start = threading.Barrier(6)

    def claimer(name: str) -> None:
        store = open_store()  # its own connections, as another process has
        mine = claimed.setdefault(name, [])
        start.wait()
        while leases := store.claim(name, 30, limit=3):
            mine += [lease.run_id for lease in leases]

    threads = [threading.Thread(target=claimer, args=(f"w{n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    every = [run_id for mine in claimed.values() for run_id in mine]
    assert sorted(every) == sorted(runs)  # each run once, none left
    owners = {s.run_id: s.lease_owner for s in first.runs()}
    assert all(owners[run_id] == name for name, mine in claimed.items() for run_id in mine)


def test_postgres_passes_over_a_locked_run_instead_of_waiting(postgres_dsn: str) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS pausepoint_runs, pausepoint_items, pausepoint_schema")
    store = PostgresStore(postgres_dsn)
    stored(store, "run_1", "idle")
    stored(store, "run_2", "idle")
    found: list[list[str]] = []
    with psycopg.connect(postgres_dsn) as other:  # another claimer, mid-transaction
        other.execute("SELECT 1 FROM pausepoint_runs WHERE run_id = 'run_1' FOR UPDATE")
        claim = threading.Thread(
            target=lambda: found.append([lease.run_id for lease in store.claim("b", 30)])
        )
        claim.start()
        claim.join(timeout=30)
        still_waiting = claim.is_alive()
    claim.join()
    store.close()

    assert not still_waiting, "the claim waited for the locked row"
    assert found == [["run_2"]]
