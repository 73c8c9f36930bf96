"""Canonical JSON text and digests, byte-identical to TanStack AI's.

TanStack hashes interrupt schemas and answers with ``canonicalInterruptJson``: the
JavaScript ``JSON.stringify`` of the value with object keys sorted by UTF-16 code units.
Python's own JSON output differs in small ways (``1.0``, ``1e-07``, big integers, lone
surrogates), so the text is built here and numbers are formatted by ``rfc8785``, which
implements the ECMAScript number-to-string rules.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re

import rfc8785

from pausepoint.errors import NotJSONError, UsageError

__all__ = ["canonical_json", "digest"]

_MAX_SAFE_INTEGER = 2**53 - 1
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def canonical_json(value: object) -> str:
    """Return the canonical JSON text of ``value``, as TanStack AI writes it.

    Objects have their keys sorted by UTF-16 code units, there is no whitespace,
    non-ASCII text is written as is, and numbers look the way JavaScript prints them.
    Integers beyond 2**53 become the nearest double, as they would after
    ``JSON.parse`` in a browser.

    >>> canonical_json({"b": [1.0, -0.0, 1e21, 1e-7], "a": "é"})
    '{"a":"é","b":[1,0,1e+21,1e-7]}'

    Raises:
        NotJSONError: for NaN, infinities, non-string keys, cycles and any value that
            is not ``dict``, ``list``, ``tuple``, ``str``, ``int``, ``float``, ``bool``
            or ``None``. ``path`` names the offending part.
    """
    parts: list[str] = []
    _write(value, "$", parts, set())
    return "".join(parts)


def digest(text: str) -> str:
    """Return ``"sha256:"`` followed by the lowercase hex SHA-256 of the UTF-8 text.

    >>> digest("undefined")
    'sha256:eb045d78d273107348b0300c01d29b7552d622abbc6faf81b3ec55359aa9950c'
    """
    if not isinstance(text, str):
        raise UsageError(
            f"digest() takes text, got {type(text).__name__}; "
            "pass canonical_json(value) to hash a value."
        )
    data = text.encode("utf-8", "surrogatepass")
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _write(value: object, path: str, out: list[str], active: set[int]) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(_integer(value, path))
    elif isinstance(value, float):
        out.append(_number(value, path))
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, dict | list | tuple):
        if id(value) in active:
            raise NotJSONError("Canonical JSON input", path, "a reference to itself (a cycle)")
        active.add(id(value))
        if isinstance(value, dict):
            _write_object(value, path, out, active)
        else:
            out.append("[")
            for index, item in enumerate(value):
                if index:
                    out.append(",")
                _write(item, f"{path}[{index}]", out, active)
            out.append("]")
        active.discard(id(value))
    else:
        raise NotJSONError("Canonical JSON input", path, f"of type {type(value).__name__}")


def _write_object(value: dict[object, object], path: str, out: list[str], active: set[int]) -> None:
    keyed: list[tuple[bytes, str, object]] = []
    for key, item in value.items():
        if not isinstance(key, str):
            raise NotJSONError(
                "Canonical JSON input", f"{path}[{key!r}]", f"under a {type(key).__name__} key"
            )
        normal = _utf16(key)
        keyed.append((normal.encode("utf-16-be", "surrogatepass"), key, item))
    # Big-endian UTF-16 bytes compare exactly like JavaScript's code-unit order.
    keyed.sort(key=lambda entry: entry[0])
    for (before, first, _), (after, second, _) in itertools.pairwise(keyed):
        if before == after:
            raise NotJSONError(
                "Canonical JSON input",
                path,
                f"an object whose keys {first!r} and {second!r} are the same UTF-16 text",
            )
    out.append("{")
    for index, (_, key, item) in enumerate(keyed):
        if index:
            out.append(",")
        out.append(_string(key))
        out.append(":")
        _write(item, f"{path}[{key!r}]", out, active)
    out.append("}")


def _utf16(text: str) -> str:
    """Join surrogate pairs written as two code points, as a JavaScript string would."""
    if not _LONE_SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _string(text: str) -> str:
    encoded = json.dumps(_utf16(text), ensure_ascii=False)
    # JSON.stringify escapes unpaired surrogates instead of writing invalid UTF-16.
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", encoded)


def _integer(value: int, path: str) -> str:
    if -_MAX_SAFE_INTEGER <= value <= _MAX_SAFE_INTEGER:
        return str(int(value))
    try:
        as_double = float(value)
    except OverflowError:
        raise NotJSONError(
            "Canonical JSON input", path, "an integer too large for a JavaScript number"
        ) from None
    return _number(as_double, path)


def _number(value: float, path: str) -> str:
    if math.isnan(value) or math.isinf(value):
        raise NotJSONError("Canonical JSON input", path, f"{value!r}, which JSON cannot represent")
    return rfc8785.dumps(float(value)).decode("ascii")
