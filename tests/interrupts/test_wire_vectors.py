"""The public test vectors of INTERRUPTS-WIRE.md, checked against the npm package."""

from __future__ import annotations

from typing import Any

from pausepoint.interrupts import (
    approval_response_schema,
    approval_schema_hash,
    canonical_json,
    digest,
    fingerprint,
    schema_hash,
)

SPEED_SCHEMA = {
    "type": "object",
    "properties": {"speed": {"type": "string"}},
    "required": ["speed"],
}
SPEED_CANONICAL = '{"properties":{"speed":{"type":"string"}},"required":["speed"],"type":"object"}'
SPEED_HASH = "sha256:cafbc840d235cbba024ded316c66076f607838363eea2bf7ee8d42bd1cda7377"
UNDEFINED_HASH = "sha256:eb045d78d273107348b0300c01d29b7552d622abbc6faf81b3ec55359aa9950c"
NO_BRANCHES_HASH = "sha256:22f76d9a1c618a3cfaa891208a14f6e5e6ab1be4ff1c38cc8a8cd1e8fd0c0e4e"
DEFAULT_APPROVAL_RESPONSE_HASH = (
    "sha256:ed82fe780755de70bdc8e477ffff9696d7dd16dd9b328a62a9d2d85525ba6b96"
)
RESOLUTIONS: list[dict[str, Any]] = [
    {"interruptId": "b", "status": "cancelled"},
    {"interruptId": "a", "status": "resolved", "payload": {"z": 1, "a": 2}},
]
RESOLUTIONS_FINGERPRINT = "sha256:3b5709ba96102d861b660ff95873343debc2ae5b1356859c31fe0269261bb8b0"


def test_response_schema_canonical_text_and_hash_match_the_vector() -> None:
    assert canonical_json(SPEED_SCHEMA) == SPEED_CANONICAL
    assert digest(SPEED_CANONICAL) == SPEED_HASH
    assert schema_hash(SPEED_SCHEMA) == SPEED_HASH


def test_missing_schema_hashes_the_literal_text_undefined() -> None:
    assert digest("undefined") == UNDEFINED_HASH
    assert schema_hash(None) == UNDEFINED_HASH


def test_approval_schema_hash_without_branch_schemas_matches_the_vector() -> None:
    assert canonical_json({"approve": None, "reject": None}) == '{"approve":null,"reject":null}'
    assert approval_schema_hash() == NO_BRANCHES_HASH


def test_default_approval_response_schema_hash_matches_the_vector() -> None:
    assert schema_hash(approval_response_schema()) == DEFAULT_APPROVAL_RESPONSE_HASH
    assert schema_hash(approval_response_schema(None)) == DEFAULT_APPROVAL_RESPONSE_HASH


def test_resolution_fingerprint_matches_the_vector() -> None:
    assert fingerprint(RESOLUTIONS) == RESOLUTIONS_FINGERPRINT
