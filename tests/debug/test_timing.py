"""What happened, when: model calls and tool calls carry their times; model_request."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.debug.helpers import Ledger, RecordingModel, refund_agent, refund_script

from pausepoint import SCHEMA_VERSION, Prompt, UsageError
from pausepoint.transcript import AssistantMessage


async def test_each_model_call_records_times_model_usage_and_finish_reason() -> None:
    model = RecordingModel(refund_script(), usage={"input_tokens": 11, "output_tokens": 3})
    run = refund_agent(Ledger(), model).new_run("Refund")
    await run.run()
    turns = [i for i in run.prompt.items if isinstance(i, AssistantMessage)]
    assert len(turns) == 3
    for turn in turns:
        assert turn.call is not None
        assert turn.call.model == "RecordingModel"
        assert turn.call.started_at <= turn.call.ended_at
        assert turn.call.usage == {"input_tokens": 11, "output_tokens": 3}
    assert [t.call.finish_reason for t in turns if t.call] == ["tool_calls", "tool_calls", "stop"]
    assert turns[0].call is not None
    assert turns[1].call is not None
    assert turns[0].call.ended_at <= turns[1].call.started_at


async def test_each_tool_call_records_start_end_and_attempts() -> None:
    run = refund_agent(Ledger(), refund_script()).new_run("Refund")
    await run.run()
    for record in run.prompt.tool_calls():
        assert record.started_at is not None
        assert record.ended_at is not None
        assert record.started_at <= record.ended_at
        assert record.attempts == 1


async def test_model_request_rebuilds_exactly_what_the_model_received() -> None:
    model = RecordingModel(refund_script())
    run = refund_agent(Ledger(), model).new_run("Refund")
    await run.run()
    assert model.calls == 3
    for turn, received in enumerate(model.received):
        rebuilt = run.model_request(turn)
        assert rebuilt.instructions == received.instructions == "Refund politely."
        assert list(rebuilt.items) == list(received.items)
        assert list(rebuilt.actions) == list(received.actions)
    assert list(run.model_request(-1).items) == list(model.received[-1].items)


async def test_model_request_for_a_turn_that_does_not_exist_is_refused() -> None:
    run = refund_agent(Ledger(), refund_script()).new_run("Refund")
    await run.run()
    with pytest.raises(UsageError, match="3 assistant turn"):
        run.model_request(3)


def _version_1_prompt() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "thread_id": "thread_1",
        "run_id": "run_1",
        "instructions": "Refund politely.",
        "items": [
            {"type": "user", "text": "Refund"},
            {"type": "assistant", "text": "",
             "tool_calls": [{"id": "c1", "name": "lookup", "input": {"order": 42}}]},
            {"type": "tool", "id": "c1", "name": "lookup", "input": {"order": 42},
             "status": "succeeded", "result": {"order": 42}, "attempts": 1},
            {"type": "assistant", "text": "Done.", "tool_calls": []},
        ],
    }  # fmt: skip


def test_the_transcript_is_written_as_version_7() -> None:
    assert SCHEMA_VERSION == 7
    assert json.loads(Prompt.from_user("x").model_dump_json())["schema_version"] == 7


def test_a_saved_version_1_prompt_is_migrated_to_the_current_version() -> None:
    prompt = Prompt.model_validate_json(json.dumps(_version_1_prompt()))
    assert prompt.schema_version == SCHEMA_VERSION
    assert prompt.parent is None
    record = next(prompt.tool_calls())
    assert (record.status, record.result, record.started_at, record.ended_at) == (
        "succeeded",
        {"order": 42},
        None,
        None,
    )
    assert all(i.call is None for i in prompt.items if isinstance(i, AssistantMessage))
    assert prompt.output == "Done."
    again = Prompt.model_validate_json(prompt.model_dump_json())
    assert again == prompt


async def test_a_migrated_version_1_prompt_continues_with_timing() -> None:
    data = _version_1_prompt()
    data["items"] = data["items"][:3]
    prompt = Prompt.model_validate(data)
    run = refund_agent(Ledger(), ["(turn 0, recorded)", "Done."]).new_run(prompt)
    result = await run.run()
    assert result.status == "completed"
    last = run.prompt.items[-1]
    assert isinstance(last, AssistantMessage)
    assert last.call is not None
