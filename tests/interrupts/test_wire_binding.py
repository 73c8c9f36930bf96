"""The binding reader returns None exactly where TanStack AI's readInterruptBinding does."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.interrupts.binding_cases import BINDINGS, CASES, FIRST_PARTY, ID, Case, descriptor

from pausepoint.interrupts import (
    BINDING_METADATA_KEY,
    BINDING_VERSION,
    InterruptWireError,
    read_binding,
    with_binding,
    without_binding,
)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_reader_accepts_or_rejects_per_rule(case: Case) -> None:
    assert (read_binding(case.descriptor) is not None) is case.bound


def test_valid_tool_approval_binding_reads_back_whole() -> None:
    assert read_binding(descriptor("tool-approval")) == BINDINGS["tool-approval"]


def test_missing_version_reads_as_version_one() -> None:
    binding = read_binding(descriptor(v=None) | descriptor())
    assert binding is not None
    assert binding["v"] == BINDING_VERSION


def test_reader_keeps_only_the_fields_of_the_kind() -> None:
    raw = descriptor(
        "client-tool-execution",
        extra="dropped",
        originalArgs={"not": "kept"},
        expiresAt="2030-01-01T00:00:00Z",
    )
    assert read_binding(raw) == {
        **BINDINGS["client-tool-execution"],
        "expiresAt": "2030-01-01T00:00:00Z",
    }


def test_reader_normalises_whole_numbers_to_int() -> None:
    binding = read_binding(descriptor(**{**FIRST_PARTY, "batchIndex": 2.0}, generation=3.0))
    assert binding is not None
    assert binding["generation"] == 3
    assert isinstance(binding["generation"], int)
    assert binding.get("batchIndex") == 2
    assert isinstance(binding.get("batchIndex"), int)


def test_reader_drops_an_empty_payload_schema_hash_but_keeps_first_party_fields() -> None:
    binding = read_binding(descriptor(**FIRST_PARTY, payloadSchemaHash=""))
    assert binding == {**BINDINGS["generic"], **FIRST_PARTY}


def test_non_string_expires_at_is_ignored_not_rejected() -> None:
    binding = read_binding(descriptor(expiresAt=12))
    assert binding is not None
    assert "expiresAt" not in binding


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


@given(
    st.dictionaries(
        st.sampled_from(["id", "metadata", "reason"]) | st.text(max_size=3), json_values
    ),
    st.dictionaries(st.sampled_from(sorted(BINDINGS["tool-approval"])), json_values),
)
def test_reader_never_raises(outer: dict[str, Any], binding_fields: dict[str, Any]) -> None:
    read_binding(outer)
    read_binding({"id": ID, "metadata": {BINDING_METADATA_KEY: binding_fields}})


def test_reader_never_raises_on_objects_that_are_not_json() -> None:
    assert read_binding({"id": object(), "metadata": {BINDING_METADATA_KEY: {1: 2}}}) is None
    assert read_binding("not a dict") is None  # type: ignore[arg-type]


def test_attaching_keeps_other_metadata_and_forces_version_and_id() -> None:
    original = {"id": "ask-1", "reason": "confirmation", "metadata": {"team": "ops"}}
    binding = {
        "v": 7,
        "kind": "generic",
        "interruptId": "someone-else",
        "interruptedRunId": "run-1",
        "generation": 0,
    }
    before = copy.deepcopy((original, binding))
    bound = with_binding(original, binding)
    assert (original, binding) == before
    assert bound["reason"] == "confirmation"
    assert bound["metadata"]["team"] == "ops"
    assert bound["metadata"][BINDING_METADATA_KEY] == {
        **binding,
        "v": BINDING_VERSION,
        "interruptId": "ask-1",
    }
    assert read_binding(bound) is not None


def test_attaching_replaces_a_previous_binding_and_metadata_that_is_not_an_object() -> None:
    bound = with_binding(descriptor("tool-approval"), BINDINGS["generic"])
    assert bound["metadata"][BINDING_METADATA_KEY]["kind"] == "generic"
    assert with_binding({"id": "x", "metadata": None}, {})["metadata"] == {
        BINDING_METADATA_KEY: {"v": 1, "interruptId": "x"}
    }


def test_attaching_to_an_interrupt_without_id_is_refused() -> None:
    with pytest.raises(InterruptWireError, match="'id'"):
        with_binding({"reason": "confirmation"}, BINDINGS["generic"])


def test_detaching_removes_only_the_binding_and_leaves_the_input_alone() -> None:
    original = descriptor()
    original["metadata"]["team"] = "ops"
    before = copy.deepcopy(original)
    detached = without_binding(original)
    assert original == before
    assert detached == {**original, "metadata": {"team": "ops"}}
    assert read_binding(detached) is None


def test_detaching_an_unbound_interrupt_returns_an_equal_copy() -> None:
    unbound = {"id": "x", "reason": "input_required"}
    detached = without_binding(unbound)
    assert detached == unbound
    assert detached is not unbound
