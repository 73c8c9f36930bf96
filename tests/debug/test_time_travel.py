"""Time travel: forks at any tool call or model turn, edited there, without asking the
model again for anything before the fork point; and forks named by what made them."""

from __future__ import annotations

import json

import pytest
from tests.debug.helpers import Ledger, RecordingModel, approval_agent, refund_agent

from pausepoint import AgentRun, ModelTurn, Prompt, ToolCall, UsageError, call
from pausepoint.errors import ForkMovedOnError, UnknownInterruptError
from pausepoint.transcript import UserMessage


def refund_script() -> list:  # type: ignore[type-arg]
    return [call("lookup", order=42), call("refund", order=42, cents=12_000), "Refunded."]


async def finished_refund() -> tuple[AgentRun, RecordingModel, Ledger]:
    ledger = Ledger()
    model = RecordingModel(refund_script())
    run = refund_agent(ledger, model).new_run("Refund order 42")
    result = await run.run()
    assert result.status == "completed"
    assert model.calls == 3
    return run, model, ledger


def record(run: AgentRun, name: str) -> ToolCall:
    return next(r for r in run.prompt.tool_calls() if r.name == name)


async def test_a_fork_at_a_tool_call_runs_that_call_with_the_edited_arguments() -> None:
    run, model, ledger = await finished_refund()
    original = run.prompt.model_dump_json()

    fork = run.fork(at=record(run, "refund").id)
    assert run.prompt.model_dump_json() == original
    assert fork.status == "interrupted"
    assert fork.pending[0].kind == "breakpoint"
    assert fork.pending[0].data["args"] == {"order": 42, "cents": 12_000}
    assert fork.fork_name == "went back to refund"
    assert model.calls == 3  # making the fork asks nothing

    result = await fork.debug.edit({"order": 42, "cents": 500})
    assert result.status == "completed"
    assert [r.cents for r in ledger.refunds] == [12_000, 500]
    assert ledger.lookups == [42]  # the call before it kept its outcome
    assert record(fork, "refund").result == "refunded 500 on 42"
    assert model.calls == 4  # only the turn after the fork point
    assert fork.fork_name == "edited cents at refund"
    assert fork.prompt.parent is not None
    assert fork.prompt.parent.tool_call_id == record(run, "refund").id
    assert fork.prompt.parent.interrupt_id is None
    assert record(run, "refund").result == "refunded 12000 on 42"


async def test_calls_of_the_turn_before_the_fork_point_keep_their_outcomes_and_later_ones_run() -> (
    None
):
    ledger = Ledger()
    script = [[call("lookup", order=1), call("lookup", order=2)], "Done."]
    run = refund_agent(ledger, RecordingModel(script)).new_run("Look up two")
    await run.run()
    first, second = list(run.prompt.tool_calls())

    at_second = run.fork(at=second.id)
    kept, paused = list(at_second.prompt.tool_calls())
    assert (kept.status, kept.result) == ("succeeded", {"order": 1, "total": 12_000})
    assert paused.status == "interrupted"
    await at_second.debug.continue_()
    assert ledger.lookups == [1, 2, 2]

    at_first = run.fork(at=first.id)
    paused, later = list(at_first.prompt.tool_calls())
    assert (paused.status, later.status, later.result) == ("interrupted", "pending", None)
    result = await at_first.debug.continue_()
    assert result.status == "completed"
    assert ledger.lookups == [1, 2, 2, 1, 2]
    assert at_first.fork_name == "ran lookup again"


async def test_a_fork_at_an_approved_call_asks_for_approval_again_with_the_edited_arguments() -> (
    None
):
    refunds: list[int] = []
    model = RecordingModel([call("lookup", order=1), call("refund", cents=500), "Done."])
    run = approval_agent(model, refunds).new_run("Refund")
    await run.run()
    await run.resume(True)
    assert refunds == [500]

    fork = run.fork(at=record(run, "refund").id)
    await fork.debug.edit({"cents": 50})
    assert fork.pending[0].kind == "tool-approval"
    assert fork.pending[0].data["args"] == {"cents": 50}
    await fork.resume(True)
    assert refunds == [500, 50]
    assert fork.fork_name == "edited cents at refund"

    skipped = run.fork(at=record(run, "refund").id)
    assert (await skipped.debug.skip()).status == "completed"
    assert refunds == [500, 50]
    assert skipped.fork_name == "skipped refund"
    assert model.calls == 3 + 1 + 1


