"""`OpenAIChatModel`: any OpenAI-compatible chat-completions endpoint as a model.

Works with OpenAI itself and with servers that speak the same API: vLLM, Ollama,
LM Studio, llama.cpp's server. Needs the optional dependency
``pip install 'pausepoint[openai]'``::

    model = OpenAIChatModel("gpt-4.1-mini")                       # OPENAI_API_KEY from env
    model = OpenAIChatModel("llama3.2", base_url="http://localhost:11434/v1")  # Ollama
    agent = Agent(model=model, actions=[refund])

Settings left out come from the environment: ``OPENAI_MODEL`` (model name),
``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``. A local endpoint needs no key: when a base
URL is set and no key is found, a placeholder key is sent.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from ..errors import (
    MissingDependencyError,
    ModelAuthenticationError,
    ModelBadRequestError,
    ModelConfigurationError,
    ModelConnectionError,
    ModelError,
    ModelRateLimitError,
    ModelServerError,
    ModelTimeoutError,
    UsageError,
)
from ..transcript import AssistantMessage, ToolCall, ToolCallRequest, UserMessage, new_id
from ._outcome import outcome_text
from ._protocol import ModelRequest, ModelResponse, StreamEvent, TextDelta, ToolCallDelta

try:
    import openai
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise MissingDependencyError(
        "OpenAIChatModel needs the openai package: pip install 'pausepoint[openai]'."
    ) from exc

__all__ = ["RAW_ARGUMENTS_KEY", "OpenAIChatModel"]

logger = logging.getLogger("pausepoint")

MODEL_ENV = "OPENAI_MODEL"
BASE_URL_ENV = "OPENAI_BASE_URL"
API_KEY_ENV = "OPENAI_API_KEY"
LOCAL_API_KEY = "not-needed"

RAW_ARGUMENTS_KEY = "_raw_arguments"
"""Tool call arguments that are not a JSON object arrive as ``{RAW_ARGUMENTS_KEY: text}``."""


class OpenAIChatModel:
    """A model served over the OpenAI chat-completions API.

    `model`, `base_url` and `api_key` default to ``OPENAI_MODEL``, ``OPENAI_BASE_URL`` and
    ``OPENAI_API_KEY``. Or pass a ready `client` (an ``openai.AsyncOpenAI``) instead of
    `base_url` / `api_key`.

    Rate limits (429), server errors (5xx), timeouts and connection failures are retried
    up to `max_retries` times, waiting ``retry_base_delay * 2**attempt`` seconds (at most
    `retry_max_delay`, or what the server's ``Retry-After`` asks). A stream is retried
    only if nothing of it was yielded yet. What still fails raises a `ModelError`
    subclass whose message says what to check.

    Tool call arguments that are not a JSON object (models do produce broken JSON) are
    kept as ``{"_raw_arguments": text}``: the action's input validation then fails, the
    model reads that error and can try again, and the transcript shows what it sent.
    (An action whose fields are all optional would run with its defaults.)

    Results go back as ``tool`` messages: a string result as is, anything else as JSON; a
    failure or refusal as text with the error's name and message::

        model = OpenAIChatModel("llama3.2", base_url="http://localhost:11434/v1")
        response = await model.request(ModelRequest("Be brief.", items, actions))
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        max_retries: int = 3,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 8.0,
        timeout: float = 300.0,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        name = model or os.environ.get(MODEL_ENV)
        if not name:
            raise ModelConfigurationError(
                "No model name: pass one, e.g. OpenAIChatModel('gpt-4.1-mini'), or set the "
                f"{MODEL_ENV} environment variable."
            )
        self.model = name
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.temperature = temperature
        self.extra_body = dict(extra_body or {})
        if client is not None:
            if base_url is not None or api_key is not None:
                raise UsageError("Pass either client=... or base_url/api_key, not both.")
            # Retries happen here (with our backoff and error messages), not in the client.
            self.client = client.with_options(max_retries=0)
        else:
            base_url = base_url or os.environ.get(BASE_URL_ENV) or None
            api_key = api_key or os.environ.get(API_KEY_ENV) or None
            if api_key is None and base_url is None:
                raise ModelConfigurationError(
                    f"No API key: set {API_KEY_ENV}, or pass api_key=... . For a local server "
                    "(vLLM, Ollama, LM Studio) pass base_url=..., e.g. "
                    "'http://localhost:11434/v1'; then no key is needed."
                )
            self.client = openai.AsyncOpenAI(
                api_key=api_key or LOCAL_API_KEY,
                base_url=base_url,
                max_retries=0,
                timeout=openai.Timeout(timeout, connect=min(timeout, 10.0)),
            )
        self.base_url = str(self.client.base_url).rstrip("/")

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model!r}, base_url={self.base_url!r})"

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Ask for one complete assistant turn."""
        params = self._params(request)
        attempt = 0
        while True:
            try:
                completion = await self.client.chat.completions.create(**params, stream=False)
                break
            except openai.OpenAIError as exc:
                error = self._translate(exc, attempt + 1)
                if not error.retryable or attempt >= self.max_retries:
                    raise error from exc
                await asyncio.sleep(self._delay(attempt, exc))
                attempt += 1
        if not completion.choices:
            raise ModelError(f"The model endpoint at {self.base_url} returned no choices.")
        message = completion.choices[0].message
        calls = [
            ToolCallRequest(
                id=call.id or new_id("call"),
                name=call.function.name,
                input=_parse_arguments(call.function.arguments),
            )
            for call in message.tool_calls or []
            if getattr(call, "function", None) is not None
        ]
        return ModelResponse(
            text=message.content or "",
            tool_calls=calls,
            usage=_usage(getattr(completion, "usage", None)),
            finish_reason=_text_or_none(getattr(completion.choices[0], "finish_reason", None)),
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one assistant turn: text and tool call pieces, then the whole response."""
        params = self._params(request)
        attempt = 0
        while True:
            turn = _StreamedTurn()
            try:
                chunks = await self.client.chat.completions.create(**params, stream=True)
                try:
                    async for chunk in chunks:
                        for event in turn.feed(chunk):
                            yield event
                finally:
                    await chunks.close()
                break
            except openai.OpenAIError as exc:
                error = self._translate(exc, attempt + 1)
                if turn.started or not error.retryable or attempt >= self.max_retries:
                    raise error from exc
                await asyncio.sleep(self._delay(attempt, exc))
                attempt += 1
        yield turn.response()

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, "messages": _to_messages(request)}
        if request.actions:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": spec.name,
                        **({"description": spec.description} if spec.description else {}),
                        "parameters": spec.input_schema,
                    },
                }
                for spec in request.actions
            ]
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params

    def _delay(self, attempt: int, exc: openai.OpenAIError) -> float:
        asked = _retry_after(exc)
        if asked is not None:
            return min(asked, self.retry_max_delay)
        backoff = min(self.retry_base_delay * 2.0**attempt, self.retry_max_delay)
        # Jitter spreads out clients that were throttled at the same moment.
        return backoff * random.uniform(0.75, 1.0)

    def _translate(self, exc: openai.OpenAIError, attempts: int) -> ModelError:
        where = f"The model endpoint at {self.base_url}"
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        if isinstance(exc, openai.APITimeoutError):
            return ModelTimeoutError(
                f"{where} did not answer in time{tries}. Check that the server is up and not "
                "overloaded, or raise timeout=... .",
                retryable=True,
                attempts=attempts,
            )
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = f" ({type(cause).__name__}: {cause})" if cause else ""
            return ModelConnectionError(
                f"Could not reach the model endpoint at {self.base_url}{tries}{detail}. Check "
                f"that the server is running and that base_url (or {BASE_URL_ENV}) is right, "
                "e.g. http://localhost:11434/v1 for Ollama.",
                retryable=True,
                attempts=attempts,
            )
        if not isinstance(exc, openai.APIStatusError):
            return ModelError(f"{where} failed: {exc}", attempts=attempts)
        status = exc.status_code
        said = f"HTTP {status}: {_server_message(exc)}"
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return ModelAuthenticationError(
                f"{where} refused the credentials ({said}). Check {API_KEY_ENV} or pass "
                "api_key=... to OpenAIChatModel; for a local server, check base_url.",
                status_code=status,
                attempts=attempts,
            )
        if isinstance(exc, openai.RateLimitError):
            return ModelRateLimitError(
                f"{where} is rate limiting requests ({said}){tries}. Wait a little and call "
                "run() again, or check your plan's quota.",
                status_code=status,
                retryable=True,
                attempts=attempts,
            )
        if status >= 500:
            return ModelServerError(
                f"{where} failed with a server error ({said}){tries}. Call run() again "
                "later; if it persists, check the server's logs.",
                status_code=status,
                retryable=True,
                attempts=attempts,
            )
        if status in (408, 409):
            return ModelError(
                f"{where} asked to try again later ({said}){tries}. Call run() again.",
                status_code=status,
                retryable=True,
                attempts=attempts,
            )
        hint = (
            f"Check the model name {self.model!r} and that base_url ends with the API's "
            "version path (usually /v1)."
            if status == 404
            else f"Check the model name {self.model!r}, that it supports tool calling, and "
            "any extra_body settings."
        )
        return ModelBadRequestError(
            f"{where} refused the request ({said}). {hint}", status_code=status, attempts=attempts
        )


