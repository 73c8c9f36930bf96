"""reject(): the action is not re-run; the model sees the refusal as the tool's result."""

from __future__ import annotations

from tests.helpers import Recorder

from pausepoint import Action, Agent, Rejection, ScriptedModel, ToolCall, call
from pausepoint.transcript import ErrorInfo, RejectResolution


async def test_reject_does_not_rerun_action_and_model_sees_the_error(
    delete_record: Action, recorder: Recorder
) -> None:
    model = ScriptedModel([call("delete_record", id=7), "Understood, I kept it."])
    run = Agent(model=model, actions=[delete_record]).new_run("Delete record 7")
    await run.run()

    result = await run.reject(Rejection(name="Denied", message="The user declined the deletion."))

    assert result.status == "completed"
    assert recorder.count("delete_record") == 1
    record = next(run.prompt.tool_calls())
    assert record.status == "rejected"
    assert record.error == ErrorInfo(name="Denied", message="The user declined the deletion.")
    assert isinstance(record.interrupts[0].resolution, RejectResolution)
    assert record.interrupts[0].resolution.error == record.error
    seen = model.requests[1].items[-1]
    assert isinstance(seen, ToolCall)
    assert seen.error == ErrorInfo(name="Denied", message="The user declined the deletion.")


async def test_reject_accepts_a_message_a_dict_or_nothing(delete_record: Action) -> None:
    errors = []
    for answer in ["Not today.", {"name": "Nope", "message": "no"}, None]:
        run = Agent(
            model=ScriptedModel([call("delete_record", id=1), "ok"]), actions=[delete_record]
        ).new_run("x")
        await run.run()
        await run.reject(answer)
        errors.append(next(run.prompt.tool_calls()).error)
    assert errors == [
        ErrorInfo(name="Rejected", message="Not today."),
        ErrorInfo(name="Nope", message="no"),
        ErrorInfo(name="Rejected", message="The user declined."),
    ]
