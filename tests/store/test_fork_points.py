"""A fork kept in a store loads back gone back to the same point: a tool call, a model turn
with the items edited there, or an interrupt; on SQLite and PostgreSQL."""

from __future__ import annotations

from tests.debug.helpers import Ledger, RecordingModel, approval_agent, refund_agent
from tests.helpers import StoreFactory

from pausepoint import AgentRun, ModelTurn, ToolCall, call
from pausepoint.store import STORE_SCHEMA_VERSION, RunStore
from pausepoint.transcript import UserMessage


def script() -> list:  # type: ignore[type-arg]
    return [call("lookup", order=42), call("refund", order=42, cents=12_000), "Refunded."]


async def finished(store: RunStore, ledger: Ledger) -> AgentRun:
    run = refund_agent(ledger, RecordingModel(script()), store=store).new_run("Refund order 42")
    assert (await run.run()).status == "completed"
    return run


def refund_of(run: AgentRun) -> ToolCall:
    return next(r for r in run.prompt.tool_calls() if r.name == "refund")


async def test_a_fork_at_a_tool_call_loads_back_paused_at_that_call(
    open_store: StoreFactory,
) -> None:
    ledger = Ledger()
    run = await finished(open_store(), ledger)
    fork = run.fork(at=refund_of(run).id)

    # Another process: a new store connection and an agent whose model counts its calls.
    model = RecordingModel(script())
    loaded = refund_agent(ledger, model, store=open_store()).load(fork.id)

    assert loaded.prompt.parent == fork.prompt.parent
    assert loaded.prompt.parent is not None
    assert loaded.prompt.parent.point == "tool call"
    assert loaded.fork_name == "went back to refund"
    assert loaded.pending[0].kind == "breakpoint"
    assert loaded.pending[0].data["args"] == {"order": 42, "cents": 12_000}

    result = await loaded.debug.edit({"order": 42, "cents": 500})
    assert result.status == "completed"
    assert [r.cents for r in ledger.refunds] == [12_000, 500]
    assert model.calls == 1  # only the turn after the fork point
    assert refund_agent(ledger, model, store=open_store()).load(fork.id).fork_name == (
        "edited cents at refund"
    )


async def test_a_fork_at_a_model_turn_keeps_the_items_edited_there(
    open_store: StoreFactory,
) -> None:
    run = await finished(open_store(), Ledger())
    fork = run.fork(at=ModelTurn(1))
    fork.edit_item(0, text="Refund order 43")

    model = RecordingModel(script())
    loaded = refund_agent(Ledger(), model, store=open_store()).load(fork.id)

    assert loaded.prompt.parent is not None
    assert (loaded.prompt.parent.point, loaded.prompt.parent.turn) == ("turn", 1)
    assert loaded.prompt.parent.edited == [0]
    assert loaded.fork_name == "asked again at turn 2 with the message edited"
    assert loaded.status == "paused"

    result = await loaded.run()
    assert result.status == "completed"
    request = model.received[0]  # turn 1 again, and the turns after it
    first = request.items[0]
    assert isinstance(first, UserMessage)
    assert first.text == "Refund order 43"


async def paused_fork(store: RunStore) -> tuple[AgentRun, AgentRun]:
    """A stored run waiting to approve a refund, and its fork at that approval."""
    model = RecordingModel([call("refund", cents=5), "Done."])
    run = approval_agent(model, [], store=store).new_run("x")
    await run.run()
    return run, run.fork(at=run.pending[0].id)


async def test_a_fork_at_an_interrupt_loads_back_waiting_on_it(open_store: StoreFactory) -> None:
    run, fork = await paused_fork(open_store())

    refunds: list[int] = []
    model = RecordingModel([call("refund", cents=5), "Done."])
    loaded = approval_agent(model, refunds, store=open_store()).load(fork.id)

    assert loaded.prompt.parent == fork.prompt.parent
    assert loaded.pending[0].id == run.pending[0].id
    assert (await loaded.resume(True)).status == "completed"
    assert refunds == [5]
    assert loaded.fork_name == "approved at refund"


async def test_forks_kept_by_a_version_3_store_load_from_its_parent_columns(
    open_store: StoreFactory,
) -> None:
    store = open_store()
    _, fork = await paused_fork(store)
    with store._transaction(write=True) as cur:  # type: ignore[attr-defined]
        cur.execute("ALTER TABLE pausepoint_runs DROP COLUMN fork_origin")  # as version 3 had
        cur.execute("ALTER TABLE pausepoint_runs DROP COLUMN owner")
        cur.execute("UPDATE pausepoint_schema SET version = 3")
    store.close()

    again = open_store()
    with again._transaction(write=False) as cur:  # type: ignore[attr-defined]
        cur.execute("SELECT version FROM pausepoint_schema")
        assert cur.fetchone()[0] == STORE_SCHEMA_VERSION
    loaded = approval_agent(RecordingModel(["Done."]), [], store=again).load(fork.id)
    assert loaded.prompt.parent == fork.prompt.parent
    assert loaded.prompt.parent is not None
    assert loaded.prompt.parent.point == "interrupt"
