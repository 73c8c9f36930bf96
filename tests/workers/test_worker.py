"""A Worker claims a store's runs, executes each until it pauses, finishes or fails, and
continues runs answered with `continue_run=False`; a refused answer leaves it nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import Clock, until

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    Prompt,
    ScriptedModel,
    ToolCall,
    ToolCallRequest,
    UsageError,
    Worker,
    action,
    call,
)
from pausepoint.errors import InvalidResolutionError
from pausepoint.store import RunStore, SQLiteStore, StoreUsageError
from pausepoint.transcript import AssistantMessage, UserMessage


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    with SQLiteStore(tmp_path / "runs.db") as opened:
        yield opened


class Steps:
    """An agent that takes `steps` steps, the second asking first; what ran, in order."""

    def __init__(self, name: str = "steps", steps: int = 3) -> None:
        self.executed: list[tuple[str, str, int, Any]] = []
        self.gate: asyncio.Event | None = None
        executed = self.executed
        this = self

        @action
        async def step(n: int, ctx: ActionContext) -> str:
            answer = ctx.resumption.data if ctx.resumption is not None else None
            executed.append((ctx.run_id, ctx.tool_call_id, ctx.attempt, answer))
            if n == 2 and ctx.resumption is None:
                raise ActionInterrupt(
                    f"Go on with step {n}?",
                    response_schema={
                        "type": "object",
                        "properties": {"ok": {"type": "boolean"}},
                        "required": ["ok"],
                    },
                )
            if this.gate is not None:
                await this.gate.wait()
            return f"step {n} done with {answer}"

        def script(request: ModelRequest) -> Any:
            task = next(i.text for i in request.items if isinstance(i, UserMessage))
            if "boom" in task:
                raise RuntimeError("the model is down")
            turns = sum(1 for item in request.items if isinstance(item, AssistantMessage))
            return call("step", n=turns + 1) if turns < steps else f"done: {task}"

        self.agent = Agent(model=ScriptedModel(script), actions=[step], name=name)


def statuses(store: RunStore) -> dict[str, str]:
    return {summary.run_id: summary.status for summary in store.runs()}


async def test_runs_go_until_they_pause_and_answered_ones_are_continued_by_the_worker(
    store: SQLiteStore,
) -> None:
    steps = Steps()
    ids = [steps.agent.new_run(f"task {n}", store=store).id for n in range(3)]
    worker = Worker(store, steps.agent, concurrency=2)

    first = await worker.work(until_idle=True)

    assert (first.claimed, first.paused, first.finished, first.steps) == (3, 3, 0, 6)
    assert set(statuses(store).values()) == {"interrupted"}
    for n, run_id in enumerate(ids):
        run = steps.agent.load(run_id, store)
        result = await run.resume({"ok": n != 1}, continue_run=False)
        assert (result.status, run.status) == ("idle", "idle")
        summary = store.summary(run_id)
        assert (summary.status, summary.lease_owner, summary.pending) == ("idle", None, ())
    answered = [e for e in steps.executed if e[3] is not None]
    assert answered == []  # recorded, not run: the worker runs them

    second = await worker.work(until_idle=True)

    assert (second.claimed, second.finished, second.paused, second.failed) == (3, 3, 0, 0)
    assert second.steps == 6  # the model's turn after step 2, then step 3's and the answer
    assert set(statuses(store).values()) == {"completed"}
    for n, run_id in enumerate(ids):
        prompt, _ = store.load_prompt(run_id)
        record = list(prompt.tool_calls())[1]
        resolution = record.interrupts[0].resolution
        assert resolution is not None
        assert resolution.data == {"ok": n != 1}  # type: ignore[union-attr]
        assert record.result == f"step 2 done with {{'ok': {n != 1}}}"
        assert prompt.output == f"done: task {n}"
        assert store.summary(run_id).lease_owner is None
    per_call = [(run, call_id, attempt) for run, call_id, attempt, _ in steps.executed]
    assert len(per_call) == len(set(per_call)) == 3 * 4  # step 2 twice: asked, then run


async def test_a_refused_answer_changes_nothing_and_leaves_the_run_waiting(
    store: SQLiteStore,
) -> None:
    steps = Steps()
    run = steps.agent.new_run("task", store=store)
    await run.run()
    before = store.summary(run.id)

    with pytest.raises(InvalidResolutionError):
        await run.resume({"ok": "yes"}, continue_run=False)

    after = store.summary(run.id)
    assert (after.version, after.status, after.lease_owner) == (before.version, "interrupted", None)
    assert run.status == "interrupted"
    assert len(run.pending) == 1
    assert store.claim("someone", 30) == []
    assert (await Worker(store, steps.agent).work(until_idle=True)).claimed == 0
    assert store.summary(run.id).version == before.version


async def test_an_answer_left_for_later_in_memory_waits_for_run() -> None:
    steps = Steps()
    run = steps.agent.new_run("task")
    await run.run()

    left = await run.resume({"ok": True}, continue_run=False)

    assert (left.status, run.status, run.pending) == ("idle", "idle", ())
    assert [e[3] for e in steps.executed] == [None, None]  # step 1, then step 2 asking
    result = await run.run()
    assert result.status == "completed"
    assert [e[3] for e in steps.executed] == [None, None, {"ok": True}, None]


async def test_a_run_goes_to_workers_once_its_last_pending_answer_is_in(
    store: SQLiteStore,
) -> None:
    @action(needs_approval=True)
    def send(to: str) -> str:
        return f"sent to {to}"

    model = ScriptedModel([[call("send", to="a"), call("send", to="b")], "sent both"])
    agent = Agent(model=model, actions=[send], name="mail")
    run = agent.new_run("send them", store=store)
    await run.run()
    first, second = run.pending

    waiting = await run.resume(True, interrupt=first.id, continue_run=False)

    assert waiting.status == "interrupted"
    assert [p.id for p in waiting.pending] == [second.id]
    assert store.summary(run.id).status == "interrupted"
    assert store.claim("someone", 30) == []

    declined = await run.reject("not b", interrupt=second.id, continue_run=False)

    assert declined.status == "idle"
    tally = await Worker(store, agent).work(until_idle=True)
    assert (tally.claimed, tally.finished) == (1, 1)
    records = list(store.load_prompt(run.id)[0].tool_calls())
    assert [(r.status, r.result) for r in records] == [
        ("succeeded", "sent to a"),
        ("rejected", None),
    ]


async def test_a_failing_run_fails_and_the_worker_goes_on(store: SQLiteStore) -> None:
    steps = Steps(steps=1)
    for task in ("first", "boom", "third"):
        steps.agent.new_run(task, store=store)

    tally = await Worker(store, steps.agent).work(until_idle=True)

    assert (tally.claimed, tally.finished, tally.failed) == (3, 2, 1)
    by_task = {store.load_prompt(s.run_id)[0].items[0].text: s.status for s in store.runs()}  # type: ignore[union-attr]
    assert by_task == {"first": "completed", "boom": "failed", "third": "completed"}


async def test_stop_lets_the_runs_executing_finish_and_claims_nothing_more(
    store: SQLiteStore,
) -> None:
    steps = Steps(steps=1)
    steps.gate = asyncio.Event()
    ids = [steps.agent.new_run(f"task {n}", store=store).id for n in range(3)]
    worker = Worker(store, steps.agent, concurrency=2)
    working = asyncio.ensure_future(worker.work())
    await until(lambda: len(steps.executed) == 2)

    worker.stop()
    steps.gate.set()
    tally = await asyncio.wait_for(working, 30)

    assert (tally.claimed, tally.finished) == (2, 2)
    assert sorted(statuses(store).values()) == ["completed", "completed", "idle"]
    assert statuses(store)[ids[2]] == "idle"  # the oldest first: the last was left


async def test_a_run_whose_executor_died_is_taken_over_when_its_lease_runs_out(
    tmp_path: Path,
) -> None:
    clock = Clock()
    steps = Steps(steps=1)
    call_request = ToolCallRequest(id="call_1", name="step", input={"n": 1})
    cut_short = Prompt(
        run_id="run_cut",
        items=[
            UserMessage(text="task"),
            AssistantMessage(tool_calls=[call_request]),
            ToolCall(
                id="call_1",
                name="step",
                input={"n": 1},
                status="running",
                attempts=1,
                started_at=datetime(2026, 1, 1, tzinfo=UTC),
            ),
        ],
    )
    with SQLiteStore(tmp_path / "runs.db", clock=clock) as store:
        store.create(cut_short, status="running", agent="steps")
        store.acquire("run_cut", "elsewhere:1:dead", 30)
        worker = Worker(store, steps.agent, lease_ttl=30)

        assert (await worker.work(until_idle=True)).claimed == 0  # its lease is live
        clock.advance(30)
        tally = await worker.work(until_idle=True)

        assert (tally.claimed, tally.finished) == (1, 1)
        assert steps.executed == [("run_cut", "call_1", 2, None)]  # again, as attempt 2
        prompt, _ = store.load_prompt("run_cut")
        assert next(iter(prompt.tool_calls())).result == "step 1 done with None"
        assert store.summary("run_cut").status == "completed"


async def test_a_worker_serves_several_agents_each_by_its_stored_name(
    store: SQLiteStore,
) -> None:
    ops, billing, other = Steps("ops", 1), Steps("billing", 1), Steps("other", 1)
    for steps in (ops, billing, other):
        steps.agent.new_run(f"task of {steps.agent.name}", store=store)

    tally = await Worker(store, {"ops": ops.agent, "billing": billing.agent}).work(until_idle=True)

    assert tally.finished == 2
    assert len(ops.executed) == len(billing.executed) == 1
    assert other.executed == []
    by_agent = {s.agent: s.status for s in store.runs()}
    assert by_agent == {"ops": "completed", "billing": "completed", "other": "idle"}


async def test_a_worker_that_is_already_working_refuses_a_second_work_call(
    store: SQLiteStore,
) -> None:
    worker = Worker(store, Steps().agent, poll=0.05)
    working = asyncio.ensure_future(worker.work())
    await asyncio.sleep(0)

    with pytest.raises(UsageError, match="already working"):
        await worker.work()

    worker.stop()
    assert (await asyncio.wait_for(working, 30)).claimed == 0


@pytest.mark.parametrize(
    ("agents", "options", "problem"),
    [
        ({}, {}, "an Agent or a mapping"),
        ({"ops": "not an agent"}, {}, "map agent names"),
        (None, {"concurrency": 0}, "concurrency"),
        (None, {"lease_ttl": -1}, "lease_ttl"),
        (None, {"poll": "often"}, "poll"),
        (None, {"name": ""}, "name"),
    ],
)
def test_a_worker_set_up_wrongly_is_refused_with_what_to_fix(
    store: SQLiteStore, agents: Any, options: dict[str, Any], problem: str
) -> None:
    with pytest.raises(UsageError, match=problem):
        Worker(store, Steps().agent if agents is None else agents, **options)


async def test_a_worker_on_a_closed_store_says_so_each_time(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    worker = Worker(store, Steps().agent)
    store.close()

    for _ in range(2):  # not left "already working" by the first refusal
        with pytest.raises(StoreUsageError, match="closed"):
            await worker.work(until_idle=True)
