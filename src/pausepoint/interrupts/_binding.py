"""The resume binding TanStack AI reads from an AG-UI ``Interrupt``'s metadata.

A binding says which paused run an interrupt belongs to and which schemas its answer was
promised against. Readers return ``None`` for anything they do not fully understand,
which the client shows as an unbound interrupt that nobody can answer from here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final, Literal, NotRequired, TypedDict

from pausepoint.errors import InterruptWireError
from pausepoint.interrupts._dates import js_date_parses

__all__ = [
    "BINDING_METADATA_KEY",
    "BINDING_VERSION",
    "ClientToolExecutionBinding",
    "GenericBinding",
    "InterruptBinding",
    "InterruptWireError",
    "ToolApprovalBinding",
    "read_binding",
    "with_binding",
    "without_binding",
]

BINDING_METADATA_KEY: Final = "tanstack:interruptBinding"
"""The ``Interrupt.metadata`` key the binding travels under."""

BINDING_VERSION: Final = 1
"""The binding wire version; readers refuse any other ``v``."""


class _BindingBase(TypedDict):
    v: Literal[1]
    interruptId: str
    interruptedRunId: str
    generation: int
    expiresAt: NotRequired[str]


class ToolApprovalBinding(_BindingBase):
    """Binding of a tool call waiting for approve / reject."""

    kind: Literal["tool-approval"]
    toolName: str
    toolCallId: str
    originalArgs: NotRequired[Any]
    inputSchemaHash: str
    approvalSchemaHash: str
    responseSchemaHash: str


class ClientToolExecutionBinding(_BindingBase):
    """Binding of a tool call waiting for its result from the browser."""

    kind: Literal["client-tool-execution"]
    toolName: str
    toolCallId: str
    outputSchemaHash: str
    responseSchemaHash: str


class GenericBinding(_BindingBase):
    """Binding of a pause asking for any answer, optionally checked against a schema."""

    kind: Literal["generic"]
    responseSchemaHash: NotRequired[str]
    definitionId: NotRequired[str]
    key: NotRequired[str]
    batchIndex: NotRequired[int]
    payloadSchemaHash: NotRequired[str]


InterruptBinding = ToolApprovalBinding | ClientToolExecutionBinding | GenericBinding


def with_binding(descriptor: Mapping[str, Any], binding: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy of ``descriptor`` carrying ``binding`` under ``BINDING_METADATA_KEY``.

    Other metadata keys are kept; the binding's ``v`` is forced to ``BINDING_VERSION``
    and its ``interruptId`` to the descriptor's ``id``. Neither input is modified.
    Metadata that is not an object is replaced.

    >>> bound = with_binding(
    ...     {"id": "ask-1", "reason": "confirmation", "metadata": {"team": "ops"}},
    ...     {"kind": "generic", "interruptedRunId": "run-1", "generation": 0},
    ... )
    >>> bound["metadata"]["team"], bound["metadata"][BINDING_METADATA_KEY]["interruptId"]
    ('ops', 'ask-1')

    Raises:
        InterruptWireError: the descriptor has no string ``id`` to bind to.
    """
    interrupt_id = descriptor.get("id")
    if not isinstance(interrupt_id, str):
        raise InterruptWireError(
            f"An interrupt needs a string 'id' before a binding can be attached, got "
            f"{interrupt_id!r}. Give the interrupt its id first."
        )
    metadata = descriptor.get("metadata")
    kept = dict(metadata) if isinstance(metadata, Mapping) else {}
    kept[BINDING_METADATA_KEY] = {**binding, "v": BINDING_VERSION, "interruptId": interrupt_id}
    return {**descriptor, "metadata": kept}


