"""OpenAIChatModel reports token usage and the finish reason, streamed or not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chat_server import ChatServer, Reply, answer, chunk, events

from pausepoint import ModelRequest, ModelResponse
from pausepoint.models.openai import OpenAIChatModel
from pausepoint.transcript import UserMessage

MakeModel = Callable[..., OpenAIChatModel]
USAGE = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}


def hi() -> ModelRequest:
    return ModelRequest(None, [UserMessage(text="Hi")], [])


def completion_with_usage(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": USAGE,
    }


async def test_a_completion_reports_its_usage_and_finish_reason(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(Reply(body=completion_with_usage("Hello.")))
    response = await make_model().request(hi())
    assert response.text == "Hello."
    assert response.usage == USAGE
    assert response.finish_reason == "stop"


async def test_without_usage_the_response_says_none(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(answer("Hello."))
    response = await make_model().request(hi())
    assert response.usage is None
    assert response.finish_reason == "stop"


async def test_a_stream_reports_the_usage_of_its_last_chunk_and_its_finish_reason(
    server: ChatServer, make_model: MakeModel
) -> None:
    usage_chunk = {**chunk({}), "choices": [], "usage": USAGE}
    server.add(events(chunk({"content": "Hel"}), chunk({"content": "lo."}, "stop"), usage_chunk))
    final = [e async for e in make_model().stream(hi()) if isinstance(e, ModelResponse)]
    assert final[0].text == "Hello."
    assert final[0].usage == USAGE
    assert final[0].finish_reason == "stop"
