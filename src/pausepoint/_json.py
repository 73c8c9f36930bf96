"""Checking that values which must travel as JSON really are JSON, where they enter."""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, JsonValue

from .errors import NotJSONError

__all__ = ["to_json_value"]


def to_json_value(value: Any, what: str) -> JsonValue:
    """Return a fresh JSON-compatible copy of `value`, or raise `NotJSONError`.

    The copy means a caller who keeps mutating the object it passed cannot change what
    was recorded. Pydantic models are accepted and dumped in JSON mode.

    >>> to_json_value({"ids": (1, 2)}, "interrupt data")
    {'ids': [1, 2]}
    """
    return _copy(value, what, "$")


def _copy(value: Any, what: str, path: str) -> JsonValue:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotJSONError(what, path, f"the float {value!r}, which JSON cannot carry")
        return value
    if isinstance(value, dict):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotJSONError(what, path, f"a dict with the non-string key {key!r}")
            out[key] = _copy(item, what, f"{path}.{key}")
        return out
    if isinstance(value, list | tuple):
        return [_copy(item, what, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, BaseModel):
        # Dumped, then checked like any value: a model may still hold NaN or infinity.
        return _copy(value.model_dump(mode="json"), what, path)
    raise NotJSONError(what, path, f"a {type(value).__name__}")
