"""Bounded values for the views: a large value travels as a preview that names it.

A value block (a tool call's input or result, an interrupt's data, checkpoint or answer,
a card's arguments, a message's text) whose JSON text is over `PREVIEW_LIMIT` bytes is
sent as the marker `{"pausepoint:preview": {"text", "bytes", "ref"}}`: the first
`PREVIEW_CHARS` characters of its indented JSON (or of the text), its full size in UTF-8
and an opaque reference the front end sends back in a `{type: "value", ref}` request to
get the whole value. The kernel keeps no copy: a reference is the place of the value in
what the view shows (`item/3/result`), found again when asked.

Only the kernel writes markers. A value that holds the marker's key anywhere (a model's
arguments, a tool's result, a person's answer) is itself sent as a preview, whose text is
the value's own JSON: no value can pose as a preview and show text it chose instead of
itself. Answers holding the key are ordinary data (`is_preview` knows the markers the
kernel makes by their exact shape).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, unquote

import pydantic_core

from ..errors import UsageError

__all__ = [
    "PREVIEW_CHARS",
    "PREVIEW_KEY",
    "PREVIEW_LIMIT",
    "bounded",
    "bounded_card",
    "bounded_item",
    "cut_text",
    "index_of",
    "is_preview",
    "ref_of",
    "resolve",
]

PREVIEW_KEY = "pausepoint:preview"
PREVIEW_LIMIT = 32 * 1024
"""A value whose JSON text is longer than this many bytes is sent as a preview."""
PREVIEW_CHARS = 4 * 1024
"""How many characters of a large value's text (or indented JSON) its preview shows."""

_CARD_VALUES = ("args", "validatedArgs", "data")
_ENTRY_VALUES = ("data", "state")


_MARKER = json.dumps(PREVIEW_KEY).encode()
_MARKER_FIELDS = frozenset({"text", "bytes", "ref"})


def _size(value: Any) -> int:
    """The value's size in UTF-8 bytes: a text's own, else its compact JSON's."""
    if isinstance(value, str):
        if len(value) * 4 <= PREVIEW_LIMIT:  # no text this short can be over the limit
            return len(value)
        return len(value.encode("utf-8", "surrogatepass"))
    if value is None or isinstance(value, bool | int | float):
        return 0
    return len(pydantic_core.to_json(value, fallback=str))


def _preview_size(value: Any) -> int | None:
    """The value's size when it must travel as a preview (over the limit, or a container
    holding the marker's key, or that text, anywhere), else None."""
    if isinstance(value, str):
        size = _size(value)
        return size if size > PREVIEW_LIMIT else None
    if value is None or isinstance(value, bool | int | float):
        return None
    raw = pydantic_core.to_json(value, fallback=str)
    if len(raw) > PREVIEW_LIMIT or _MARKER in raw:
        return len(raw)
    return None


def _head(value: Any) -> str:
    """The start of the value's text, or of its indented JSON, without encoding it all."""
    if isinstance(value, str):
        return value[:PREVIEW_CHARS]
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, default=str)
    parts: list[str] = []
    length = 0
    for chunk in encoder.iterencode(value):
        parts.append(chunk)
        length += len(chunk)
        if length >= PREVIEW_CHARS:
            break
    return "".join(parts)[:PREVIEW_CHARS]


def bounded(value: Any, ref: str) -> Any:
    """`value` itself when small enough and free of the marker's key, else its preview
    marker naming `ref`."""
    size = _preview_size(value)
    if size is None:
        return value
    return {PREVIEW_KEY: {"text": _head(value), "bytes": size, "ref": ref}}


def cut_text(text: str) -> str:
    """A plain text shown in a sentence (an interrupt's message): cut, saying how much."""
    if _size(text) <= PREVIEW_LIMIT:
        return text
    rest = len(text) - PREVIEW_CHARS
    return f"{text[:PREVIEW_CHARS]}… ({rest:,} more characters)"


def ref_of(kind: str, name: str) -> str:
    """The reference of a whole item or card: `item/3`, `card/<its key>`."""
    return f"{kind}/{quote(name, safe='')}"


