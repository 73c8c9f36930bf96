"""Schema hashes a binding carries, so a server can tell when a schema drifted.

A tool-approval interrupt promises an answer shaped by the approval response schema
(approve, optionally with edited arguments, or reject); the binding carries the hash of
that schema, of the tool's input schema, and of the approval branch schemas.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pausepoint.interrupts._canonical import canonical_json, digest

__all__ = ["approval_response_schema", "approval_schema_hash", "schema_hash"]


def schema_hash(schema: Mapping[str, Any] | None) -> str:
    """Digest of a JSON schema's canonical text; ``None`` (no schema) hashes ``undefined``.

    Used for ``responseSchemaHash`` of a raw response schema and for ``inputSchemaHash``
    of a tool, which hashes the literal text ``undefined`` when it has no input schema.

    >>> schema_hash({"type": "object", "properties": {"speed": {"type": "string"}},
    ...              "required": ["speed"]})
    'sha256:cafbc840d235cbba024ded316c66076f607838363eea2bf7ee8d42bd1cda7377'
    >>> schema_hash(None)
    'sha256:eb045d78d273107348b0300c01d29b7552d622abbc6faf81b3ec55359aa9950c'
    """
    return digest("undefined" if schema is None else canonical_json(schema))


def approval_response_schema(
    input_schema: Mapping[str, Any] | None = None,
    *,
    approve_payload: Mapping[str, Any] | None = None,
    reject_payload: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON schema an answer to a tool-approval interrupt must satisfy.

    ``{"oneOf": [approve, reject]}``: each branch requires ``approved`` (``true`` or
    ``false``) and allows nothing else, except ``editedArgs`` (the tool's input schema)
    on approval when the tool has one, and a required ``payload`` when a branch schema
    for it is given.

    >>> approval_response_schema()["oneOf"][1]
    {'type': 'object', 'properties': {'approved': {'const': False}}, 'required': ['approved'], 'additionalProperties': False}
    >>> schema_hash(approval_response_schema())
    'sha256:ed82fe780755de70bdc8e477ffff9696d7dd16dd9b328a62a9d2d85525ba6b96'
    """  # noqa: E501
    return {
        "oneOf": [
            _decision(approved=True, payload=approve_payload, edited_args=input_schema),
            _decision(approved=False, payload=reject_payload, edited_args=None),
        ]
    }


def approval_schema_hash(
    *,
    approve_payload: Mapping[str, Any] | None = None,
    reject_payload: Mapping[str, Any] | None = None,
) -> str:
    """The binding's ``approvalSchemaHash``: digest of the approve / reject branch schemas.

    >>> approval_schema_hash()
    'sha256:22f76d9a1c618a3cfaa891208a14f6e5e6ab1be4ff1c38cc8a8cd1e8fd0c0e4e'
    """
    return digest(canonical_json({"approve": approve_payload, "reject": reject_payload}))


def _decision(
    *,
    approved: bool,
    payload: Mapping[str, Any] | None,
    edited_args: Mapping[str, Any] | None,
) -> dict[str, Any]:
    properties: dict[str, Any] = {"approved": {"const": approved}}
    required = ["approved"]
    if edited_args is not None:
        properties["editedArgs"] = dict(edited_args)
    if payload is not None:
        properties["payload"] = dict(payload)
        required.append("payload")
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