def _to_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The chat-completions `messages` for a request: the transcript in wire form."""
    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    for item in request.items:
        if isinstance(item, UserMessage):
            messages.append({"role": "user", "content": item.text})
        elif isinstance(item, AssistantMessage):
            message: dict[str, Any] = {"role": "assistant", "content": item.text}
            if item.tool_calls:
                message["content"] = item.text or None
                message["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.input)},
                    }
                    for call in item.tool_calls
                ]
            messages.append(message)
        elif isinstance(item, ToolCall):
            messages.append(
                {"role": "tool", "tool_call_id": item.id, "content": outcome_text(item)}
            )
    return messages


def _parse_arguments(text: str | None) -> dict[str, JsonValue]:
    """Tool call arguments as a dict; anything but a JSON object is kept under a marker key."""
    if not text or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    logger.warning("A model sent tool call arguments that are not a JSON object: %r", text)
    return {RAW_ARGUMENTS_KEY: text}


@dataclass
class _PartialCall:
    id: str | None = None
    name: str = ""
    arguments: str = ""


class _StreamedTurn:
    """Accumulates streamed chunks; parallel tool calls are told apart by their index."""

    def __init__(self) -> None:
        self.started = False
        self._text: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self.usage: dict[str, int] | None = None
        self.finish_reason: str | None = None

    def feed(self, chunk: Any) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self.usage = _usage(getattr(chunk, "usage", None)) or self.usage
        for choice in (chunk.choices or [])[:1]:
            self.finish_reason = _text_or_none(getattr(choice, "finish_reason", None)) or (
                self.finish_reason
            )
            delta = choice.delta
            if delta is None:
                continue
            if delta.content:
                self._text.append(delta.content)
                events.append(TextDelta(delta.content))
            for piece in delta.tool_calls or []:
                index = self._index_of(piece)
                call = self._calls.setdefault(index, _PartialCall())
                function = piece.function
                name = function.name if function is not None else None
                arguments = (function.arguments if function is not None else None) or ""
                call.id = call.id or piece.id
                # Some servers repeat the name in every piece; it is not a fragment.
                if name and not call.name:
                    call.name = name
                call.arguments += arguments
                events.append(ToolCallDelta(index, piece.id, name, arguments))
        self.started = self.started or bool(events)
        return events

    def _index_of(self, piece: Any) -> int:
        if isinstance(piece.index, int):
            return int(piece.index)
        # Without an index: a new id starts a call, anything else continues the last one.
        if piece.id or not self._calls:
            return len(self._calls)
        return max(self._calls)

    def response(self) -> ModelResponse:
        return ModelResponse(
            text="".join(self._text),
            tool_calls=[
                ToolCallRequest(
                    id=call.id or new_id("call"),
                    name=call.name,
                    input=_parse_arguments(call.arguments),
                )
                for _, call in sorted(self._calls.items())
            ],
            usage=self.usage,
            finish_reason=self.finish_reason,
        )


def _usage(usage: Any) -> dict[str, int] | None:
    """The token counts an endpoint reported (None when it reported none)."""
    if usage is None:
        return None
    counts = {
        name: value
        for name in ("prompt_tokens", "completion_tokens", "total_tokens")
        if isinstance(value := getattr(usage, name, None), int) and not isinstance(value, bool)
    }
    return counts or None


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return exc.message


def _retry_after(exc: openai.OpenAIError) -> float | None:
    if not isinstance(exc, openai.APIStatusError):
        return None
    value = exc.response.headers.get("retry-after")
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds >= 0 else None
