"""Approval schemas, schema hashes and resolution fingerprints."""

from __future__ import annotations

from typing import Any

import pytest

from pausepoint.interrupts import (
    InterruptWireError,
    approval_response_schema,
    approval_schema_hash,
    canonical_json,
    digest,
    fingerprint,
    schema_hash,
)

INPUT_SCHEMA = {
    "type": "object",
    "properties": {"recipient": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["recipient", "amount"],
}


def test_approval_without_input_schema_allows_only_approved() -> None:
    approve, reject = approval_response_schema()["oneOf"]
    for branch, approved in ((approve, True), (reject, False)):
        assert branch == {
            "type": "object",
            "properties": {"approved": {"const": approved}},
            "required": ["approved"],
            "additionalProperties": False,
        }


def test_input_schema_becomes_edited_args_on_the_approve_branch_only() -> None:
    approve, reject = approval_response_schema(INPUT_SCHEMA)["oneOf"]
    assert approve["properties"]["editedArgs"] == INPUT_SCHEMA
    assert "editedArgs" not in reject["properties"]
    assert approve["required"] == ["approved"]


def test_branch_payload_schemas_are_required_and_hashed() -> None:
    note = {"type": "string"}
    approve, reject = approval_response_schema(reject_payload=note)["oneOf"]
    assert "payload" not in approve["properties"]
    assert reject["properties"]["payload"] == note
    assert reject["required"] == ["approved", "payload"]
    assert approval_schema_hash(reject_payload=note) == digest(
        canonical_json({"approve": None, "reject": note})
    )


def test_schema_hash_changes_when_the_schema_changes() -> None:
    widened = {**INPUT_SCHEMA, "required": ["recipient"]}
    assert schema_hash(INPUT_SCHEMA) != schema_hash(widened)
    assert schema_hash(dict(reversed(INPUT_SCHEMA.items()))) == schema_hash(INPUT_SCHEMA)


def test_approval_response_schema_does_not_share_the_input_schema_object() -> None:
    schema = approval_response_schema(INPUT_SCHEMA)
    schema["oneOf"][0]["properties"]["editedArgs"]["type"] = "array"
    assert INPUT_SCHEMA["type"] == "object"


def test_fingerprint_ignores_the_order_entries_arrive_in() -> None:
    entries: list[dict[str, Any]] = [
        {"interruptId": "b", "status": "resolved", "payload": 1},
        {"interruptId": "a", "status": "cancelled"},
        {"interruptId": "c", "status": "resolved", "payload": {"y": [1.0]}},
    ]
    assert fingerprint(entries) == fingerprint(list(reversed(entries)))


@pytest.mark.parametrize(
    "ordered_ids",
    [
        ["a", "b", "B", "C"],
        ["_x", "-x", ",x", "x"],
        ["~", "$", "0", "9", "a", "Z"],
        ["call_ab", "call_AB", "call_Ac"],
        ["a b", "a_b", "a-b", "ab"],
        ["item-10", "item-9"],
    ],
)
def test_fingerprint_sorts_ids_like_javascript_locale_compare(ordered_ids: list[str]) -> None:
    entries = [{"interruptId": i, "status": "cancelled"} for i in ordered_ids]
    expected = digest(canonical_json(entries))
    assert fingerprint(list(reversed(entries))) == expected


def test_fingerprint_needs_an_interrupt_id_on_every_entry() -> None:
    with pytest.raises(InterruptWireError, match="Resume entry 1"):
        fingerprint([{"interruptId": "a", "status": "cancelled"}, {"status": "cancelled"}])
