"""A run as AG-UI events: protocol order, ag_ui's own models on the wire, one ending."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from ag_ui.core import BaseEvent, Event, EventType
from pydantic import TypeAdapter

from pausepoint import (
    Agent,
    AgentRun,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    TextDelta,
    action,
    call,
)
from pausepoint.agui import CONTENT_TYPE, encode, error_code, events, snapshot_messages
from pausepoint.errors import ModelError
from pausepoint.models import StreamEvent

WIRE = TypeAdapter(Event)
T = EventType


@action(needs_approval=True)
def refund(order_id: int, amount: float) -> dict[str, float]:
    """Refund an order."""
    return {"refunded": amount}


def refund_run() -> AgentRun:
    model = ScriptedModel(
        [
            ModelResponse(
                text="Refunding it.", tool_calls=[call("refund", order_id=42, amount=30.0)]
            ),
            "Refunded order 42.",
        ]
    )
    return Agent(model=model, actions=[refund]).new_run("Refund order 42")


async def collect(stream: AsyncIterator[BaseEvent]) -> list[BaseEvent]:
    return [event async for event in stream]


def types(seen: list[BaseEvent]) -> list[EventType]:
    return [event.type for event in seen]


def wire(event: BaseEvent) -> dict[str, Any]:
    """The event as the wire carries it, after a round trip through ag_ui's models."""
    text = event.model_dump_json(by_alias=True)
    again = WIRE.validate_json(text)
    assert again == event
    assert json.loads(again.model_dump_json(by_alias=True)) == json.loads(text)
    return dict(json.loads(text))


def one_ending(seen: list[BaseEvent]) -> BaseEvent:
    endings = [e for e in seen if e.type in (T.RUN_FINISHED, T.RUN_ERROR)]
    assert endings == [seen[-1]]
    return seen[-1]


