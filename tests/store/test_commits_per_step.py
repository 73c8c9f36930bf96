"""How many commits a stored run makes, counted by the database where it can tell.

A step (one model turn with one tool call) commits twice: the model's turn with its
call marked running, before the action starts; then the call's outcome, before the model
is asked again. On PostgreSQL the count is the server's own: every transaction that
writes is given a transaction id, and the next id to give moves by one per such commit.
On SQLite a store that counts the write transactions it commits does the counting.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    Prompt,
    ScriptedModel,
    ToolCall,
    ToolCallRequest,
    Worker,
    action,
)
from pausepoint.store import Change, PostgresStore, RunStore, SQLiteStore
from pausepoint.store._sql import Cursor
from pausepoint.transcript import AssistantMessage


class CountingSQLiteStore(SQLiteStore):
    """Counts the write transactions it commits."""

    commits = 0

    def _transaction(self, *, write: bool) -> AbstractContextManager[Cursor]:
        inner = super()._transaction(write=write)
        store = self

        class Counted:
            def __enter__(self) -> Cursor:
                return inner.__enter__()

            def __exit__(self, *exc: Any) -> Any:
                done = inner.__exit__(*exc)
                if write and exc[0] is None:
                    store.commits += 1
                return done

        return Counted()


def _autovacuum(dsn: str, on: bool) -> None:
    """Autovacuum's ANALYZE takes transaction ids from the same counter: while commits are
    counted it is off, and any of its workers still running is waited for."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"ALTER SYSTEM SET autovacuum = {'on' if on else 'off'}")
        conn.execute("SELECT pg_reload_conf()")
        if on:
            return
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'"
            ).fetchone()
            if row is not None and row[0] == 0:
                return
            time.sleep(0.05)


def _next_xid(dsn: str) -> int:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT pg_snapshot_xmax(pg_current_snapshot())::text").fetchone()
    assert row is not None
    return int(row[0])


@pytest.fixture(params=["sqlite", "postgres"])
def counted(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[RunStore, Callable[[], int]]]:
    """A store, and how many commits it has made so far."""
    if request.param == "sqlite":
        sqlite = CountingSQLiteStore(tmp_path / "runs.db", synchronous="FULL")
        yield sqlite, lambda: sqlite.commits
        sqlite.close()
        return
    dsn: str = request.getfixturevalue("postgres_dsn")
    postgres = PostgresStore(dsn)
    _autovacuum(dsn, on=False)
    start = _next_xid(dsn)
    try:
        yield postgres, lambda: _next_xid(dsn) - start
    finally:
        postgres.close()
        _autovacuum(dsn, on=True)


@action
async def bump(n: int) -> int:
    """Return n + 1."""
    return n + 1


