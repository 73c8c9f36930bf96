"""Runs attached to a store: every change is committed as it happens, under a lease."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    ScriptedModel,
    ToolCall,
    action,
    call,
)
from pausepoint.errors import InterruptAlreadyResolvedError, RunBusyError, UsageError
from pausepoint.store import LeaseLostError, RunStore, SQLiteStore
from pausepoint.transcript import ResumeResolution


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    return SQLiteStore(tmp_path / "runs.db")


def stored_record(store: RunStore, run_id: str) -> ToolCall:
    prompt, _ = store.load_prompt(run_id)
    return next(prompt.tool_calls())


def approval_agent(watch: RunStore | None, seen: list[Any], **options: Any) -> Agent:
    """An agent whose one action asks for approval, then notes what the store held while
    it ran (its own record, and who held the run's lease)."""

    @action
    def delete_record(id: int, ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("Delete it?", data={"id": id})
        if watch is not None:
            summary = watch.summary(ctx.run_id)
            seen.append((stored_record(watch, ctx.run_id), summary.lease_owner, ctx.attempt))
        return f"deleted {id}"

    model = ScriptedModel([call("delete_record", id=7), "Record 7 is gone."])
    return Agent(model=model, actions=[delete_record], **options)


async def test_new_run_with_store_is_stored_and_interrupt_is_durable(store: RunStore) -> None:
    run = approval_agent(store, [], name="ops").new_run("Delete record 7", store=store)
    assert store.summary(run.id).status == "idle"

    result = await run.run()

    summary = store.summary(run.id)
    assert (result.status, summary.status, summary.agent) == ("interrupted", "interrupted", "ops")
    assert [p.message for p in summary.pending] == ["Delete it?"]
    assert store.load_prompt(run.id)[0] == run.prompt
    assert summary.lease_owner is None  # released at the end of the stretch


async def test_answer_is_durable_before_the_action_reruns_and_lease_is_held(
    store: RunStore,
) -> None:
    seen: list[Any] = []
    run = approval_agent(store, seen).new_run("Delete record 7", store=store)
    await run.run()

    result = await run.resume({"ok": True})

    assert result.status == "completed"
    [(record, lease_owner, attempt)] = seen
    # While the action ran, the store already had the answer and the "running" state.
    assert record.status == "running"
    assert isinstance(record.interrupts[-1].resolution, ResumeResolution)
    assert record.interrupts[-1].resolution.data == {"ok": True}
    assert lease_owner is not None
    assert lease_owner.endswith(f"{id(run):x}")
    assert attempt == record.attempts == 2
    summary = store.summary(run.id)
    assert (summary.status, summary.lease_owner) == ("completed", None)
    assert store.load_prompt(run.id)[0] == run.prompt


async def test_result_is_durable_before_the_model_is_asked_again(store: RunStore) -> None:
    stored_statuses: list[str] = []
    run_ids: list[str] = []

    def script(request: ModelRequest) -> Any:
        turns = sum(1 for i in request.items if type(i).__name__ == "AssistantMessage")
        if turns == 0:
            return [call("lookup", q="a"), call("lookup", q="b")]
        stored_statuses.extend(r.status for r in store.load_prompt(run_ids[0])[0].tool_calls())
        return "done"

    @action
    def lookup(q: str) -> str:
        return q.upper()

    agent = Agent(model=ScriptedModel(script), actions=[lookup], store=store)
    run = agent.new_run("look both up")  # the agent's default store
    run_ids.append(run.id)

    result = await run.run()

    assert result.status == "completed"
    assert stored_statuses == ["succeeded", "succeeded"]
    assert store.summary(run.id).status == "completed"


async def test_start_with_store_saves_the_background_run(store: RunStore) -> None:
    run = approval_agent(None, []).start("Delete record 7", store=store)
    result = await run.wait()
    assert result.status == "interrupted"
    assert store.summary(run.id).status == "interrupted"


async def test_load_rebuilds_an_answerable_run_in_a_new_agent(store: RunStore) -> None:
    first = approval_agent(store, []).new_run("Delete record 7", store=store)
    await first.run()

    # Another kernel: a new agent built the same way, the run loaded from the store.
    seen: list[Any] = []
    again = approval_agent(store, seen, store=store).load(first.id)

    assert again.prompt == first.prompt
    assert [p.interrupt.message for p in again.pending] == ["Delete it?"]
    result = await again.resume(True)
    assert result.status == "completed"
    assert len(seen) == 1
    assert store.summary(first.id).status == "completed"


def test_load_without_a_store_is_refused() -> None:
    with pytest.raises(UsageError, match="store"):
        approval_agent(None, []).load("run_x")


async def test_second_kernel_answering_the_same_interrupt_gets_a_conflict(
    store: RunStore,
) -> None:
    seen: list[Any] = []
    agent = approval_agent(store, seen, store=store)
    original = agent.new_run("Delete record 7")
    await original.run()
    kernel_a = agent.load(original.id)
    kernel_b = agent.load(original.id)

    assert (await kernel_a.resume(True)).status == "completed"
    before = kernel_b.prompt.model_copy(deep=True)
    with pytest.raises(InterruptAlreadyResolvedError, match="another writer"):
        await kernel_b.resume(False)

    assert len(seen) == 1  # the action ran once
    # B now shows what the store holds: A's answer and the completed run.
    assert kernel_b.prompt == kernel_a.prompt != before
    assert store.load_prompt(original.id)[0] == kernel_a.prompt
    assert store.summary(original.id).lease_owner is None


async def test_answer_refused_while_another_process_holds_the_lease(store: RunStore) -> None:
    seen: list[Any] = []
    run = approval_agent(store, seen).new_run("Delete record 7", store=store)
    await run.run()
    before = run.prompt.model_copy(deep=True)
    version = store.summary(run.id).version
    store.acquire(run.id, "elsewhere:1:1", 60)

    with pytest.raises(RunBusyError, match="executing elsewhere"):
        await run.resume(True)

    assert run.prompt == before  # nothing recorded
    assert store.summary(run.id).version == version
    assert seen == []


async def test_lost_lease_breaks_the_run_and_the_store_keeps_the_other_owner(
    store: RunStore,
) -> None:
    @action
    def slow(ctx: ActionContext) -> str:
        # Another process takes the run over while this action runs.
        store.release(ctx.run_id, store.summary(ctx.run_id).lease_owner or "")
        store.acquire(ctx.run_id, "thief:2:2", 60)
        return "done"

    agent = Agent(model=ScriptedModel([call("slow"), "over"]), actions=[slow], store=store)
    run = agent.new_run("go")

    result = await run.run()

    assert result.status == "failed"
    assert isinstance(result.exception, LeaseLostError)
    stored = stored_record(store, run.id)
    assert stored.status == "running"  # the result was never committed
    assert store.summary(run.id).lease_owner == "thief:2:2"


class Crash(BaseException):
    """Stands for the process dying in the middle of an action."""


async def test_run_cut_short_continues_from_its_last_step_with_attempt_2(
    store: RunStore,
) -> None:
    attempts: list[int] = []

    @action
    def charge(ctx: ActionContext) -> str:
        attempts.append(ctx.attempt)
        if ctx.attempt == 1:
            raise Crash
        return "charged"

    def agent() -> Agent:
        return Agent(model=ScriptedModel([call("charge"), "ok"]), actions=[charge], store=store)

    run = agent().new_run("charge it")
    with pytest.raises(Crash):
        await run.run()
    assert stored_record(store, run.id).status == "running"

    again = agent().load(run.id)
    result = await again.run()

    assert result.status == "completed"
    assert attempts == [1, 2]
    assert stored_record(store, run.id).status == "succeeded"


async def test_in_memory_run_is_unchanged_by_stores() -> None:
    run = approval_agent(None, []).new_run("Delete record 7")
    assert run.store is None
    assert (await run.run()).status == "interrupted"


async def test_cancelled_run_is_stored_cancelled_with_its_call(store: RunStore) -> None:
    started = asyncio.Event()

    @action
    async def crunch() -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    agent = Agent(model=ScriptedModel([call("crunch"), "done"]), actions=[crunch], store=store)
    run = agent.new_run("crunch")
    task = asyncio.ensure_future(run.run())
    await started.wait()
    assert stored_record(store, run.id).status == "running"  # durable while it runs

    result = await run.cancel("enough")

    await task
    assert result is not None
    assert result.status == "cancelled"
    summary = store.summary(run.id)
    assert (summary.status, summary.lease_owner) == ("cancelled", None)
    record = stored_record(store, run.id)
    assert record.status == "cancelled"
    assert record.cancellation is not None
    assert record.cancellation.reason == "enough"


async def test_batch_answers_are_durable_and_a_refused_batch_records_nothing(
    store: RunStore,
) -> None:
    seen: list[Any] = []
    run = approval_agent(store, seen).new_run("Delete record 7", store=store)
    await run.run()
    entry_id = run.pending[0].interrupt.id
    store.acquire(run.id, "elsewhere:1:1", 60)
    with pytest.raises(RunBusyError):
        await run.continue_with([{"interruptId": entry_id, "status": "resolved", "payload": 1}])
    assert run.pending[0].interrupt.resolution is None
    store.release(run.id, "elsewhere:1:1")

    result = await run.continue_with(
        [{"interruptId": entry_id, "status": "resolved", "payload": 1}]
    )

    assert result.status == "completed"
    [(record, _, _)] = seen
    assert isinstance(record.interrupts[-1].resolution, ResumeResolution)
    assert store.summary(run.id).status == "completed"
