"""DemoModel: picks an action by rules, fills its input from the message, sums up after."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pytest

from pausepoint import (
    Action,
    Agent,
    ModelRequest,
    ModelResponse,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallRequest,
    action,
)
from pausepoint.models import DemoModel
from pausepoint.transcript import AssistantMessage, ErrorInfo, Item, UserMessage


class Priority(StrEnum):
    low = "low"
    high = "high"


def _actions(executed: list[tuple[str, Any]]) -> list[Action]:
    @action(needs_approval=True)
    def refund(order_id: int, amount: float) -> dict[str, Any]:
        """Refund an order."""
        executed.append(("refund", (order_id, amount)))
        return {"refunded": amount}

    @action
    def delete_record(id: int) -> str:
        """Delete a record by id."""
        executed.append(("delete_record", id))
        return f"deleted {id}"

    @action
    def search_notes(query: str, limit: int = 5) -> list[str]:
        """Search the notes for text."""
        executed.append(("search_notes", (query, limit)))
        return [f"note about {query}"]

    @action
    def create_ticket(title: str, priority: Priority = Priority.low) -> str:
        """Open a support ticket."""
        executed.append(("create_ticket", (title, priority)))
        return "T-1"

    return [refund, delete_record, search_notes, create_ticket]


AGENT = Agent(model=DemoModel(), actions=_actions([]))


async def ask(text: str, *later: Item) -> ModelResponse:
    items: list[Item] = [UserMessage(text=text), *later]
    return await DemoModel().request(ModelRequest(None, items, AGENT.action_specs))


@pytest.mark.parametrize(
    ("message", "name", "input"),
    [
        ("Please refund order 42, amount 30.5", "refund", {"order_id": 42, "amount": 30.5}),
        ("refund 30 on order 42", "refund", {"order_id": 42, "amount": 30}),
        ("delete record 7", "delete_record", {"id": 7}),
        ("delete_record 7", "delete_record", {"id": 7}),
        ('Search notes for "quarterly report"', "search_notes", {"query": "quarterly report"}),
        ("search my notes about cats, limit 3", "search_notes", {"query": "cats", "limit": 3}),
        ("open a ticket: printer is broken", "create_ticket", {"title": "printer broken"}),
        (
            'create a ticket "Printer broken" with high priority',
            "create_ticket",
            {"title": "Printer broken", "priority": "high"},
        ),
    ],
)
async def test_it_picks_the_action_and_fills_fields_from_the_message(
    message: str, name: str, input: dict[str, Any]
) -> None:
    response = await ask(message)
    (call,) = response.tool_calls
    assert (call.name, call.input) == (name, input)
    assert response.text.startswith(f"Calling {name}(")


async def test_description_words_choose_when_no_name_is_mentioned() -> None:
    response = await ask("I need support, please open one")
    assert response.tool_calls[0].name == "create_ticket"


async def test_without_a_match_it_answers_with_help_listing_its_actions() -> None:
    response = await ask("What's the weather like?")
    assert response.tool_calls == []
    for spec in AGENT.action_specs:
        assert f"- {spec.name}: {spec.description}" in response.text
    assert "offline demo model" in response.text


async def test_help_without_actions_says_there_is_nothing_to_run() -> None:
    response = await DemoModel().request(ModelRequest(None, [UserMessage(text="hi")], []))
    assert "no actions" in response.text


def _after(record: ToolCall) -> tuple[AssistantMessage, ToolCall]:
    request = ToolCallRequest(id=record.id, name=record.name, input=record.input)
    return AssistantMessage(tool_calls=[request]), record


async def test_after_a_result_it_writes_a_final_summary() -> None:
    record = ToolCall(id="c", name="refund", status="succeeded", result={"refunded": 30.0})
    response = await ask("refund order 42 amount 30", *_after(record))
    assert response.tool_calls == []
    assert response.text == 'Done: refund returned {"refunded": 30.0}.'


async def test_after_a_refusal_it_says_what_it_did_not_run() -> None:
    error = ErrorInfo(name="Rejected", message="The user declined.")
    record = ToolCall(id="c", name="refund", status="rejected", error=error)
    response = await ask("refund order 42 amount 30", *_after(record))
    assert response.text == "I didn't run refund: the user declined."


async def test_after_a_failure_it_reports_the_error() -> None:
    error = ErrorInfo(name="KeyError", message="no record 7")
    record = ToolCall(id="c", name="delete_record", status="failed", error=error)
    response = await ask("delete record 7", *_after(record))
    assert response.text == "I tried delete_record, but it failed: no record 7."


async def test_a_new_user_message_starts_a_new_choice() -> None:
    record = ToolCall(id="c", name="delete_record", status="succeeded", result="deleted 7")
    response = await ask("delete record 7", *_after(record), UserMessage(text="delete record 8"))
    assert response.tool_calls[0].input == {"id": 8}


async def test_the_same_request_gets_the_same_answer() -> None:
    assert await ask("refund order 42 amount 3") == await ask("refund order 42 amount 3")


async def test_stream_yields_words_then_the_call_then_the_response() -> None:
    request = ModelRequest(None, [UserMessage(text="delete record 7")], AGENT.action_specs)
    events = [event async for event in DemoModel(token_delay=0.001).stream(request)]
    final = events[-1]
    assert isinstance(final, ModelResponse)
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(texts) == final.text
    (delta,) = [e for e in events if isinstance(e, ToolCallDelta)]
    assert (delta.index, delta.name, delta.arguments) == (0, "delete_record", '{"id": 7}')


async def test_a_full_run_asks_for_approval_then_sums_up() -> None:
    executed: list[tuple[str, Any]] = []
    agent = Agent(model=DemoModel(), actions=_actions(executed))
    run = agent.new_run("Please refund order 42, amount 30")
    paused = await run.run()
    assert paused.status == "interrupted"
    assert paused.pending[0].data == {
        "toolName": "refund",
        "args": {"order_id": 42, "amount": 30},
    }
    done = await run.resume(True)
    assert done.status == "completed"
    assert executed == [("refund", (42, 30.0))]
    assert done.output == 'Done: refund returned {"refunded": 30.0}.'


async def test_a_full_run_reports_a_declined_approval() -> None:
    executed: list[tuple[str, Any]] = []
    run = Agent(model=DemoModel(), actions=_actions(executed)).new_run("refund order 42 for 9")
    await run.run()
    done = await run.reject()
    assert executed == []
    assert done.output == "I didn't run refund: the user declined."


async def test_a_full_run_reports_input_it_could_not_fill() -> None:
    run = Agent(model=DemoModel(), actions=_actions([])).new_run("refund order 42")
    result = await run.run()
    assert result.status == "completed"
    assert result.output is not None
    assert result.output.startswith("I tried refund, but it failed:")
    assert "amount" in result.output