@action
async def confirm(n: int, ctx: ActionContext) -> int:
    """Ask before returning n."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"Act on {n}?", {"n": n})
    return n


def one_call_per_turn(calls: int, pause_every: int = 0) -> Callable[[ModelRequest], Any]:
    """`calls` tool calls, one a turn (`confirm` every `pause_every`-th), then a text."""
    made = 0

    def respond(request: ModelRequest) -> Any:
        nonlocal made
        if made == calls:
            return "All done."
        made += 1
        name = "confirm" if pause_every and made % pause_every == 0 else "bump"
        return ToolCallRequest(id=f"call_{made}", name=name, input={"n": made})

    return respond


async def _commits_of_run(
    store: RunStore, commits: Callable[[], int], calls: int, pause_every: int = 0
) -> int:
    agent = Agent(
        model=ScriptedModel(one_call_per_turn(calls, pause_every)),
        actions=[bump, confirm],
        max_turns=calls + 1,
    )
    before = commits()
    run = agent.new_run("go", store=store)
    result = await run.run()
    while result.status == "interrupted":
        result = await run.resume(True)
    assert result.status == "completed"
    assert store.summary(run.id).lease_owner is None
    return commits() - before


async def test_a_step_is_two_commits(counted: tuple[RunStore, Callable[[], int]]) -> None:
    store, commits = counted
    five = await _commits_of_run(store, commits, 5)
    fifteen = await _commits_of_run(store, commits, 15)

    assert fifteen - five == 2 * 10
    # Per run: its creation, the lease taken at the start of its first stretch (the
    # status "running" goes with the first model turn), and the final answer with the
    # status "completed" and the lease's end in one commit.
    assert five == 2 * 5 + 3


async def test_a_step_answered_by_a_person_adds_four_commits(
    counted: tuple[RunStore, Callable[[], int]],
) -> None:
    store, commits = counted
    plain = await _commits_of_run(store, commits, 10)
    asking = await _commits_of_run(store, commits, 10, pause_every=10)

    # The question is committed with the status "interrupted" and the lease's end; then
    # the lease is taken again, the answer committed, the call marked running again, and
    # its result committed as in any step: six commits where a plain step makes two.
    assert asking - plain == 4


async def test_each_commit_lands_before_what_it_guards(tmp_path: Path) -> None:
    """The call is stored running (with the model's turn) before its action starts; its
    result is stored before the model is asked again. Read from another connection."""
    path = tmp_path / "runs.db"
    store = SQLiteStore(path)
    reader = SQLiteStore(path)
    run_id = "run_guarded"
    seen_by_action: list[tuple[str, int, int]] = []
    seen_by_model: list[list[str]] = []

    @action
    async def look(n: int, ctx: ActionContext) -> int:
        """Read the stored run."""
        prompt, _ = reader.load_prompt(run_id)
        record = prompt.items[-1]
        assert isinstance(record, ToolCall)
        assert record.id == ctx.tool_call_id
        assert isinstance(prompt.items[-2], AssistantMessage)
        seen_by_action.append((record.status, record.attempts, n))
        return n

    calls = 3

    def model(request: ModelRequest) -> Any:
        stored, _ = reader.load_prompt(run_id)
        seen_by_model.append(
            [r.status for r in stored.items if isinstance(r, ToolCall)],
        )
        made = len(seen_by_model)
        if made > calls:
            return "done"
        return ToolCallRequest(id=f"call_{made}", name="look", input={"n": made})

    agent = Agent(model=ScriptedModel(model), actions=[look])
    run = agent.new_run(Prompt.from_user("go", run_id=run_id), store=store)
    result = await run.run()

    assert result.status == "completed"
    assert seen_by_action == [("running", 1, 1), ("running", 1, 2), ("running", 1, 3)]
    assert seen_by_model == [[], ["succeeded"], ["succeeded"] * 2, ["succeeded"] * 3]
    assert reader.summary(run_id).status == "completed"
    store.close()
    reader.close()


def three_calls_per_turn(turns: int) -> Callable[[ModelRequest], Any]:
    """`turns` turns of three `look` calls each, then a text."""
    made = 0

    def respond(request: ModelRequest) -> Any:
        nonlocal made
        if made == turns:
            return "All done."
        made += 1
        return [
            ToolCallRequest(id=f"call_{made}_{k}", name="look", input={"n": k}) for k in range(3)
        ]

    return respond


async def test_a_turn_of_three_calls_commits_its_running_marks_once(
    counted: tuple[RunStore, Callable[[], int]],
) -> None:
    store, commits = counted
    seen: list[list[str]] = []

    @action
    async def look(n: int, ctx: ActionContext) -> int:
        """What the store holds of this turn's calls when one of them starts."""
        stored, _ = store.load_prompt(ctx.run_id)
        seen.append([r.status for r in stored.tool_calls()][-3:])
        await asyncio.sleep(0)
        return n + 1

    counts = []
    for turns in (2, 4):
        agent = Agent(model=ScriptedModel(three_calls_per_turn(turns)), actions=[look])
        before = commits()
        run = agent.new_run("go", store=store)
        assert (await run.run()).status == "completed"
        counts.append(commits() - before)
        stored, _ = store.load_prompt(run.id)
        assert [r.result for r in stored.tool_calls()] == [1, 2, 3] * turns

    # Every call of a turn was stored running before the first of them started.
    assert seen[0] == ["running"] * 3
    assert all(set(statuses) <= {"running", "succeeded"} for statuses in seen)
    # The turn with its three running marks is one commit; then each outcome is kept as
    # it comes, and outcomes that come while a commit is in flight share the next one.
    assert 2 * (1 + 1) <= counts[1] - counts[0] <= 2 * (1 + 3)


class WatchedStore(SQLiteStore):
    """Notes the thread of each write, and whether the event loop ran during it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.threads: list[int] = []
        self.loop_ran: list[bool] = []

    def write(self, run_id: str, change: Change, **options: Any) -> int:
        self.threads.append(threading.get_ident())
        if self.loop is not None:
            ran = threading.Event()
            self.loop.call_soon_threadsafe(ran.set)
            # On the loop's own thread the loop cannot run until this returns.
            self.loop_ran.append(ran.wait(10))
        return super().write(run_id, change, **options)


async def test_commits_run_off_the_event_loop_which_goes_on_meanwhile(tmp_path: Path) -> None:
    store = WatchedStore(tmp_path / "runs.db")
    agent = Agent(model=ScriptedModel(one_call_per_turn(4, pause_every=2)), actions=[bump, confirm])
    run = agent.new_run("go", store=store)  # made here, before the loop is watched
    store.loop = asyncio.get_running_loop()
    result = await run.run()
    while result.status == "interrupted":
        result = await run.resume(True)

    assert result.status == "completed"
    assert len(store.loop_ran) >= 2 * 4
    assert all(store.loop_ran)
    assert threading.get_ident() not in store.threads
    assert store.load_prompt(run.id)[0] == run.prompt
    store.close()


async def test_a_worker_adds_only_its_claims_to_a_runs_commits(
    counted: tuple[RunStore, Callable[[], int]],
) -> None:
    """A claim takes the lease the stretch then runs under: no second lease commit, and
    the run's "running" mark goes with its first model turn."""
    store, commits = counted
    agent = Agent(
        model=ScriptedModel(one_call_per_turn(5, pause_every=3)),
        actions=[bump, confirm],
        max_turns=6,
        name="counted",
    )
    worker = Worker(store, agent)
    await worker.work(until_idle=True)  # the first claim on a store makes its index
    before = commits()
    run = agent.new_run("go", store=store)
    created = commits()
    assert (await worker.work(until_idle=True)).paused == 1
    paused = commits()
    answered = agent.load(run.id, store)
    await answered.resume(True, continue_run=False)
    after_answer = commits()
    assert (await worker.work(until_idle=True)).finished == 1
    done = commits()

    assert store.summary(run.id).status == "completed"
    assert created - before == 1
    # The claim; calls 1 and 2 (two commits each); call 3's turn and its question with
    # the status "interrupted" and the lease's end. A claim that finds nothing may
    # commit too (SQLite's write transaction), at most once per work() call.
    assert paused - created - 1 - 2 * 2 - 2 in (0, 1)
    # The answer: the lease taken, then the answer with the lease's end.
    assert after_answer - paused == 2
    # The claim; call 3 run again and calls 4 and 5 (two commits each); the final
    # answer with "completed" and the lease's end.
    assert done - after_answer - 1 - 3 * 2 - 1 in (0, 1)
