"""Checking that values which must travel as JSON really are JSON, where they enter.

Everything recorded in a transcript must come back unchanged after
``prompt.model_dump_json()`` and ``Prompt.model_validate_json(...)``. A value is accepted
when it is made of ``dict`` (string keys), ``list``/``tuple``, ``str``, ``int``, ``float``,
``bool``, ``None`` and pydantic models, and stays within these limits:

- `MAX_JSON_DEPTH` nested containers (dicts and lists). The JSON parser that loads a
  Prompt refuses documents nested 200 levels deep, and a Prompt wraps each value in up to
  six levels of its own; 100 leaves room for that and for envelopes around a Prompt.
- `MAX_INT_DIGITS` decimal digits in an integer, the most the JSON parser reads back.
- No NaN or infinity: JSON has no such numbers (they would come back as null).
- No lone surrogate (half of a UTF-16 pair, e.g. text cut in the middle of an emoji) in
  a string or a key: it cannot be written as UTF-8.

A cycle (a list that contains itself) is refused as such.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

import pydantic_core
from pydantic import BaseModel, JsonValue

from .errors import NotJSONError

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "check_text",
    "is_plain_json",
    "is_plain_text",
    "json_path",
    "json_size",
    "printable",
    "to_json_value",
]

MAX_JSON_DEPTH = 100
"""How many dicts and lists may nest inside one value (``[[1]]`` nests 2)."""

MAX_INT_DIGITS = 4300
"""How many decimal digits an integer may have."""

_SURROGATE = "text with a lone surrogate (half of a UTF-16 pair), which is not valid UTF-8"
_INT_BOUND = 10**MAX_INT_DIGITS
_INT_BOUND_BITS = _INT_BOUND.bit_length() - 1  # below this many bits, always in bounds


def to_json_value(value: Any, what: str) -> JsonValue:
    """Return a fresh JSON-compatible copy of `value`, or raise `NotJSONError`.

    The copy means a caller who keeps mutating the object it passed cannot change what
    was recorded. Tuples become lists, pydantic models are dumped in JSON mode, and
    subclasses of str, int and float (enums among them) become the plain type.

    >>> to_json_value({"ids": (1, 2)}, "interrupt data")
    {'ids': [1, 2]}
    """
    try:
        return _copy(value, 0)
    except _Refused as refused:
        raise NotJSONError(what, refused.path(), refused.reason) from None


def is_plain_json(value: Any) -> bool:
    """Whether `value` is made of plain dicts, lists, str, int, float, bool and None
    within the limits above, so that `to_json_value` would return an equal copy.

    It copies nothing and never raises; False means "ask `to_json_value`": a tuple, a
    subclass or a model may still be accepted there, and only it says where a value fails.
    """
    return _plain(value, 0)


def is_plain_text(text: Any) -> bool:
    """Whether `text` is a plain str that `check_text` accepts as it is."""
    return type(text) is str and (text.isascii() or _encodes(text))


def check_text(text: Any, what: str) -> str:
    """Return `text` as a plain str, or raise `NotJSONError` when it is not a str or holds
    a lone surrogate.

    >>> check_text("café", "The message")
    'café'
    """
    if not isinstance(text, str):
        raise NotJSONError(what, "$", f"a {type(text).__name__}, not text")
    plain = str.__str__(text)
    if plain.isascii() or _encodes(plain):
        return plain
    raise NotJSONError(what, "$", _SURROGATE)


def printable(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, for text that must be recorded
    whatever it holds (an exception's message).

    >>> printable("cut \\ud83d")
    'cut \\ufffd'
    """
    if text.isascii() or _encodes(text):
        return text
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def json_size(value: JsonValue) -> int:
    """Bytes of the compact UTF-8 JSON text of a value `to_json_value` accepted."""
    return len(pydantic_core.to_json(value))


