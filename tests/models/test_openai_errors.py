"""What an unreachable or unhappy endpoint turns into: typed errors, bounded retries."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import openai
import pytest
from chat_server import ChatServer, answer, error

from pausepoint import ModelRequest, PausepointError
from pausepoint.models import (
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelConnectionError,
    ModelError,
    ModelRateLimitError,
    ModelServerError,
    OpenAIChatModel,
)
from pausepoint.transcript import UserMessage

MakeModel = Callable[..., OpenAIChatModel]
HELLO = ModelRequest(None, [UserMessage(text="Hi")], [])


async def test_401_is_an_authentication_error_that_names_the_key_and_is_not_retried(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(error(401, "Incorrect API key provided"))
    with pytest.raises(ModelAuthenticationError) as caught:
        await make_model().request(HELLO)
    message = str(caught.value)
    assert "OPENAI_API_KEY" in message
    assert "Incorrect API key provided" in message
    assert server.url in message
    assert caught.value.status_code == 401
    assert len(server.requests) == 1


async def test_400_is_a_bad_request_error_naming_the_model_and_not_retried(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(error(400, "tools are not supported"))
    with pytest.raises(ModelBadRequestError) as caught:
        await make_model().request(HELLO)
    assert "'test-model'" in str(caught.value)
    assert "tools are not supported" in str(caught.value)
    assert len(server.requests) == 1


async def test_a_wrong_path_hints_at_the_version_suffix(server: ChatServer) -> None:
    model = OpenAIChatModel("m", base_url=server.url.removesuffix("/v1"), api_key="k")
    with pytest.raises(ModelBadRequestError, match="/v1"):
        await model.request(HELLO)


async def test_a_rate_limit_is_retried_and_then_succeeds(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(error(429, "Rate limit reached"), answer("Made it."))
    response = await make_model().request(HELLO)
    assert response.text == "Made it."
    assert len(server.requests) == 2
    assert server.requests[0] == server.requests[1]


async def test_the_retry_after_header_is_honoured_within_the_cap(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(error(429, "later", retry_after="0.3"), answer("ok"))
    started = time.monotonic()
    await make_model().request(HELLO)
    assert time.monotonic() - started >= 0.3


async def test_server_errors_are_retried_a_bounded_number_of_times(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(*[error(500, "boom")] * 6)
    with pytest.raises(ModelServerError) as caught:
        await make_model(max_retries=2).request(HELLO)
    assert len(server.requests) == 3
    assert caught.value.attempts == 3
    assert "after 3 attempts" in str(caught.value)


async def test_rate_limits_that_persist_end_in_a_rate_limit_error(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(*[error(429, "quota exceeded")] * 3)
    with pytest.raises(ModelRateLimitError, match="quota exceeded"):
        await make_model(max_retries=1).request(HELLO)
    assert len(server.requests) == 2


async def test_no_retries_when_max_retries_is_zero(
    server: ChatServer, make_model: MakeModel
) -> None:
    server.add(error(503, "overloaded"), answer("ok"))
    with pytest.raises(ModelServerError):
        await make_model(max_retries=0).request(HELLO)
    assert len(server.requests) == 1


async def test_a_refused_connection_is_a_connection_error_naming_the_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    model = OpenAIChatModel("m", base_url=url, max_retries=1, retry_base_delay=0.001)
    with pytest.raises(ModelConnectionError) as caught:
        await model.request(HELLO)
    assert url in str(caught.value)
    assert "base_url" in str(caught.value)
    assert caught.value.attempts == 2


async def test_a_given_client_is_used_without_its_own_retries(server: ChatServer) -> None:
    client = openai.AsyncOpenAI(base_url=server.url, api_key="sk-client", max_retries=5)
    model = OpenAIChatModel("m", client=client, max_retries=1, retry_base_delay=0.001)
    server.add(*[error(500, "boom")] * 10)
    with pytest.raises(ModelServerError):
        await model.request(HELLO)
    assert len(server.requests) == 2
    assert server.headers[0]["authorization"] == "Bearer sk-client"


def test_every_model_error_is_a_pausepoint_error() -> None:
    for kind in (ModelAuthenticationError, ModelRateLimitError, ModelConnectionError):
        assert issubclass(kind, ModelError)
    assert issubclass(ModelError, PausepointError)
