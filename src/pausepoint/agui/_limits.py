"""What one AG-UI request may send and one stream may hold back: `Limits`, and the checks
that refuse a request past them with `bad-request` naming where.

A served agent is reached by other people's programs and browsers. Each limit bounds
what one request can make the server hold: the body it reads, the messages and the
nesting it parses, the ids it stores, the events it keeps for a client that does not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..errors import UsageError

__all__ = ["LimitExceeded", "Limits", "check_input", "json_depth_error"]

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The bounds of one served request and its stream; each refusal names the field to
    raise::

        app(agent, store, limits=Limits(max_body_bytes=64 * MiB, max_messages=50_000))

    - `max_body_bytes`: a longer body is answered 413 before more of it is read;
    - `max_messages`: more messages in one RunAgentInput is `bad-request`;
    - `max_depth`: nesting of the free-form JSON a client sends (its `state`,
      `forwardedProps`, resume payloads, tool parameters, activity content) and of the
      body as a whole past the parser's own bound: deeper is `bad-request` with the path;
    - `max_id_chars`: the longest `threadId`, `runId`, `parentRunId` or message id;
    - `max_buffered_bytes`: the events one stream reads ahead of what its client took;
      past it the run waits for the client (a client that reads slowly slows its run);
    - `send_timeout`: seconds one write may wait for a client that does not read, after
      which the stream is closed and its run, if still going, stopped.
    """

    max_body_bytes: int = 16 * MiB
    max_messages: int = 10_000
    max_depth: int = 64
    max_id_chars: int = 256
    max_buffered_bytes: int = 1 * MiB
    send_timeout: float = 30.0

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise UsageError(f"Limits.{field.name} must be a positive number, not {value!r}.")


class LimitExceeded(ValueError):
    """The request is past one of `Limits`: the message names the input and the field."""


_SUSPECT = re.compile(rb"\\u(?:[dD][89a-fA-F]|0000)")
"""An escape that may make a string no store can keep: a surrogate, or NUL."""


def check_input(raw: Mapping[str, Any], body: bytes, limits: Limits) -> None:
    """Refuse (`LimitExceeded`) a parsed RunAgentInput past `limits`, or holding a string a
    store cannot keep (a lone surrogate, NUL), naming the path of what is wrong."""
    messages = raw.get("messages")
    if isinstance(messages, list) and len(messages) > limits.max_messages:
        raise LimitExceeded(
            f"messages holds {len(messages):,} messages, more than this server takes "
            f"({limits.max_messages:,}; Limits(max_messages=...) raises it)."
        )
    for key in ("threadId", "runId", "parentRunId"):
        _check_id(raw.get(key), key, limits)
    if isinstance(messages, list):
        for i, message in enumerate(messages):
            if isinstance(message, Mapping):
                _check_id(message.get("id"), f"messages.{i}.id", limits)
    for path, value in _free_form(raw):
        _check_depth(value, path, limits.max_depth)
    if _SUSPECT.search(body):
        for path, text in _strings(raw):
            _check_text(text, path or "the body")


def json_depth_error(limits: Limits) -> LimitExceeded:
    """The refusal of a body nested past what the JSON parser reads."""
    return LimitExceeded(
        "The body is nested too deep to read; JSON values of a RunAgentInput nest at "
        f"most {limits.max_depth} levels (Limits(max_depth=...))."
    )


def _check_id(value: Any, path: str, limits: Limits) -> None:
    if not isinstance(value, str):
        return  # the model's own validation names a missing or mistyped id
    if len(value) > limits.max_id_chars:
        raise LimitExceeded(
            f"{path} is {len(value):,} characters long; ids here are at most "
            f"{limits.max_id_chars} (Limits(max_id_chars=...))."
        )
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise LimitExceeded(f"{path} holds a control character; send a printable id.")
    _check_text(value, path)


def _check_text(text: str, path: str) -> None:
    if "\x00" in text:
        raise LimitExceeded(f"{path} holds a NUL character (U+0000), which no store keeps.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise LimitExceeded(
            f"{path} holds a lone surrogate (an unpaired \\ud800-\\udfff escape), which "
            "is not text; send the character's pair, or UTF-8."
        ) from None


def _free_form(raw: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """The parts of a RunAgentInput whose shape the protocol leaves to the client."""
    for key in ("state", "forwardedProps", "resume", "context"):
        if key in raw:
            yield key, raw[key]
    tools = raw.get("tools")
    if isinstance(tools, list):
        for i, tool in enumerate(tools):
            yield f"tools.{i}", tool
    messages = raw.get("messages")
    if isinstance(messages, list):
        for i, message in enumerate(messages):
            if isinstance(message, Mapping) and not isinstance(message.get("content"), str):
                yield f"messages.{i}", message


def _check_depth(value: Any, path: str, limit: int) -> None:
    """Walks `value` without recursion; refuses at the first container past `limit`."""
    stack: list[tuple[Any, str, int]] = [(value, path, 1)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterator[tuple[str, Any]] = ((_key(k), v) for k, v in item.items())
        elif isinstance(item, list):
            children = ((str(i), v) for i, v in enumerate(item))
        else:
            continue
        if depth > limit:
            shown = where if len(where) <= 120 else where[:117] + "..."
            raise LimitExceeded(
                f"{shown} nests deeper than {limit} levels (Limits(max_depth=...))."
            )
        stack.extend((v, f"{where}.{k}", depth + 1) for k, v in children)


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    """Every string in `value`, keys too, with its path (no recursion)."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            for k, v in item.items():
                inner = _join(where, _key(k))
                yield f"the key {inner}", str(k)
                stack.append((v, inner))
        elif isinstance(item, list):
            stack.extend((v, _join(where, str(i))) for i, v in enumerate(item))


def _join(path: str, step: str) -> str:
    return f"{path}.{step}" if path else step


def _key(key: Any) -> str:
    """A key as a path shows it: printable, whatever it holds."""
    text = str(key)
    if text.isprintable() and len(text) <= 60:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            return text
    return ascii(text[:60])