class _Refused(Exception):
    """Unwinds the walk; the path is collected on the way out, so the accepted case
    never builds one."""

    def __init__(self, reason: str, innermost: object = None) -> None:
        self.reason = reason
        self.trail: list[str | int] = []  # innermost step first
        self.innermost = innermost
        self.repeats: list[int] = []  # trail lengths at which `innermost` was passed

    def passing(self, container: object, step: str | int) -> None:
        self.trail.append(step)
        if self.innermost is not None and container is self.innermost:
            # The container that went too deep is one of its own ancestors.
            self.repeats.append(len(self.trail))
            self.reason = "a reference to a container that holds it (a cycle)"

    def path(self) -> str:
        steps = list(reversed(self.trail))
        if self.repeats:
            # Depths at which the repeated container sits; the path ends at the second.
            depths = sorted(len(steps) - length for length in self.repeats)
            steps = steps[: depths[1] if len(depths) > 1 else len(steps)]
        out = "$"
        for step in steps:
            if isinstance(step, int):
                out += f"[{step}]"
            elif step.isidentifier():
                out += f".{step}"
            else:
                out += "[" + pydantic_core.to_json(printable(step)).decode() + "]"
        return out


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain(value: Any, depth: int) -> bool:
    kind = type(value)
    if kind is dict:
        if depth >= MAX_JSON_DEPTH:
            return False
        for key in value:
            if type(key) is not str or not (key.isascii() or _encodes(key)):
                return False
        items = value.values()
    elif kind is list:
        if depth >= MAX_JSON_DEPTH:
            return False
        items = value
    else:
        return _plain_scalar(value)
    # Scalars are checked here rather than in a call each: most values are small
    # dicts of scalars.
    for item in items:
        kind = type(item)
        if kind is str:
            if not (item.isascii() or _encodes(item)):
                return False
        elif kind is int:
            if item.bit_length() >= _INT_BOUND_BITS:
                return False
        elif kind is dict or kind is list:
            if not _plain(item, depth + 1):
                return False
        elif item is not None and kind is not bool and not _plain_scalar(item):
            return False
    return True


def _plain_scalar(value: Any) -> bool:
    kind = type(value)
    if kind is str:
        return value.isascii() or _encodes(value)
    if kind is int:
        return value.bit_length() < _INT_BOUND_BITS  # type: ignore[no-any-return]
    if kind is float:
        return math.isfinite(value)
    return value is None or kind is bool


def _copy(value: Any, depth: int) -> JsonValue:
    kind = type(value)
    if kind is str:
        if value.isascii() or _encodes(value):
            return value  # type: ignore[no-any-return]
        raise _Refused(_SURROGATE)
    if kind is int:
        if value.bit_length() >= _INT_BOUND_BITS and abs(value) >= _INT_BOUND:
            raise _Refused(f"an integer with more than {MAX_INT_DIGITS} digits")
        return value  # type: ignore[no-any-return]
    if kind is float:
        if not math.isfinite(value):
            raise _Refused(f"the float {value!r}, which JSON cannot carry")
        return value  # type: ignore[no-any-return]
    if value is None or kind is bool:
        return value  # type: ignore[no-any-return]
    if kind is dict or kind is list or kind is tuple:
        if depth >= MAX_JSON_DEPTH:
            raise _Refused(f"nested more than {MAX_JSON_DEPTH} levels deep", innermost=value)
        if kind is dict:
            out: dict[str, JsonValue] = {}
            for key, item in value.items():
                if type(key) is not str or not key.isascii():
                    key = _key(key)
                try:
                    out[key] = _copy(item, depth + 1)
                except _Refused as refused:
                    refused.passing(value, key)
                    raise
            return out
        items: list[JsonValue] = []
        for index, item in enumerate(value):
            try:
                items.append(_copy(item, depth + 1))
            except _Refused as refused:
                refused.passing(value, index)
                raise
        return items
    return _copy_other(value, depth)


def _key(key: Any) -> str:
    if isinstance(key, str):
        key = str.__str__(key)
        if _encodes(key):
            return key  # type: ignore[no-any-return]
    raise _Refused(
        f"a dict with the key {printable(repr(key))}: keys must be text without lone surrogates"
    )


def _copy_other(value: Any, depth: int) -> JsonValue:
    """Subclasses of the plain types, dict and list subclasses, and pydantic models."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return _copy(int(value), depth)
    if isinstance(value, float):
        return _copy(float(value), depth)
    if isinstance(value, str):
        return _copy(str.__str__(value), depth)
    if isinstance(value, dict):
        return _copy(dict(value), depth)
    if isinstance(value, list | tuple):
        return _copy(list(value), depth)
    if isinstance(value, BaseModel):
        try:
            dumped = value.model_dump(mode="json")
        except (ValueError, TypeError, RecursionError) as exc:
            raise _Refused(f"a {type(value).__name__} that cannot be dumped ({exc})") from None
        # Checked like any value: a model may still hold NaN or text that is not UTF-8.
        return _copy(dumped, depth)
    raise _Refused(f"a {type(value).__name__}")


def json_path(keys: Iterable[int | str], root: str = "$") -> str:
    """A JSON path a view can read back: `$.a[0]`, and `$["a.b"]` for a name that is not
    an identifier, so that a key holding a dot is not taken for two."""
    path = root
    for key in keys:
        if isinstance(key, int):
            path += f"[{key}]"
        elif key.isidentifier():
            path += f".{key}"
        else:
            path += f"[{json.dumps(key)}]"
    return path
