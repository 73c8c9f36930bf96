"""A rejection is an answer: `reject()` refuses a reason larger than the agent's
`max_answer_bytes`, as `resume()` refuses such an answer, and records nothing."""

from __future__ import annotations

import pytest

from pausepoint import Agent, ScriptedModel, action, call
from pausepoint.errors import AnswerTooLargeError


@action(needs_approval=True)
def delete_record(id: int) -> str:
    """Delete a record."""
    return f"deleted {id}"


async def test_reject_refuses_a_reason_over_the_agents_answer_limit() -> None:
    agent = Agent(
        model=ScriptedModel([call("delete_record", id=7), "ok"]),
        actions=[delete_record],
        max_answer_bytes=1000,
    )
    run = agent.new_run("x")
    await run.run()
    before = run.prompt.model_dump_json()

    with pytest.raises(AnswerTooLargeError):
        await run.reject("x" * 200_000)

    assert run.prompt.model_dump_json() == before
    assert run.status == "interrupted"
    assert (await run.reject("Not this one.")).status == "completed"