async def test_a_fork_at_a_model_turn_asks_again_with_the_edited_user_message() -> None:
    run, model, _ledger = await finished_refund()

    fork = run.fork(at=ModelTurn(0))
    assert [type(item) for item in fork.prompt.items] == [UserMessage]
    assert fork.status == "paused"
    assert fork.fork_name == "asked again at turn 1"
    fork.edit_item(0, text="Refund order 7")
    assert fork.fork_name == "asked again at turn 1 with the message edited"
    assert run.prompt.items[0].text == "Refund order 42"  # type: ignore[union-attr]
    assert model.calls == 3

    result = await fork.run()
    assert result.status == "completed"
    assert model.calls == 6
    assert model.received[3].items[0].text == "Refund order 7"  # type: ignore[union-attr]


async def test_a_fork_at_a_later_turn_asks_only_that_turn_again_with_an_edited_result() -> None:
    run, model, ledger = await finished_refund()

    fork = run.fork(at=ModelTurn(2))
    assert len(fork.prompt.items) == len(run.prompt.items) - 1
    fork.edit_item(2, result={"order": 42, "total": 1})
    assert fork.fork_name == "asked again at turn 3 with the result of lookup edited"
    result = await fork.debug.continue_()
    assert result.status == "completed"
    assert model.calls == 4  # turns 0 and 1 are not asked again
    sent = [i for i in model.received[3].items if isinstance(i, ToolCall) and i.name == "lookup"]
    assert sent[0].result == {"order": 42, "total": 1}
    assert ledger.lookups == [42]
    assert len(ledger.refunds) == 1


async def test_an_edited_result_of_a_failed_call_reads_as_succeeded() -> None:
    script = [call("lookup", order="not a number"), "Sorry."]
    run = refund_agent(Ledger(), RecordingModel(script)).new_run("x")
    await run.run()
    assert record(run, "lookup").status == "failed"
    fork = run.fork(at=ModelTurn(-1))
    fork.edit_item(-1, result={"order": 1})
    edited = record(fork, "lookup")
    assert (edited.status, edited.result, edited.error) == ("succeeded", {"order": 1}, None)


async def test_editing_is_refused_once_the_fork_has_moved_on() -> None:
    run, _, _ = await finished_refund()
    fork = run.fork(at=ModelTurn(2))
    await fork.run()
    with pytest.raises(ForkMovedOnError, match="moved on from turn 2"):
        fork.edit_item(0, text="again")
    assert fork.prompt.items[0].text == "Refund order 42"  # type: ignore[union-attr]


async def test_a_stepping_fork_paused_again_at_a_later_turn_has_moved_on() -> None:
    """Step asks the model at the fork point and pauses before the next request: the
    items before the fork point were read by the model, so they are not edited any more."""
    model = RecordingModel(refund_script())
    run = refund_agent(Ledger(), model).new_run("Refund order 42", step=True)
    while run.status == "paused" or run.status == "idle":
        await run.debug.continue_() if run.status == "paused" else await run.run()
    fork = run.fork(at=ModelTurn(1))
    assert fork.editable_items == [0, 2]
    await fork.debug.step()
    while fork.status == "interrupted":  # stepping: before each call too
        await fork.debug.step()
    assert fork.status == "paused"  # before turn 2's request
    assert fork.editable_items == []
    with pytest.raises(ForkMovedOnError, match="moved on from turn 1"):
        fork.edit_item(0, text="again")
    assert fork.prompt.items[0].text == "Refund order 42"  # type: ignore[union-attr]


async def test_an_edit_is_an_event_and_the_open_view_shows_it() -> None:
    run, _, _ = await finished_refund()
    fork = run.fork(at=ModelTurn(2))
    heard: list[tuple[int, str]] = []
    fork.on("item_edited", lambda e: heard.append((e.position, e.item.text)))
    view = fork.view

    fork.edit_item(0, text="Refund order 43")

    assert heard == [(0, "Refund order 43")]
    assert view.items[0]["text"] == "Refund order 43"  # sent at once, no loop needed
    assert view.editable == fork.editable_items == [0, 2, 4]


