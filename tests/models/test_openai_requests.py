"""OpenAIChatModel against a live server: what goes out on the wire and what comes back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from chat_server import ChatServer, answer

from pausepoint import ActionSpec, ModelRequest, ToolCall, ToolCallRequest
from pausepoint.models.openai import OpenAIChatModel
from pausepoint.transcript import AssistantMessage, ErrorInfo, Item, UserMessage

MakeModel = Callable[..., OpenAIChatModel]

REFUND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"order_id": {"type": "integer"}, "amount": {"type": "number"}},
    "required": ["order_id", "amount"],
}
REFUND = ActionSpec("refund", "Refund an order.", REFUND_SCHEMA)


async def test_text_answer_comes_back_and_instructions_go_out_as_system(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(answer("Hello there."))
    response = await make_model().request(ModelRequest("Be brief.", [UserMessage(text="Hi")], []))
    assert response.text == "Hello there."
    assert response.tool_calls == []
    (sent,) = server.requests
    assert sent["model"] == "test-model"
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert "tools" not in sent
    assert server.headers[0]["authorization"] == "Bearer sk-test"


async def test_no_system_message_without_instructions(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(answer("ok"))
    await make_model().request(ModelRequest(None, [UserMessage(text="Hi")], []))
    assert server.requests[0]["messages"] == [{"role": "user", "content": "Hi"}]


async def test_actions_are_offered_as_function_tools_with_their_schema(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(answer("ok"))
    await make_model().request(ModelRequest(None, [UserMessage(text="Hi")], [REFUND]))
    assert server.requests[0]["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "refund",
                "description": "Refund an order.",
                "parameters": REFUND_SCHEMA,
            },
        }
    ]


async def test_a_tool_call_is_parsed_with_its_arguments_as_a_dict(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(answer(None, ("call_1", "refund", '{"order_id": 42, "amount": 30.5}')))
    response = await make_model().request(
        ModelRequest(None, [UserMessage(text="Refund 42")], [REFUND])
    )
    assert response.text == ""
    assert response.tool_calls == [
        ToolCallRequest(id="call_1", name="refund", input={"order_id": 42, "amount": 30.5})
    ]


async def test_arguments_that_are_not_a_json_object_are_kept_under_a_marker_key(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(answer(None, ("c1", "refund", '{"order_id": 4'), ("c2", "refund", "[1, 2]")))
    response = await make_model().request(
        ModelRequest(None, [UserMessage(text="Refund")], [REFUND])
    )
    assert [c.input for c in response.tool_calls] == [
        {"_raw_arguments": '{"order_id": 4'},
        {"_raw_arguments": "[1, 2]"},
    ]


async def test_empty_arguments_mean_no_input(server: ChatServer, make_model: MakeModel) -> None:
    server.add(answer(None, ("c1", "ping", "")))
    response = await make_model().request(ModelRequest(None, [UserMessage(text="x")], []))
    assert response.tool_calls[0].input == {}


async def test_results_errors_and_refusals_go_back_as_tool_messages(
    server: ChatServer, make_model: MakeModel
) -> None:
    calls = [
        ToolCallRequest(id="c1", name="lookup", input={"id": 7}),
        ToolCallRequest(id="c2", name="note", input={}),
        ToolCallRequest(id="c3", name="delete", input={"id": 7}),
        ToolCallRequest(id="c4", name="refund", input={"order_id": 1, "amount": 2}),
    ]
    items: list[Item] = [
        UserMessage(text="Do things"),
        AssistantMessage(text="On it.", tool_calls=calls),
        ToolCall(id="c1", name="lookup", status="succeeded", result={"name": "Ada", "n": 1}),
        ToolCall(id="c2", name="note", status="succeeded", result="saved"),
        ToolCall(
            id="c3",
            name="delete",
            status="failed",
            error=ErrorInfo(name="KeyError", message="no record 7"),
        ),
        ToolCall(
            id="c4",
            name="refund",
            status="rejected",
            error=ErrorInfo(name="Rejected", message="The user declined."),
        ),
    ]
    server.add(answer("All done."))
    await make_model().request(ModelRequest(None, items, []))
    messages = server.requests[0]["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": "On it.",
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.input)},
            }
            for c in calls
        ],
    }
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": '{"name": "Ada", "n": 1}'},
        {"role": "tool", "tool_call_id": "c2", "content": "saved"},
        {"role": "tool", "tool_call_id": "c3", "content": "Error. KeyError: no record 7"},
        {
            "role": "tool",
            "tool_call_id": "c4",
            "content": "Not done: a person declined this call. Rejected: The user declined.",
        },
    ]


async def test_an_assistant_turn_with_only_tool_calls_has_null_content(
    server: ChatServer, make_model: MakeModel
) -> None:
    call = ToolCallRequest(id="c1", name="lookup", input={})
    items: list[Item] = [
        UserMessage(text="Look"),
        AssistantMessage(text="", tool_calls=[call]),
        ToolCall(id="c1", name="lookup", status="succeeded", result=None),
    ]
    server.add(answer("ok"))
    await make_model().request(ModelRequest(None, items, []))
    messages = server.requests[0]["messages"]
    assert messages[1]["content"] is None
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "null"}


async def test_an_unsettled_call_is_described_never_sent_as_a_result(
    server: ChatServer, make_model: MakeModel
) -> None:
    call = ToolCallRequest(id="c1", name="refund", input={})
    items: list[Item] = [
        UserMessage(text="Refund"),
        AssistantMessage(tool_calls=[call]),
        ToolCall(id="c1", name="refund", status="interrupted", result={"partial": True}),
    ]
    server.add(answer("ok"))
    await make_model().request(ModelRequest(None, items, []))
    assert server.requests[0]["messages"][2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "No result yet: the call is interrupted.",
    }


async def test_temperature_and_extra_body_are_sent(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(answer("ok"))
    model = make_model(temperature=0.2, extra_body={"top_k": 5})
    await model.request(ModelRequest(None, [UserMessage(text="Hi")], []))
    assert server.requests[0]["temperature"] == 0.2
    assert server.requests[0]["top_k"] == 5
