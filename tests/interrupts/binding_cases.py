"""Interrupt descriptors for each binding-reader rule, bound or not per TanStack AI.

Shared by the local rule tests and the node cross-check, so both judge the same inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pausepoint.interrupts import BINDING_METADATA_KEY

ID = "intr-1"
DROP = object()
"""Marks a binding field to remove in `descriptor`."""

BINDINGS: dict[str, dict[str, Any]] = {
    "tool-approval": {
        "v": 1,
        "kind": "tool-approval",
        "interruptId": ID,
        "interruptedRunId": "run-1",
        "generation": 0,
        "toolName": "transfer",
        "toolCallId": "call-1",
        "originalArgs": {"amount": 10},
        "inputSchemaHash": "sha256:in",
        "approvalSchemaHash": "sha256:approval",
        "responseSchemaHash": "sha256:response",
    },
    "client-tool-execution": {
        "v": 1,
        "kind": "client-tool-execution",
        "interruptId": ID,
        "interruptedRunId": "run-1",
        "generation": 0,
        "toolName": "pick_file",
        "toolCallId": "call-2",
        "outputSchemaHash": "sha256:out",
        "responseSchemaHash": "sha256:response",
    },
    "generic": {
        "v": 1,
        "kind": "generic",
        "interruptId": ID,
        "interruptedRunId": "run-1",
        "generation": 0,
    },
}
FIRST_PARTY = {"definitionId": "ask-speed", "key": "speed", "batchIndex": 0}
TOOL_FIELDS = {
    "tool-approval": ["toolName", "toolCallId", "inputSchemaHash", "approvalSchemaHash"],
    "client-tool-execution": ["toolName", "toolCallId", "outputSchemaHash"],
}


def descriptor(base: str = "generic", /, **changes: Any) -> dict[str, Any]:
    """A bound descriptor of kind `base`, its binding fields changed (or dropped: DROP)."""
    binding = {**BINDINGS[base], **changes}
    binding = {key: value for key, value in binding.items() if value is not DROP}
    return {"id": ID, "reason": "confirmation", "metadata": {BINDING_METADATA_KEY: binding}}


@dataclass(frozen=True)
class Case:
    """A descriptor and whether TanStack AI reads a binding from it."""

    rule: str
    descriptor: dict[str, Any]
    bound: bool

    def __str__(self) -> str:
        return self.rule


def _with_metadata(metadata: Any) -> dict[str, Any]:
    return {"id": ID, "reason": "confirmation", "metadata": metadata}


CASES: list[Case] = [
    *(Case(f"valid {kind}", descriptor(kind), True) for kind in BINDINGS),
    Case("metadata object with other keys", descriptor(), True),
    Case("no metadata", {"id": ID, "reason": "confirmation"}, False),
    Case("metadata null", _with_metadata(None), False),
    Case("metadata array", _with_metadata([BINDINGS["generic"]]), False),
    Case("metadata string", _with_metadata("binding"), False),
    Case("binding key missing", _with_metadata({"other": {}}), False),
    Case("binding is an array", _with_metadata({BINDING_METADATA_KEY: [1]}), False),
    Case("binding is a string", _with_metadata({BINDING_METADATA_KEY: "x"}), False),
    Case("binding is null", _with_metadata({BINDING_METADATA_KEY: None}), False),
    Case("interruptId matches", descriptor(interruptId=ID), True),
    Case("interruptId differs", descriptor(interruptId="intr-2"), False),
    Case("interruptId missing", descriptor(interruptId=DROP), False),
    Case("interruptId not a string", descriptor(interruptId=1), False),
    Case(
        "interruptId and id both empty",
        {**descriptor(interruptId=""), "id": ""},
        False,
    ),
    Case("v is 1", descriptor(v=1), True),
    Case("v is 1.0", descriptor(v=1.0), True),
    Case("v missing reads as 1", descriptor(v=DROP), True),
    Case("v is 2", descriptor(v=2), False),
    Case("v is 0", descriptor(v=0), False),
    Case("v is the string 1", descriptor(v="1"), False),
    Case("v is true", descriptor(v=True), False),
    Case("v is null", descriptor(v=None), False),
    Case("generic responseSchemaHash set", descriptor(responseSchemaHash="sha256:r"), True),
    Case("generic responseSchemaHash absent", descriptor(responseSchemaHash=DROP), True),
    Case("generic responseSchemaHash empty", descriptor(responseSchemaHash=""), False),
    Case("generic responseSchemaHash not a string", descriptor(responseSchemaHash=5), True),
    Case(
        "tool responseSchemaHash empty",
        descriptor("tool-approval", responseSchemaHash=""),
        False,
    ),
    Case(
        "tool responseSchemaHash missing",
        descriptor("client-tool-execution", responseSchemaHash=DROP),
        False,
    ),
    Case("expiresAt ISO instant", descriptor(expiresAt="2030-01-31T12:00:00.000Z"), True),
    Case("expiresAt date only", descriptor(expiresAt="2030-01-31"), True),
    Case("expiresAt with offset", descriptor(expiresAt="2030-01-31T12:00:00+02:00"), True),
    Case("expiresAt past is still a date", descriptor(expiresAt="1999-12-31T23:59:59Z"), True),
    Case(
        "expiresAt as toUTCString",
        descriptor("tool-approval", expiresAt="Thu, 31 Jan 2030 12:00:00 GMT"),
        True,
    ),
    Case("expiresAt not a date", descriptor(expiresAt="soon"), False),
    Case("expiresAt empty", descriptor(expiresAt=""), False),
    Case("expiresAt month 13", descriptor(expiresAt="2030-13-01T00:00:00Z"), False),
    Case("expiresAt beyond the JS range", descriptor(expiresAt="+275760-09-13T00:00:01Z"), False),
    Case(
        "expiresAt not a string is ignored",
        descriptor("client-tool-execution", expiresAt=1893456000000),
        True,
    ),
    Case("kind unknown", descriptor(kind="workflow-approval"), False),
    Case("kind missing", descriptor(kind=DROP), False),
    Case(
        "kind unknown with every tool field",
        descriptor("tool-approval", kind="tool-approval-v2"),
        False,
    ),
    *(
        Case(f"{kind} without {field}", descriptor(kind, **{field: DROP}), False)
        for kind, fields in TOOL_FIELDS.items()
        for field in fields
    ),
    *(
        Case(f"{kind} with empty {field}", descriptor(kind, **{field: ""}), False)
        for kind, fields in TOOL_FIELDS.items()
        for field in fields
    ),
    Case(
        "tool-approval without originalArgs", descriptor("tool-approval", originalArgs=DROP), True
    ),
    Case(
        "tool-approval with null originalArgs", descriptor("tool-approval", originalArgs=None), True
    ),
    Case("first-party generic complete", descriptor(**FIRST_PARTY), True),
    Case(
        "first-party generic with payloadSchemaHash",
        descriptor(**FIRST_PARTY, payloadSchemaHash="sha256:p"),
        True,
    ),
    Case(
        "first-party generic with empty payloadSchemaHash",
        descriptor(**FIRST_PARTY, payloadSchemaHash=""),
        True,
    ),
    *(
        Case(
            f"first-party generic without {field}",
            descriptor(**{**FIRST_PARTY, field: DROP}),
            False,
        )
        for field in FIRST_PARTY
    ),
    Case(
        "first-party generic empty definitionId",
        descriptor(**{**FIRST_PARTY, "definitionId": ""}),
        False,
    ),
    Case(
        "first-party generic batchIndex null",
        descriptor(**{**FIRST_PARTY, "batchIndex": None}),
        False,
    ),
    Case(
        "first-party generic batchIndex negative",
        descriptor(**{**FIRST_PARTY, "batchIndex": -1}),
        False,
    ),
    Case(
        "first-party generic batchIndex 1.5",
        descriptor(**{**FIRST_PARTY, "batchIndex": 1.5}),
        False,
    ),
    Case(
        "first-party generic batchIndex 2.0", descriptor(**{**FIRST_PARTY, "batchIndex": 2.0}), True
    ),
    Case(
        "first-party generic batchIndex true",
        descriptor(**{**FIRST_PARTY, "batchIndex": True}),
        False,
    ),
    Case("generic with only batchIndex", descriptor(batchIndex=0), False),
    Case("generic with only payloadSchemaHash", descriptor(payloadSchemaHash="sha256:p"), False),
    Case("generic with non-string definitionId only", descriptor(definitionId=7), True),
    Case("interruptedRunId set", descriptor(interruptedRunId="run-9"), True),
    Case("interruptedRunId empty", descriptor(interruptedRunId=""), False),
    Case("interruptedRunId missing", descriptor(interruptedRunId=DROP), False),
    Case("interruptedRunId not a string", descriptor(interruptedRunId=9), False),
    Case("generation 0", descriptor(generation=0), True),
    Case("generation 3", descriptor("tool-approval", generation=3), True),
    Case("generation 2.0", descriptor(generation=2.0), True),
    Case("generation -0.0", descriptor(generation=-0.0), True),
    Case("generation beyond 2**53", descriptor(generation=2**60 + 1), True),
    Case("generation negative", descriptor(generation=-1), False),
    Case("generation 1.5", descriptor(generation=1.5), False),
    Case("generation true", descriptor(generation=True), False),
    Case("generation false", descriptor(generation=False), False),
    Case("generation string", descriptor(generation="0"), False),
    Case("generation null", descriptor(generation=None), False),
    Case("generation missing", descriptor(generation=DROP), False),
    Case("generation too large for a double", descriptor(generation=2**1100), False),
]
