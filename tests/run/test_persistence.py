"""A suspended run survives JSON: rebuilt elsewhere, it has the same state and answers the same."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.helpers import DeleteRecord, Recorder

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    ModelRequest,
    Prompt,
    ScriptedModel,
    action,
    call,
)


def _delete_agent(recorder: Recorder, script: list[Any]) -> Agent:
    """A fresh Agent and a fresh action object, as a new process would build them."""

    @action
    async def delete_record(input: DeleteRecord, ctx: ActionContext) -> str:
        recorder.contexts.append(ctx)
        if ctx.resumption is None:
            raise ActionInterrupt("Approve?", {"recordId": input.id}, state={"checked": True})
        return f"deleted {input.id}" if ctx.resumption.data.get("approved") else "kept"

    return Agent(model=ScriptedModel(script), actions=[delete_record], instructions="Be careful.")


async def test_saved_prompt_rebuilds_an_equal_state_and_resumes(tmp_path: Path) -> None:
    script = [call("delete_record", id=7), "Deleted."]
    first = Recorder()
    run = _delete_agent(first, script).new_run("Delete record 7")
    await run.run()
    path = tmp_path / "run.json"
    path.write_text(run.prompt.model_dump_json(), encoding="utf-8")

    second = Recorder()
    restored = AgentRun(
        _delete_agent(second, script),  # the same script: it is read by position
        Prompt.model_validate_json(path.read_text(encoding="utf-8")),
    )

    assert restored.state == run.state
    assert restored.prompt.instructions == "Be careful."
    result = await restored.resume({"approved": True})
    assert result.status == "completed"
    (ctx,) = second.contexts
    assert ctx.resumption is not None
    assert ctx.resumption.state == {"checked": True}
    assert ctx.resumption.interrupt_id == run.state.interrupt.id  # type: ignore[union-attr]
    assert next(restored.prompt.tool_calls()).result == "deleted 7"


async def test_saved_prompt_can_be_rejected_after_restore() -> None:
    script = [call("delete_record", id=7), "Kept it."]
    run = _delete_agent(Recorder(), script).new_run("x")
    await run.run()
    saved = run.prompt.model_dump_json()
    second = Recorder()
    restored = AgentRun(_delete_agent(second, script), Prompt.model_validate_json(saved))

    result = await restored.reject("No.")

    assert result.status == "completed"
    assert second.contexts == []
    assert next(restored.prompt.tool_calls()).status == "rejected"


# -- property: any sequence of pauses and answers round-trips and derives the same state --

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
answers = st.one_of(
    st.tuples(st.just("resume"), json_values, st.integers(min_value=0, max_value=3)),
    st.tuples(st.just("reject"), st.text(max_size=12), st.integers(min_value=0, max_value=3)),
)


@action
async def ask(times: int, label: str, ctx: ActionContext) -> Any:
    """Interrupt `times` times, each with its own checkpoint, then return the answers."""
    step = len(ctx.history)
    if step < times:
        raise ActionInterrupt(
            f"{label} #{step}", {"step": step}, state={"label": label, "step": step}
        )
    return [
        e.resolution.data for e in ctx.history if e.resolution and e.resolution.type == "resume"
    ]


def _assert_round_trip(run: AgentRun) -> None:
    text = run.prompt.model_dump_json()
    restored = Prompt.model_validate_json(text)
    assert restored == run.prompt
    assert restored.model_dump_json() == text
    assert AgentRun(Agent(model=ScriptedModel([])), restored).state == run.state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=st.lists(
        st.lists(st.tuples(st.integers(0, 3), st.text(max_size=4)), min_size=1, max_size=3),
        min_size=1,
        max_size=3,
    ),
    plan=st.lists(answers, max_size=20),
)
def test_any_sequence_round_trips_and_derives_the_live_state(
    turns: list[list[tuple[int, str]]], plan: list[tuple[str, Any, int]]
) -> None:
    script = [[call("ask", times=t, label=label) for t, label in turn] for turn in turns]

    def respond(request: ModelRequest) -> Any:
        answered = sum(1 for i in request.items if getattr(i, "type", "") == "assistant")
        return script[answered] if answered < len(script) else "all done"

    async def scenario() -> None:
        run = Agent(model=ScriptedModel(respond), actions=[ask]).new_run("go")
        result = await run.run()
        _assert_round_trip(run)
        for kind, value, pick in plan:
            if result.status != "interrupted":
                break
            target = run.pending[pick % len(run.pending)].id
            if kind == "resume":
                result = await run.resume(value, interrupt=target)
            else:
                result = await run.reject(value, interrupt=target)
            _assert_round_trip(run)
        while result.status == "interrupted":
            result = await run.resume("fill", interrupt=run.pending[0].id)
            _assert_round_trip(run)
        assert result.status == "completed"

    asyncio.run(scenario())


async def test_wait_on_a_restored_run_reports_where_it_stands() -> None:
    script = [call("delete_record", id=7), "Deleted."]
    run = _delete_agent(Recorder(), script).new_run("x")
    await run.run()
    restored = AgentRun(
        _delete_agent(Recorder(), script), Prompt.model_validate_json(run.prompt.model_dump_json())
    )
    result = await restored.wait()
    assert result.status == "interrupted"
    assert [p.id for p in result.pending] == [p.id for p in run.pending]
