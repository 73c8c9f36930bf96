"""Canonical JSON follows JavaScript's JSON.stringify with sorted keys; digests are SHA-256."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import pytest

from pausepoint.errors import NotJSONError, PausepointError
from pausepoint.interrupts import canonical_json, digest


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (0.5, "0.5"),
        (-1.5, "-1.5"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1.5e-10, "1.5e-10"),
        (123456789.125, "123456789.125"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (0.1 + 0.2, "0.30000000000000004"),
        (2**53 - 1, "9007199254740991"),
        (-(2**53) + 1, "-9007199254740991"),
        (2**53, "9007199254740992"),
        (2**53 + 1, "9007199254740992"),
        (2**60, "1152921504606847000"),
        (10**21, "1e+21"),
        (-(10**25) - 1, "-1e+25"),
    ],
)
def test_numbers_are_written_as_javascript_writes_them(number: float, text: str) -> None:
    assert canonical_json(number) == text


def test_object_keys_sort_by_utf16_code_units_not_code_points() -> None:
    value = {"\uffff": 1, "\U0001f600": 2, "B": 3, "a": 4, "": 5, "10": 6, "9": 7}
    assert canonical_json(value) == '{"":5,"10":6,"9":7,"B":3,"a":4,"😀":2,"\uffff":1}'


def test_arrays_keep_their_order_and_nesting_is_compact() -> None:
    assert canonical_json([3, {"b": [], "a": {}}, (1, 2)]) == '[3,{"a":{},"b":[]},[1,2]]'


def test_text_is_raw_unicode_with_control_characters_escaped() -> None:
    text = 'é😀\u2028\x7f"\\\n\t\b\f\r\x00\x1f'
    assert canonical_json(text) == '"é😀\u2028\x7f\\"\\\\\\n\\t\\b\\f\\r\\u0000\\u001f"'


def test_unpaired_surrogates_are_escaped_and_split_pairs_are_joined() -> None:
    assert canonical_json("a\ud800b\udfff") == '"a\\ud800b\\udfff"'
    assert canonical_json("\ud83d\ude00") == '"😀"'


def test_scalars() -> None:
    assert [canonical_json(v) for v in (None, True, False, "")] == ["null", "true", "false", '""']


class _Opaque:
    pass


def _cyclic() -> Any:
    items: list[Any] = []
    items.append({"self": items})
    return items


@pytest.mark.parametrize(
    ("value", "path"),
    [
        (math.nan, "$"),
        ({"a": [1, math.inf]}, "$['a'][1]"),
        ([-math.inf], "$[0]"),
        ({"a": 2**1100}, "$['a']"),
        ({"a": {1, 2}}, "$['a']"),
        ([_Opaque()], "$[0]"),
        ({1: "x"}, "$[1]"),
        ({"\ud83d\ude00": 1, "\U0001f600": 2}, "$"),
        (_cyclic(), "$[0]['self']"),
    ],
)
def test_non_json_values_raise_a_typed_error_naming_the_path(value: Any, path: str) -> None:
    with pytest.raises(NotJSONError) as raised:
        canonical_json(value)
    assert raised.value.path == path
    assert isinstance(raised.value, PausepointError)


def test_shared_but_acyclic_references_are_fine() -> None:
    shared = {"x": 1}
    assert canonical_json([shared, shared]) == '[{"x":1},{"x":1}]'


def test_digest_is_prefixed_lowercase_sha256_of_utf8() -> None:
    text = '{"a":"é😀"}'
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert digest(text) == f"sha256:{expected}"


def test_digest_refuses_non_text() -> None:
    with pytest.raises(TypeError, match="canonical_json"):
        digest({"a": 1})  # type: ignore[arg-type]