class Streams:
    """Writes `pieces` one by one, then answers `text`; with `hold`, waits after writing."""

    def __init__(self, pieces: list[str], text: str, *, hold: bool = False) -> None:
        self.pieces, self.text, self.hold = pieces, text, hold

    async def request(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("the loop streams when it can")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        for piece in self.pieces:
            yield TextDelta(piece)
        if self.hold:
            await asyncio.Event().wait()
        yield ModelResponse(text=self.text)


class Answers:
    """A model without `stream`: its text arrives whole."""

    async def request(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(text="All done.")


class Fails:
    async def request(self, request: ModelRequest) -> ModelResponse:
        raise ModelError("The endpoint is down. Check it, then call run() again.")


async def test_text_a_call_and_an_approval_stream_in_protocol_order_and_end_on_the_interrupts() -> (
    None
):
    run = refund_run()

    seen = await collect(events(run))

    assert types(seen) == [
        T.RUN_STARTED,
        T.STEP_STARTED,
        T.TEXT_MESSAGE_START,
        T.TEXT_MESSAGE_CONTENT,
        T.TEXT_MESSAGE_CONTENT,
        T.TEXT_MESSAGE_END,
        T.TOOL_CALL_START,
        T.TOOL_CALL_ARGS,
        T.TOOL_CALL_END,
        T.STEP_FINISHED,
        T.MESSAGES_SNAPSHOT,
        T.RUN_FINISHED,
    ]
    frames = [wire(event) for event in seen]
    assert frames[0] == {
        "type": "RUN_STARTED",
        "threadId": run.prompt.thread_id,
        "runId": run.prompt.run_id,
    }
    assert frames[1] == {"type": "STEP_STARTED", "stepName": "turn 1"}
    assert frames[9] == {"type": "STEP_FINISHED", "stepName": "turn 1"}
    record = run.pending[0].tool_call
    assert frames[6] == {
        "type": "TOOL_CALL_START",
        "toolCallId": record.id,
        "toolCallName": "refund",
        "parentMessageId": frames[2]["messageId"],
    }
    assert json.loads(frames[7]["delta"]) == {"order_id": 42, "amount": 30.0}
    finished = frames[-1]
    assert finished["outcome"] == {"type": "interrupt", "interrupts": run.agui_interrupts()}
    assert (finished["threadId"], finished["runId"]) == (run.prompt.thread_id, run.id)
    assert one_ending(seen) is seen[-1]


async def test_resume_entries_continue_the_run_to_a_successful_finish() -> None:
    run = refund_run()
    await collect(events(run))
    [pending] = run.agui_interrupts()
    answer = {"interruptId": pending["id"], "status": "resolved", "payload": {"approved": True}}

    seen = await collect(events(run, resume=[answer], run_id="run-2", parent_run_id=run.id))

    assert types(seen) == [
        T.RUN_STARTED,
        T.STEP_STARTED,
        T.TOOL_CALL_RESULT,
        T.STEP_FINISHED,
        T.STEP_STARTED,
        *[T.TEXT_MESSAGE_START, T.TEXT_MESSAGE_CONTENT, T.TEXT_MESSAGE_CONTENT],
        *[T.TEXT_MESSAGE_CONTENT, T.TEXT_MESSAGE_END],
        T.STEP_FINISHED,
        T.RUN_FINISHED,
    ]
    frames = [wire(event) for event in seen]
    assert frames[0]["runId"] == "run-2"
    assert frames[0]["parentRunId"] == run.id
    assert [f["stepName"] for f in frames if "stepName" in f] == ["turn 1"] * 2 + ["turn 2"] * 2
    assert frames[2] == {
        "type": "TOOL_CALL_RESULT",
        "messageId": f"{run.id}-2",
        "toolCallId": pending["toolCallId"],
        "content": '{"refunded": 30.0}',
        "role": "tool",
    }
    said = "".join(f["delta"] for f in frames if f["type"] == "TEXT_MESSAGE_CONTENT")
    assert said == "Refunded order 42."
    assert frames[-1] == {
        "type": "RUN_FINISHED",
        "threadId": run.prompt.thread_id,
        "runId": "run-2",
        "outcome": {"type": "success"},
    }
    assert run.status == "completed"


async def test_streamed_text_arrives_piece_by_piece_in_one_message() -> None:
    run = Agent(model=Streams(["Hel", "lo ", "there"], "Hello there")).new_run("Hi")

    seen = [wire(event) for event in await collect(events(run))]

    texts = [f for f in seen if f["type"].startswith("TEXT_MESSAGE")]
    assert [f["type"] for f in texts] == ["TEXT_MESSAGE_START"] + ["TEXT_MESSAGE_CONTENT"] * 3 + [
        "TEXT_MESSAGE_END"
    ]
    assert [f["delta"] for f in texts[1:4]] == ["Hel", "lo ", "there"]
    assert {f["messageId"] for f in texts} == {f"{run.id}-1"}
    assert seen[-1]["outcome"] == {"type": "success"}


async def test_text_of_a_model_that_does_not_stream_comes_as_one_piece() -> None:
    run = Agent(model=Answers()).new_run("Hi")

    seen = [wire(event) for event in await collect(events(run))]

    assert [f["type"] for f in seen] == [
        "RUN_STARTED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "RUN_FINISHED",
    ]
    assert seen[3]["delta"] == "All done."


async def test_a_failing_model_ends_the_stream_with_a_run_error_and_its_code() -> None:
    run = Agent(model=Fails()).new_run("Hi")

    seen = await collect(events(run))

    assert types(seen) == [T.RUN_STARTED, T.RUN_ERROR]
    error = wire(one_ending(seen))
    assert error["code"] == "model"
    assert error["message"].startswith("The endpoint is down.")
    assert run.status == "failed"


async def test_a_cancelled_run_closes_its_message_and_ends_with_run_error_cancelled() -> None:
    run = Agent(model=Streams(["Here is ", "the start"], "never", hold=True)).new_run("Hi")
    seen: list[BaseEvent] = []

    async with aclosing(events(run)) as stream:
        async for event in stream:
            seen.append(event)
            if event.type == T.TEXT_MESSAGE_CONTENT and len(seen) == 5:
                await run.cancel()

    assert types(seen) == [
        T.RUN_STARTED,
        T.STEP_STARTED,
        T.TEXT_MESSAGE_START,
        T.TEXT_MESSAGE_CONTENT,
        T.TEXT_MESSAGE_CONTENT,
        T.TEXT_MESSAGE_END,
        T.STEP_FINISHED,
        T.RUN_ERROR,
    ]
    assert wire(one_ending(seen))["code"] == "cancelled"
    # The text cut by the stop stays in the transcript, under the id it streamed with.
    assert [m.model_dump(by_alias=True) for m in snapshot_messages(run.prompt)][-1] == {
        "id": wire(seen[2])["messageId"],
        "role": "assistant",
        "content": "Here is the start",
    }


async def test_leaving_the_stream_early_stops_the_run() -> None:
    run = Agent(model=Streams(["Thinking"], "never", hold=True)).new_run("Hi")

    async with aclosing(events(run)) as stream:
        async for event in stream:
            if event.type == T.TEXT_MESSAGE_CONTENT:
                break

    assert run.status == "cancelled"
    assert not run.busy


async def test_a_refused_resume_batch_is_a_single_run_error_naming_each_problem() -> None:
    run = refund_run()
    await collect(events(run))
    before = run.prompt.model_dump_json()

    seen = await collect(events(run, resume=[{"interruptId": "nope", "status": "resolved"}]))

    assert types(seen) == [T.RUN_ERROR]
    error = wire(seen[0])
    assert error["code"] == "resume-batch"
    assert {e["code"] for e in error["metadata"]["errors"]} == {
        "unknown-interrupt",
        "incomplete-batch",
    }
    assert run.prompt.model_dump_json() == before


async def test_a_message_to_a_run_that_waits_on_an_answer_is_refused_as_run_suspended() -> None:
    run = refund_run()
    await collect(events(run))

    seen = await collect(events(run, "And another thing"))

    assert [wire(e)["code"] for e in seen] == ["run-suspended"]


async def test_the_snapshot_before_an_interrupt_is_the_conversation_as_ag_ui_messages() -> None:
    run = refund_run()

    seen = await collect(events(run))

    snapshot = wire(seen[-2])
    call_id = run.pending[0].tool_call.id
    assert snapshot == {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": f"{run.id}-0", "role": "user", "content": "Refund order 42"},
            {
                "id": f"{run.id}-1",
                "role": "assistant",
                "content": "Refunding it.",
                "toolCalls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "refund",
                            "arguments": '{"order_id": 42, "amount": 30.0}',
                        },
                    }
                ],
            },
        ],
    }