def without_binding(descriptor: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy of ``descriptor`` whose metadata no longer has the binding key.

    >>> without_binding({"id": "a", "metadata": {BINDING_METADATA_KEY: {}, "x": 1}})
    {'id': 'a', 'metadata': {'x': 1}}
    """
    metadata = descriptor.get("metadata")
    if not isinstance(metadata, Mapping) or BINDING_METADATA_KEY not in metadata:
        return dict(descriptor)
    kept = {key: value for key, value in metadata.items() if key != BINDING_METADATA_KEY}
    return {**descriptor, "metadata": kept}


def read_binding(descriptor: Mapping[str, Any]) -> InterruptBinding | None:
    """Read the binding off an interrupt descriptor exactly as TanStack AI does.

    Returns the normalised binding (only the fields the kind defines), or ``None`` when
    the interrupt is not resumable here: no binding, another version, a wrong id, a
    missing or malformed field. Never raises.

    >>> read_binding({"id": "a", "reason": "confirmation"}) is None
    True
    >>> read_binding({"id": "a", "metadata": {BINDING_METADATA_KEY: {
    ...     "kind": "generic", "interruptId": "a", "interruptedRunId": "r", "generation": 0,
    ... }}})
    {'v': 1, 'kind': 'generic', 'interruptId': 'a', 'interruptedRunId': 'r', 'generation': 0}
    """
    if not isinstance(descriptor, Mapping):
        return None
    metadata = descriptor.get("metadata")
    raw = metadata.get(BINDING_METADATA_KEY) if isinstance(metadata, Mapping) else None
    if not isinstance(raw, Mapping):
        return None
    interrupt_id = _text(raw, "interruptId")
    if not interrupt_id or interrupt_id != descriptor.get("id"):
        return None
    if "v" in raw and not _is_number(raw["v"], BINDING_VERSION):
        return None
    interrupted_run_id = _text(raw, "interruptedRunId")
    generation = _whole_number(raw.get("generation"))
    if not interrupted_run_id or generation is None:
        return None
    response_schema_hash = _text(raw, "responseSchemaHash")
    expires_at = _text(raw, "expiresAt")
    if response_schema_hash == "" or (expires_at is not None and not js_date_parses(expires_at)):
        return None

    kind = raw.get("kind")
    if kind == "generic":
        return _generic(raw, interrupt_id, interrupted_run_id, generation, expires_at)
    tool_name = _text(raw, "toolName")
    tool_call_id = _text(raw, "toolCallId")
    if not response_schema_hash or not tool_name or not tool_call_id:
        return None
    if kind == "client-tool-execution":
        output_schema_hash = _text(raw, "outputSchemaHash")
        if not output_schema_hash:
            return None
        client: ClientToolExecutionBinding = {
            "v": BINDING_VERSION,
            "kind": kind,
            "interruptId": interrupt_id,
            "toolName": tool_name,
            "toolCallId": tool_call_id,
            "outputSchemaHash": output_schema_hash,
            "responseSchemaHash": response_schema_hash,
            "interruptedRunId": interrupted_run_id,
            "generation": generation,
        }
        if expires_at:
            client["expiresAt"] = expires_at
        return client
    if kind == "tool-approval":
        input_schema_hash = _text(raw, "inputSchemaHash")
        approval_schema_hash = _text(raw, "approvalSchemaHash")
        if not input_schema_hash or not approval_schema_hash:
            return None
        approval: ToolApprovalBinding = {
            "v": BINDING_VERSION,
            "kind": kind,
            "interruptId": interrupt_id,
            "toolName": tool_name,
            "toolCallId": tool_call_id,
            "inputSchemaHash": input_schema_hash,
            "approvalSchemaHash": approval_schema_hash,
            "responseSchemaHash": response_schema_hash,
            "interruptedRunId": interrupted_run_id,
            "generation": generation,
        }
        # TanStack copies originalArgs without checking it, so a missing one stays missing.
        if "originalArgs" in raw:
            approval["originalArgs"] = raw["originalArgs"]
        if expires_at:
            approval["expiresAt"] = expires_at
        return approval
    return None


def _generic(
    raw: Mapping[str, Any],
    interrupt_id: str,
    interrupted_run_id: str,
    generation: int,
    expires_at: str | None,
) -> GenericBinding | None:
    definition_id = _text(raw, "definitionId")
    key = _text(raw, "key")
    payload_schema_hash = _text(raw, "payloadSchemaHash")
    # A JSON null batchIndex counts as present: only a missing key means "not first-party".
    first_party = (
        definition_id is not None
        or key is not None
        or "batchIndex" in raw
        or payload_schema_hash is not None
    )
    batch_index = _whole_number(raw.get("batchIndex"))
    if first_party and (not definition_id or not key or batch_index is None):
        return None
    binding: GenericBinding = {
        "v": BINDING_VERSION,
        "kind": "generic",
        "interruptId": interrupt_id,
        "interruptedRunId": interrupted_run_id,
        "generation": generation,
    }
    response_schema_hash = _text(raw, "responseSchemaHash")
    if response_schema_hash:
        binding["responseSchemaHash"] = response_schema_hash
    if expires_at:
        binding["expiresAt"] = expires_at
    if definition_id and key and batch_index is not None:
        binding["definitionId"] = definition_id
        binding["key"] = key
        binding["batchIndex"] = batch_index
    if payload_schema_hash:
        binding["payloadSchemaHash"] = payload_schema_hash
    return binding


def _text(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    return value if isinstance(value, str) else None


def _is_number(value: object, expected: int) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == expected


def _whole_number(value: object) -> int | None:
    """The value as an int when JavaScript sees an integer ≥ 0 there, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        try:
            value = float(value)
        except OverflowError:  # JSON.parse reads such a number as Infinity
            return None
    if not math.isfinite(value) or not value.is_integer() or value < 0:
        return None
    return int(value)
