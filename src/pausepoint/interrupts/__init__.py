"""Interrupts on the wire: canonical JSON, digests, and the TanStack AI resume binding.

Everything here is pure and works on plain wire dicts (camelCase keys), so a pending
interrupt rendered as an AG-UI ``Interrupt`` is read as resumable by TanStack AI's client.

>>> from pausepoint.interrupts import read_binding, schema_hash, with_binding
>>> schema = {"type": "object", "properties": {"speed": {"type": "string"}}}
>>> interrupt = with_binding(
...     {"id": "shipping-1", "reason": "confirmation", "responseSchema": schema},
...     {"kind": "generic", "interruptedRunId": "run-7", "generation": 0,
...      "responseSchemaHash": schema_hash(schema)},
... )
>>> read_binding(interrupt)["kind"]
'generic'
"""

from pausepoint.interrupts._binding import (
    BINDING_METADATA_KEY,
    BINDING_VERSION,
    ClientToolExecutionBinding,
    GenericBinding,
    InterruptBinding,
    InterruptWireError,
    ToolApprovalBinding,
    read_binding,
    with_binding,
    without_binding,
)
from pausepoint.interrupts._canonical import canonical_json, digest
from pausepoint.interrupts._fingerprint import fingerprint
from pausepoint.interrupts._kinds import (
    AGUI_REASONS,
    PAYLOAD_METADATA_KEY,
    AguiReason,
    ClassifiedInterrupt,
    InterruptKindName,
    classify,
    to_agui,
)
from pausepoint.interrupts._schemas import (
    approval_response_schema,
    approval_schema_hash,
    schema_hash,
)

__all__ = [
    "AGUI_REASONS",
    "BINDING_METADATA_KEY",
    "BINDING_VERSION",
    "PAYLOAD_METADATA_KEY",
    "AguiReason",
    "ClassifiedInterrupt",
    "ClientToolExecutionBinding",
    "GenericBinding",
    "InterruptBinding",
    "InterruptKindName",
    "InterruptWireError",
    "ToolApprovalBinding",
    "approval_response_schema",
    "approval_schema_hash",
    "canonical_json",
    "classify",
    "digest",
    "fingerprint",
    "read_binding",
    "schema_hash",
    "to_agui",
    "with_binding",
    "without_binding",
]