async def test_the_snapshot_leaves_out_a_turn_set_aside_and_says_why_a_call_failed() -> None:
    @action
    def lookup(order_id: int) -> dict[str, int]:
        """Look an order up."""
        raise KeyError("order")

    model = ScriptedModel([call("lookup", order_id=1), "First answer.", "Second answer."])
    run = Agent(model=model, actions=[lookup]).new_run("Look up order 1")
    await run.run()
    await run.retry()

    messages = [m.model_dump(by_alias=True) for m in snapshot_messages(run.prompt)]

    assert [(m["id"], m["role"]) for m in messages] == [
        (f"{run.id}-0", "user"),
        (f"{run.id}-1", "assistant"),
        (f"{run.id}-2", "tool"),
        (f"{run.id}-4", "assistant"),
    ]
    assert messages[2]["error"] == "KeyError: missing key 'order'"
    assert messages[2]["content"] == "Error. KeyError: missing key 'order'"  # as the model reads it
    assert messages[3]["content"] == "Second answer."


async def test_encode_writes_each_event_as_one_sse_frame_of_camel_case_json() -> None:
    run = refund_run()

    frames = [frame async for frame in encode(events(run))]

    assert CONTENT_TYPE == "text/event-stream"
    assert all(f.startswith("data: ") and f.endswith("\n\n") for f in frames)
    parsed = [WIRE.validate_json(f.removeprefix("data: ")) for f in frames]
    assert parsed[0].type == T.RUN_STARTED
    assert parsed[-1].type == T.RUN_FINISHED
    assert '"toolCallId"' in frames[6]


def test_error_codes_are_the_error_names_in_kebab_case() -> None:
    assert error_code(ModelError("x")) == "model"
    names = ("MaxTurnsExceededError", "Cancelled")
    codes = [error_code(type(name, (Exception,), {})()) for name in names]
    assert codes == ["max-turns-exceeded", "cancelled"]
