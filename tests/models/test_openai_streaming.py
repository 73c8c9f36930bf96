"""OpenAIChatModel.stream against a live server sending server-sent events."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chat_server import ChatServer, answer, chunk, error, events

from pausepoint import ModelRequest, ModelResponse, TextDelta, ToolCallDelta, ToolCallRequest
from pausepoint.models import ModelConnectionError, OpenAIChatModel, StreamEvent
from pausepoint.transcript import UserMessage

MakeModel = Callable[..., OpenAIChatModel]
HELLO = ModelRequest(None, [UserMessage(text="Hi")], [])


async def collect(model: OpenAIChatModel, request: ModelRequest = HELLO) -> list[StreamEvent]:
    return [event async for event in model.stream(request)]


async def test_text_streams_as_deltas_then_the_whole_response(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(
        events(
            chunk({"role": "assistant", "content": "Hel"}),
            chunk({"content": "lo."}),
            chunk({}, "stop"),
        )
    )
    got = await collect(make_model())
    assert got == [TextDelta("Hel"), TextDelta("lo."), ModelResponse(text="Hello.")]
    assert server.requests[0]["stream"] is True


async def test_a_streamed_tool_call_is_assembled_from_its_pieces(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(answer("Let me check.", ("call_9", "lookup", '{"id": 7, "full": true}')))
    got = await collect(make_model())
    final = got[-1]
    assert isinstance(final, ModelResponse)
    assert final.text == "Let me check. "
    assert final.tool_calls == [
        ToolCallRequest(id="call_9", name="lookup", input={"id": 7, "full": True})
    ]
    deltas = [e for e in got if isinstance(e, ToolCallDelta)]
    assert deltas[0] == ToolCallDelta(0, "call_9", "lookup", "")
    assert "".join(d.arguments for d in deltas) == '{"id": 7, "full": true}'


async def test_parallel_tool_calls_interleaved_by_index_are_told_apart(
    server: ChatServer, make_model: MakeModel
) -> None:
    def piece(index: int, **fields: object) -> dict[str, object]:
        return chunk({"tool_calls": [{"index": index, **fields}]})

    server.add(
        events(
            chunk({"role": "assistant", "content": None}),
            piece(0, id="a", type="function", function={"name": "lookup", "arguments": ""}),
            piece(1, id="b", type="function", function={"name": "refund", "arguments": '{"or'}),
            piece(0, function={"arguments": '{"id"'}),
            piece(1, function={"arguments": 'der_id": 4'}),
            piece(0, function={"arguments": ": 7}"}),
            piece(1, function={"arguments": '2, "amount": 3}'}),
            chunk({}, "tool_calls"),
        )
    )
    got = await collect(make_model())
    assert got[-1] == ModelResponse(
        tool_calls=[
            ToolCallRequest(id="a", name="lookup", input={"id": 7}),
            ToolCallRequest(id="b", name="refund", input={"order_id": 42, "amount": 3}),
        ]
    )
    assert [(d.index, d.arguments) for d in got if isinstance(d, ToolCallDelta)] == [
        (0, ""),
        (1, '{"or'),
        (0, '{"id"'),
        (1, 'der_id": 4'),
        (0, ": 7}"),
        (1, '2, "amount": 3}'),
    ]


async def test_a_refused_stream_is_retried_before_anything_was_yielded(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(error(429, "slow down"), answer("Fine."))
    got = await collect(make_model())
    assert got[-1] == ModelResponse(text="Fine. ")
    assert len(server.requests) == 2


async def test_a_stream_broken_midway_is_not_retried(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(
        events(chunk({"content": "Par"}), chunk({"content": "tial"}), cut_after=1),
        answer("never sent"),
    )
    seen: list[StreamEvent] = []

    async def consume() -> None:
        async for event in make_model().stream(HELLO):
            seen.append(event)

    with pytest.raises(ModelConnectionError):
        await consume()
    assert seen == [TextDelta("Par")]
    assert len(server.requests) == 1