def is_preview(value: Any) -> bool:
    """Whether `value` is (or holds anywhere) a preview marker as the kernel makes them,
    sent back instead of the value it stands for. Any other use of the key is data."""
    if isinstance(value, dict):
        if _is_marker(value):
            return True
        return any(is_preview(v) for v in value.values())
    if isinstance(value, list):
        return any(is_preview(v) for v in value)
    return False


def _is_marker(value: dict[str, Any]) -> bool:
    if len(value) != 1 or PREVIEW_KEY not in value:
        return False
    info = value[PREVIEW_KEY]
    return (
        isinstance(info, dict)
        and info.keys() == _MARKER_FIELDS
        and isinstance(info["text"], str)
        and type(info["bytes"]) is int
        and isinstance(info["ref"], str)
    )


def _bound_in(container: dict[str, Any], key: str, ref: str) -> None:
    if key in container:
        container[key] = bounded(container[key], f"{ref}/{key}")


def _bound_answer(resolution: dict[str, Any], ref: str) -> None:
    """An approval's answer keeps `approved` in sight: its parts are bounded one by one."""
    data = resolution.get("data")
    if isinstance(data, dict) and "approved" in data and _preview_size(data) is not None:
        parts = dict(data)
        for key in parts:
            if key != "approved":
                _bound_in(parts, key, f"{ref}/data")
        resolution["data"] = parts
    else:
        _bound_in(resolution, "data", ref)
    error = resolution.get("error")
    if isinstance(error, dict):
        _bound_in(error, "message", f"{ref}/error")


def bounded_item(item: dict[str, Any], ref: str) -> dict[str, Any]:
    """A transcript item's JSON (as `model_dump(mode="json")` writes it) with each of its
    value blocks bounded; `ref` names the item (`item/3`)."""
    out = dict(item)
    _bound_in(out, "text", ref)
    _bound_in(out, "input", ref)
    _bound_in(out, "result", ref)
    if isinstance(out.get("error"), dict):
        out["error"] = dict(out["error"])
        _bound_in(out["error"], "message", f"{ref}/error")
    calls = out.get("tool_calls")
    if isinstance(calls, list):
        out["tool_calls"] = [
            _bounded_fields(call, ("input",), f"{ref}/tool_calls/{i}")
            for i, call in enumerate(calls)
        ]
    entries = out.get("interrupts")
    if isinstance(entries, list):
        out["interrupts"] = [
            _bounded_entry(e, f"{ref}/interrupts/{i}") for i, e in enumerate(entries)
        ]
    return out


def _bounded_entry(entry: Any, ref: str) -> Any:
    if not isinstance(entry, dict):
        return entry
    out = _bounded_fields(entry, _ENTRY_VALUES, ref)
    if isinstance(out.get("message"), str):
        out["message"] = cut_text(out["message"])
    if isinstance(out.get("resolution"), dict):
        out["resolution"] = dict(out["resolution"])
        _bound_answer(out["resolution"], f"{ref}/resolution")
    return out


def _bounded_fields(value: Any, keys: tuple[str, ...], ref: str) -> Any:
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for key in keys:
        _bound_in(out, key, ref)
    return out


def bounded_card(card: Mapping[str, Any], ref: str) -> dict[str, Any]:
    """A pending card with its arguments and data bounded; `ref` names the card."""
    out: dict[str, Any] = _bounded_fields(dict(card), _CARD_VALUES, ref)
    if isinstance(out.get("message"), str):
        out["message"] = cut_text(out["message"])
    return out


def resolve(ref: str, root: Callable[[str, str], Any]) -> Any:
    """The full value behind `ref`: `root(kind, name)` gives the value a reference starts
    from (the item or card it names, unbounded), the rest is a path into it."""
    kind, _, rest = ref.partition("/")
    name, _, path = rest.partition("/")
    if not kind or not name:
        raise UsageError(f"Not a value reference: {ref[:200]!r}.")
    value = root(kind, unquote(name))
    for step in path.split("/") if path else []:
        position = index_of(step)
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and position is not None and position < len(value):
            value = value[position]
        else:
            raise UsageError(f"The view has no value at {ref[:200]!r} any more.")
    return value


def index_of(text: str) -> int | None:
    """`text` as a position in a reference, or None: only ASCII digits count (`str.isdigit`
    also takes `²` and `①`, which `int` refuses), and no more than any list can hold."""
    if 0 < len(text) <= 12 and text.isascii() and text.isdigit():
        return int(text)
    return None
