"""An interrupt suspends the run: status, event, derived state, and run() refusing."""

from __future__ import annotations

import pytest

from pausepoint import Action, Agent, AgentRun, Interrupted, Prompt, Ready, ScriptedModel, call
from pausepoint.errors import RunSuspendedError


async def test_interrupt_returns_interrupted_and_fires_one_event(delete_record: Action) -> None:
    agent = Agent(
        model=ScriptedModel([call("delete_record", id=7), "done"]), actions=[delete_record]
    )
    run = agent.new_run("Delete record 7")
    seen: list[tuple[str, object]] = []
    run.on("interrupted", lambda e: seen.append((e.message, e.data)))

    result = await run.run()

    assert result.status == "interrupted"
    assert seen == [("Approve deleting the record?", {"recordId": 7})]
    assert [p.message for p in result.pending] == ["Approve deleting the record?"]


async def test_state_is_derived_from_the_prompt_alone(delete_record: Action) -> None:
    agent = Agent(
        model=ScriptedModel([call("delete_record", id=7), "done"]), actions=[delete_record]
    )
    run = agent.new_run("Delete record 7")
    assert run.state == Ready()

    await run.run()

    state = run.state
    assert isinstance(state, Interrupted)
    assert (state.tool_call.name, state.tool_call.input) == ("delete_record", {"id": 7})
    assert state.interrupt.message == "Approve deleting the record?"
    assert state.interrupt.data == {"recordId": 7}
    assert state.interrupt.state == {"checked": True}
    assert [p.interrupt for p in state.pending] == [state.interrupt]
    # A run that never executed anything, built over the same Prompt, reports the same.
    other = AgentRun(
        Agent(model=ScriptedModel([])), Prompt.model_validate_json(run.prompt.model_dump_json())
    )
    assert other.state == state

    await run.resume({"approved": True})
    assert run.state == Ready()


async def test_state_is_a_snapshot_not_a_live_view(delete_record: Action) -> None:
    agent = Agent(
        model=ScriptedModel([call("delete_record", id=7), "done"]), actions=[delete_record]
    )
    run = agent.new_run("Delete record 7")
    await run.run()
    state = run.state
    await run.resume({"approved": True})
    assert isinstance(state, Interrupted)
    assert state.interrupt.resolution is None
    assert state.tool_call.status == "interrupted"


async def test_run_while_interrupted_raises_and_changes_nothing(delete_record: Action) -> None:
    model = ScriptedModel([call("delete_record", id=7), "done"])
    run = Agent(model=model, actions=[delete_record]).new_run("Delete record 7")
    await run.run()
    before = run.prompt.model_dump_json()

    with pytest.raises(RunSuspendedError, match="resume"):
        await run.run()
    with pytest.raises(RunSuspendedError):
        await run.run("and another thing")

    assert run.prompt.model_dump_json() == before
    assert len(model.requests) == 1
