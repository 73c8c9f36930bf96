"""Leases: one owner executes a run at a time, and a crashed owner's lease runs out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests.helpers import Clock

from pausepoint import Prompt
from pausepoint.store import LeaseHeldError, LeaseLostError, RunStore, StoreUsageError
from pausepoint.transcript import AssistantMessage


@pytest.fixture
def run_id(store: RunStore) -> str:
    store.create(Prompt.from_user("go", run_id="run_l"), status="interrupted")
    return "run_l"


def test_a_second_owner_is_refused_while_the_lease_is_live(
    store: RunStore, clock: Clock, run_id: str
) -> None:
    lease = store.acquire(run_id, "kernel-a", 30)
    assert lease.expires_at == clock.now + timedelta(seconds=30)
    clock.advance(29)

    with pytest.raises(LeaseHeldError) as caught:
        store.acquire(run_id, "kernel-b", 30)

    assert caught.value.owner == "kernel-a"
    assert caught.value.expires_at == lease.expires_at
    summary = store.summary(run_id)
    assert (summary.lease_owner, summary.lease_expires_at) == ("kernel-a", lease.expires_at)


def test_an_expired_lease_is_taken_over(store: RunStore, clock: Clock, run_id: str) -> None:
    store.acquire(run_id, "crashed", 30)
    clock.advance(30)

    lease = store.acquire(run_id, "rescuer", 30)

    assert lease.owner == "rescuer"
    assert store.summary(run_id).lease_owner == "rescuer"
    with pytest.raises(LeaseLostError) as caught:
        store.renew(run_id, "crashed", 30)
    assert caught.value.holder == "rescuer"


def test_the_holder_renews_and_acquires_again(store: RunStore, clock: Clock, run_id: str) -> None:
    store.acquire(run_id, "a", 10)
    clock.advance(8)
    store.renew(run_id, "a", 10)
    clock.advance(8)

    with pytest.raises(LeaseHeldError):
        store.acquire(run_id, "b", 10)
    again = store.acquire(run_id, "a", 60)
    assert again.expires_at == clock.now + timedelta(seconds=60)


def test_release_frees_the_run_and_a_non_holder_cannot_release(
    store: RunStore, run_id: str
) -> None:
    store.acquire(run_id, "a", 30)

    assert store.release(run_id, "b") is False
    with pytest.raises(LeaseHeldError):
        store.acquire(run_id, "b", 30)

    assert store.release(run_id, "a") is True
    assert store.summary(run_id).lease_owner is None
    assert store.acquire(run_id, "b", 30).owner == "b"


def test_writes_under_a_lease_need_it_live(store: RunStore, clock: Clock, run_id: str) -> None:
    store.acquire(run_id, "a", 30)
    version = store.append(run_id, [AssistantMessage(text="1")], expected_version=1, owner="a")
    assert version == 2

    with pytest.raises(LeaseLostError):
        store.append(run_id, [AssistantMessage(text="x")], expected_version=2, owner="b")
    clock.advance(31)
    with pytest.raises(LeaseLostError):
        store.append(run_id, [AssistantMessage(text="x")], expected_version=2, owner="a")

    loaded, version = store.load_prompt(run_id)
    assert version == 2
    assert len(loaded.items) == 2


def test_leases_do_not_change_the_run_version(store: RunStore, run_id: str) -> None:
    store.acquire(run_id, "a", 30)
    store.renew(run_id, "a", 30)
    store.release(run_id, "a")
    assert store.summary(run_id).version == 1


def test_a_lease_needs_a_positive_time_to_live(store: RunStore, run_id: str) -> None:
    with pytest.raises(StoreUsageError, match="positive"):
        store.acquire(run_id, "a", 0)