async def test_editing_needs_a_turn_fork_and_the_right_field() -> None:
    run, _, _ = await finished_refund()
    with pytest.raises(UsageError, match="ModelTurn"):
        run.edit_item(0, text="x")
    with pytest.raises(UsageError, match="ModelTurn"):
        run.fork(at=record(run, "refund").id).edit_item(0, text="x")
    fork = run.fork(at=ModelTurn(2))
    with pytest.raises(UsageError, match="UserMessage with text"):
        fork.edit_item(0, result=1)
    with pytest.raises(UsageError, match="UserMessage with text"):
        fork.edit_item(1, text="the assistant's words")
    with pytest.raises(UsageError, match="from 0 to 4"):
        fork.edit_item(9, text="x")
    assert fork.prompt.parent is not None
    assert fork.prompt.parent.edited == []


async def test_forks_at_an_interrupt_work_as_before_and_are_named_by_the_answer() -> None:
    refunds: list[int] = []
    model = RecordingModel([call("lookup", order=1), call("refund", cents=500), "Done."])
    run = approval_agent(model, refunds).new_run("Refund")
    await run.run()
    approval = run.pending[0].id
    await run.resume(True)

    declined = run.fork(at=approval)
    assert declined.prompt.parent is not None
    assert (declined.prompt.parent.interrupt_id, declined.prompt.parent.point) == (
        approval,
        "interrupt",
    )
    assert declined.fork_name == "went back to refund"
    await declined.reject("not today")
    assert declined.fork_name == "declined at refund"

    edited = run.fork(at=approval)
    await edited.resume({"approved": True, "editedArgs": {"cents": 5}})
    assert edited.fork_name == "edited cents at refund"
    assert refunds == [500, 5]
    assert run.fork_name is None
    assert model.calls == 3 + 1 + 1


async def test_a_bad_fork_point_is_refused_saying_what_the_run_has() -> None:
    run, _, _ = await finished_refund()
    with pytest.raises(UnknownInterruptError) as caught:
        run.fork(at="call_nope")
    said = str(caught.value)
    assert record(run, "refund").id in said
    assert "(refund)" in said
    assert "ModelTurn(n), n from 0 to 2" in said
    with pytest.raises(UsageError, match=r"3 assistant turn\(s\)"):
        run.fork(at=ModelTurn(3))
    with pytest.raises(UsageError, match="ModelTurn"):
        run.fork(at=3)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="takes an int"):
        ModelTurn("2")  # type: ignore[arg-type]
    assert run.forks == []


async def test_forks_at_a_call_and_a_turn_survive_a_save_and_load() -> None:
    run, _, _ = await finished_refund()
    at_call = run.fork(at=record(run, "refund").id)
    at_turn = run.fork(at=ModelTurn(1))
    at_turn.edit_item(0, text="Refund order 43")
    for fork in (at_call, at_turn):
        saved = fork.prompt.model_dump_json()
        again = Prompt.model_validate_json(saved)
        assert again == fork.prompt
        assert again.parent == fork.prompt.parent
        rebuilt = AgentRun(fork.agent, again)
        assert (rebuilt.status, rebuilt.fork_name) == (fork.status, fork.fork_name)
    assert json.loads(at_turn.prompt.model_dump_json())["parent"]["edited"] == [0]

    rebuilt = AgentRun(at_call.agent, Prompt.model_validate_json(at_call.prompt.model_dump_json()))
    result = await rebuilt.debug.edit({"order": 42, "cents": 1})
    assert result.status == "completed"
    assert record(rebuilt, "refund").result == "refunded 1 on 42"


async def test_a_version_4_fork_loads_as_a_fork_at_its_interrupt() -> None:
    refunds: list[int] = []
    run = approval_agent(RecordingModel([call("refund", cents=5), "Done."]), refunds).new_run("x")
    await run.run()
    fork = run.fork(at=run.pending[0].id)
    data = json.loads(fork.prompt.model_dump_json())
    data["schema_version"] = 4
    data["parent"] = {"run_id": run.id, "interrupt_id": run.pending[0].id}
    loaded = Prompt.model_validate_json(json.dumps(data))
    assert loaded.parent == fork.prompt.parent
    assert loaded.parent is not None
    assert loaded.parent.point == "interrupt"
