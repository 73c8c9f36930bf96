"""Refused calls raise a typed error and leave the transcript byte-identical."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime, timedelta

import pytest
from tests.helpers import Recorder, paused_delete

from pausepoint import Action, ActionContext, ActionInterrupt, Agent, ScriptedModel, action, call
from pausepoint.errors import (
    InterruptAlreadyResolvedError,
    InterruptExpiredError,
    NoPendingInterruptError,
    NotJSONError,
    RunBusyError,
    UnknownInterruptError,
)


async def test_answers_with_nothing_pending_raise(delete_record: Action) -> None:
    run = Agent(model=ScriptedModel(["hi"]), actions=[delete_record]).new_run("hello")
    with pytest.raises(NoPendingInterruptError):
        await run.resume(True)
    await run.run()
    before = run.prompt.model_dump_json()
    with pytest.raises(NoPendingInterruptError):
        await run.resume(True)
    with pytest.raises(NoPendingInterruptError):
        await run.reject("no")
    assert run.prompt.model_dump_json() == before


@pytest.mark.parametrize(
    "bad", [object(), {1: "int key"}, {"x": math.nan}, [math.inf], {"s": {1, 2}}]
)
async def test_non_json_resume_data_is_refused_and_nothing_recorded(
    delete_record: Action, recorder: Recorder, bad: object
) -> None:
    run = await paused_delete(delete_record, "ok")
    before = run.prompt.model_dump_json()

    with pytest.raises(NotJSONError, match="JSON-compatible"):
        await run.resume(bad)

    assert run.prompt.model_dump_json() == before
    assert recorder.count("delete_record") == 1
    assert run.state.status == "interrupted"


async def test_non_json_interrupt_data_or_checkpoint_is_refused_at_the_raise() -> None:
    with pytest.raises(NotJSONError, match=r"\$\.when"):
        ActionInterrupt("x", {"when": datetime.now(UTC)})
    with pytest.raises(NotJSONError, match="checkpoint"):
        ActionInterrupt("x", state={"f": lambda: 1})

    @action
    async def sloppy(ctx: ActionContext) -> str:
        raise ActionInterrupt("Pick one", {"choices": {1, 2}})

    run = Agent(model=ScriptedModel([call("sloppy"), "ok"]), actions=[sloppy]).new_run("x")
    result = await run.run()
    record = next(run.prompt.tool_calls())
    assert record.interrupts == []  # no entry was recorded for the bad interrupt
    assert record.error is not None
    assert record.error.name == "NotJSONError"
    assert result.status == "completed"


async def test_data_is_copied_so_later_mutation_cannot_change_the_record() -> None:
    payload = {"items": [1]}

    @action
    async def ask(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("ok?", payload)
        return "done"

    run = Agent(model=ScriptedModel([call("ask"), "ok"]), actions=[ask]).new_run("x")
    await run.run()
    payload["items"].append(2)
    answer = {"fine": [1]}
    task = run.resume(answer)
    answer["fine"].append(2)
    await task
    entry = next(run.prompt.tool_calls()).interrupts[0]
    assert entry.data == {"items": [1]}


async def test_second_answer_raises_already_resolved_and_changes_nothing(
    delete_record: Action,
) -> None:
    run = await paused_delete(delete_record, "ok")
    interrupt_id = run.pending[0].id
    await run.resume({"approved": True}, interrupt=interrupt_id)
    before = run.prompt.model_dump_json()

    with pytest.raises(InterruptAlreadyResolvedError):
        await run.resume({"approved": False}, interrupt=interrupt_id)
    with pytest.raises(InterruptAlreadyResolvedError):
        await run.reject("too late", interrupt=interrupt_id)

    assert run.prompt.model_dump_json() == before


async def test_concurrent_resumes_of_one_entry_run_the_action_once(
    delete_record: Action, recorder: Recorder
) -> None:
    run = await paused_delete(delete_record, "ok")
    interrupt_id = run.pending[0].id

    outcomes = await asyncio.gather(
        run.resume({"approved": True}, interrupt=interrupt_id),
        run.resume({"approved": True}, interrupt=interrupt_id),
        return_exceptions=True,
    )

    assert recorder.count("delete_record") == 2  # the first run, and exactly one re-run
    assert sum(isinstance(o, InterruptAlreadyResolvedError) for o in outcomes) == 1
    assert [o.status for o in outcomes if not isinstance(o, BaseException)] == ["completed"]


async def test_unknown_interrupt_id_is_refused(delete_record: Action) -> None:
    run = await paused_delete(delete_record, "ok")
    before = run.prompt.model_dump_json()
    with pytest.raises(UnknownInterruptError, match="int_nope"):
        await run.resume(True, interrupt="int_nope")
    assert run.prompt.model_dump_json() == before


async def test_answer_while_busy_raises_run_busy() -> None:
    gate = asyncio.Event()
    entered = asyncio.Event()

    @action
    async def slow(ctx: ActionContext) -> str:
        entered.set()
        await gate.wait()
        return "done"

    @action
    async def ask(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("ok?")
        return "fine"

    run = Agent(
        model=ScriptedModel([[call("ask"), call("slow")], "ok"]), actions=[ask, slow]
    ).new_run("x")
    task = asyncio.create_task(run.run())
    await entered.wait()
    assert run.busy
    with pytest.raises(RunBusyError):
        await run.run()
    with pytest.raises(RunBusyError):
        await run.resume("yes")
    gate.set()
    assert (await task).status == "interrupted"
    assert (await run.resume("yes")).status == "completed"


async def test_expired_interrupt_refuses_answers_and_run_declines_it() -> None:
    @action
    async def ask(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            # Already past: no waiting for a deadline.
            raise ActionInterrupt("Quick!", expires_at=timedelta(seconds=-1))
        return "answered"

    model = ScriptedModel([call("ask"), "Nobody answered in time."])
    run = Agent(model=model, actions=[ask]).new_run("x")
    await run.run()
    before = run.prompt.model_dump_json()

    with pytest.raises(InterruptExpiredError):
        await run.resume("late")
    with pytest.raises(InterruptExpiredError):
        await run.reject("late")
    assert run.prompt.model_dump_json() == before

    result = await run.run()
    record = next(run.prompt.tool_calls())
    assert result.status == "completed"
    assert record.status == "rejected"
    assert record.error is not None
    assert record.error.name == "InterruptExpired"
