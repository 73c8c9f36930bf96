"""Forks: a new run from an interrupt, answered differently, without asking again."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.debug.helpers import Ledger, RecordingModel, approval_agent, refund_agent

from pausepoint import Prompt, SQLiteStore, call
from pausepoint.errors import UnknownInterruptError


def script() -> list:  # type: ignore[type-arg]
    return [call("lookup", order=1), call("refund", cents=500), "Done."]


async def test_a_fork_reopens_the_pause_and_leaves_the_original_untouched() -> None:
    refunds: list[int] = []
    model = RecordingModel(script())
    run = approval_agent(model, refunds).new_run("Refund")
    await run.run()
    approval = run.pending[0].id
    await run.resume(True)
    assert refunds == [500]
    original = run.prompt.model_dump_json()

    fork = run.fork(at=approval)
    assert run.prompt.model_dump_json() == original
    assert fork.id != run.id
    assert fork.prompt.parent is not None
    assert (fork.prompt.parent.run_id, fork.prompt.parent.interrupt_id) == (run.id, approval)
    assert run.forks == [fork]
    assert [p.id for p in fork.pending] == [approval]
    assert fork.prompt.output is None


async def test_a_fork_asks_the_model_nothing_for_turns_before_its_fork_point() -> None:
    refunds: list[int] = []
    model = RecordingModel(script())
    run = approval_agent(model, refunds).new_run("Refund")
    await run.run()
    approval = run.pending[0].id
    await run.resume(True)
    assert model.calls == 3

    fork = run.fork(at=approval)
    result = await fork.reject("not today")
    assert result.status == "completed"
    assert model.calls == 4  # only the turn after the fork point
    assert refunds == [500]  # the fork declined: nothing more refunded
    record = next(r for r in fork.prompt.tool_calls() if r.name == "refund")
    assert record.status == "rejected"
    assert next(r for r in run.prompt.tool_calls() if r.name == "refund").status == "succeeded"


async def test_a_fork_survives_a_save_and_knows_its_parent() -> None:
    model = RecordingModel(script())
    run = approval_agent(model, []).new_run("Refund")
    await run.run()
    fork = run.fork(at=run.pending[0].id)
    again = Prompt.model_validate_json(fork.prompt.model_dump_json())
    assert again.parent == fork.prompt.parent


async def test_forking_at_an_unknown_interrupt_is_refused() -> None:
    run = refund_agent(Ledger(), ["Hi."]).new_run("x")
    await run.run()
    with pytest.raises(UnknownInterruptError):
        run.fork(at="int_nope")
    assert run.forks == []


async def test_a_fork_saved_in_a_store_loads_with_its_parent(tmp_path: Path) -> None:
    model = RecordingModel(script())
    run = approval_agent(model, []).new_run("Refund")
    await run.run()
    approval = run.pending[0].id
    fork = run.fork(at=approval)
    store = SQLiteStore(tmp_path / "runs.db")
    store.create(fork.prompt, status="interrupted")
    loaded, _ = store.load_prompt(fork.id)
    assert loaded.parent == fork.prompt.parent
    summary = store.summary(fork.id)
    assert (summary.parent_run_id, summary.parent_interrupt_id) == (run.id, approval)
