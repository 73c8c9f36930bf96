"""Our wire layer agrees with the published @tanstack/ai package, run by node.

Every check sends one batch of inputs to ``tests/node/tanstack_wire.mjs`` and compares
its answers with ours. Skipped without node and npm, required when CI=true.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.interrupts.binding_cases import BINDINGS, CASES, DROP, FIRST_PARTY, ID, descriptor
from tests.interrupts.tanstack_node import TanStackNode

from pausepoint.errors import NotJSONError
from pausepoint.interrupts import (
    BINDING_METADATA_KEY,
    approval_response_schema,
    approval_schema_hash,
    canonical_json,
    digest,
    fingerprint,
    read_binding,
    schema_hash,
    with_binding,
    without_binding,
)
from pausepoint.interrupts._dates import js_date_parses

pytestmark = pytest.mark.node

PINNED_VERSION = "0.58.0"
BATCHES = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

characters = (
    st.characters(exclude_categories=())
    | st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=())
    | st.characters(min_codepoint=0x10000)
    | st.sampled_from(list('\x00\x08\x1f\x7f"\\/\u2028\u2029\ufeff\uffff'))
)
texts = st.text(characters, max_size=8)
edge_keys = st.sampled_from(
    ["", "__proto__", "constructor", "10", "9", "a", "B", "é", "e\u0301", "\ud800", "\udfff"]
) | st.sampled_from(["\ud83d", "\U0001f600", "\uffff", "\ue000", "\x00", "\u2028"])
numbers = (
    st.integers()
    | st.integers(min_value=2**53 - 3, max_value=2**90)
    | st.integers(min_value=-(2**90), max_value=-(2**53) + 3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e21, 1e20, 1e-7, 1e-6, -0.0, 5e-324, 1.7976931348623157e308, 0.1 + 0.2])
)


def _distinct_in_utf16(value: dict[str, Any]) -> bool:
    """JavaScript cannot hold two keys that are the same UTF-16 text."""
    encoded = {key.encode("utf-16-le", "surrogatepass") for key in value}
    return len(encoded) == len(value)


json_values = st.recursive(
    st.none() | st.booleans() | numbers | texts,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(texts | edge_keys, inner, max_size=4).filter(_distinct_in_utf16)
    ),
    max_leaves=12,
)


def test_the_pinned_package_version_is_installed(tanstack: TanStackNode) -> None:
    assert tanstack.version == PINNED_VERSION


def test_public_vectors_hold_in_the_package(tanstack: TanStackNode) -> None:
    speed = {
        "type": "object",
        "properties": {"speed": {"type": "string"}},
        "required": ["speed"],
    }
    resolutions: list[dict[str, Any]] = [
        {"interruptId": "b", "status": "cancelled"},
        {"interruptId": "a", "status": "resolved", "payload": {"z": 1, "a": 2}},
    ]
    theirs = tanstack.values(
        [
            {"op": "canonical", "value": speed},
            {"op": "digest", "text": canonical_json(speed)},
            {"op": "schemaHash"},
            {"op": "approvalSchema"},
            {"op": "fingerprint", "resume": resolutions},
        ]
    )
    assert theirs[0] == canonical_json(speed)
    assert theirs[1] == schema_hash(speed)
    assert theirs[2] == schema_hash(None)
    assert theirs[3]["approvalSchemaHash"] == approval_schema_hash()
    assert theirs[3]["responseSchemaHash"] == schema_hash(approval_response_schema())
    assert theirs[4]["fingerprint"] == fingerprint(resolutions)


@BATCHES
@given(st.lists(json_values, min_size=30, max_size=60))
def test_canonical_json_and_digest_match_for_any_json(
    tanstack: TanStackNode, values: list[Any]
) -> None:
    ours = [canonical_json(value) for value in values]
    theirs = tanstack.values(
        [{"op": "canonical", "value": value} for value in values]
        + [{"op": "digest", "text": text} for text in ours]
    )
    assert theirs[: len(values)] == ours
    assert theirs[len(values) :] == [digest(text) for text in ours]


def test_numbers_too_large_for_javascript_fail_in_both(tanstack: TanStackNode) -> None:
    value = {"a": [1, 2**1100]}
    [response] = tanstack.call([{"op": "canonical", "value": value}])
    assert not response.ok
    with pytest.raises(NotJSONError):
        canonical_json(value)


def test_binding_reader_agrees_on_every_rule_case(tanstack: TanStackNode) -> None:
    theirs = tanstack.read_bindings([case.descriptor for case in CASES])
    for case, their_binding in zip(CASES, theirs, strict=True):
        assert (their_binding is not None) is case.bound, case.rule
        assert _same(read_binding(case.descriptor), their_binding), case.rule


interesting = st.sampled_from(
    [DROP, DROP, "", "x", "sha256:h", 0, -1, 1, 1.5, 2.0, True, None, [], {}, ID]
) | st.sampled_from(
    ["2030-01-31T00:00:00Z", "soon", "generic", "tool-approval", "client-tool-execution"]
)
binding_fields = st.sampled_from(
    sorted(
        {field for binding in BINDINGS.values() for field in binding}
        | {*FIRST_PARTY, "expiresAt", "payloadSchemaHash", "other"}
    )
)
mutated_descriptors = st.builds(
    lambda base, changes: descriptor(base, **changes),
    st.sampled_from(sorted(BINDINGS)),
    st.dictionaries(binding_fields, interesting | json_values, max_size=4),
)


@BATCHES
@given(st.lists(mutated_descriptors, min_size=40, max_size=80))
def test_binding_reader_agrees_on_mutated_bindings(
    tanstack: TanStackNode, descriptors: list[dict[str, Any]]
) -> None:
    theirs = tanstack.read_bindings(descriptors)
    # V8's loose legacy date parser accepts texts like "call-2"; those are refused here
    # on purpose (see LOOSE_DATES), so bindings whose expiresAt differs only so are left out.
    expiries = [d["metadata"][BINDING_METADATA_KEY].get("expiresAt") for d in descriptors]
    dates = [e for e in expiries if isinstance(e, str)]
    loose = {
        text
        for text, parses in zip(dates, _date_parses(tanstack, dates), strict=True)
        if parses and not js_date_parses(text)
    }
    disagreements = [
        (raw["metadata"][BINDING_METADATA_KEY], read_binding(raw), their_binding)
        for raw, their_binding, expiry in zip(descriptors, theirs, expiries, strict=True)
        if not (isinstance(expiry, str) and expiry in loose)
        and not _same(read_binding(raw), their_binding)
    ]
    assert not disagreements, "\n".join(map(repr, disagreements))


def test_attaching_and_detaching_agree(tanstack: TanStackNode) -> None:
    # JavaScript spreads array or string metadata into index keys; we replace it instead.
    descriptors = [
        case.descriptor
        for case in CASES
        if isinstance(case.descriptor.get("metadata", {}), dict | None)
    ]
    binding = {**BINDINGS["tool-approval"], "v": 3, "interruptId": "other", "expiresAt": "x"}
    theirs = tanstack.values(
        [{"op": "with", "descriptor": d, "binding": binding} for d in descriptors]
        + [{"op": "without", "descriptor": d} for d in descriptors]
    )
    ours = [with_binding(d, binding) for d in descriptors] + [
        without_binding(d) for d in descriptors
    ]
    for our_descriptor, their_descriptor in zip(ours, theirs, strict=True):
        assert _same(our_descriptor, their_descriptor)


resume_ids = st.text(
    st.characters(min_codepoint=0, max_codepoint=0x7F) | st.sampled_from(list("aAbB_-.09")),
    max_size=6,
)
resume_entries = st.builds(
    lambda interrupt_id, status, payload: (
        {"interruptId": interrupt_id, "status": status}
        | ({} if payload is DROP else {"payload": payload})
    ),
    resume_ids,
    st.sampled_from(["resolved", "cancelled", "other"]),
    st.just(DROP) | json_values,
)


@BATCHES
@given(st.lists(st.lists(resume_entries, max_size=6), min_size=10, max_size=25))
def test_fingerprints_agree_for_ascii_interrupt_ids(
    tanstack: TanStackNode, batches: list[list[dict[str, Any]]]
) -> None:
    theirs = tanstack.values([{"op": "fingerprint", "resume": batch} for batch in batches])
    for batch, their_result in zip(batches, theirs, strict=True):
        assert fingerprint(batch) == their_result["fingerprint"], their_result


def test_approval_schemas_and_hashes_agree(tanstack: TanStackNode) -> None:
    tool_input = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1.0}}}
    note = {"type": "string", "maxLength": 200}
    reason = {"type": "object", "properties": {"why": {"type": "string"}}}
    variants: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({}, {}),
        ({"inputSchema": tool_input}, {"input_schema": tool_input}),
        ({"approvalSchema": {"approve": note}}, {"approve_payload": note}),
        ({"approvalSchema": {"reject": reason}}, {"reject_payload": reason}),
        (
            {"inputSchema": tool_input, "approvalSchema": {"approve": note, "reject": reason}},
            {"input_schema": tool_input, "approve_payload": note, "reject_payload": reason},
        ),
        ({"approvalSchema": note}, {"approve_payload": note, "reject_payload": note}),
    ]
    theirs = tanstack.values([{"op": "approvalSchema", **js} for js, _ in variants])
    for (_, ours), their_result in zip(variants, theirs, strict=True):
        payloads = {k: v for k, v in ours.items() if k != "input_schema"}
        response_schema = approval_response_schema(ours.get("input_schema"), **payloads)
        assert canonical_json(response_schema) == canonical_json(their_result["responseSchema"])
        assert schema_hash(response_schema) == their_result["responseSchemaHash"]
        assert approval_schema_hash(**payloads) == their_result["approvalSchemaHash"]
    schemas: list[dict[str, Any]] = [tool_input, note, reason]
    hashes = tanstack.values([{"op": "schemaHash", "schema": s} for s in schemas])
    assert hashes == [schema_hash(s) for s in schemas]


DATE_SHAPES = (
    r"([0-9]{4}|[+-][0-9]{6})(-[0-9]{2}(-[0-9]{2})?)?"
    r"(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,7})?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?"
)
SAMPLE_DATES = [
    "2030-01-31T12:00:00.000Z",
    "2030-02-30",
    "2030-02-32",
    "2030-13-01",
    "2030-01-01T24:00:00Z",
    "2030-01-01T24:00:01Z",
    "2030-01-01T10:00:60Z",
    "2030-01-01T10:00:00.Z",
    "2030-01-01T10:00:00+01",
    "2030-01-01T10:00:00+24:00",
    "+275760-09-13T00:00:00Z",
    "+275760-09-13T00:00:00.001Z",
    "-271821-04-20T00:00:00Z",
    "-271821-04-19T23:59:59Z",
    "-000000-01-01T00:00:00Z",
    "Thu, 31 Jan 2030 12:00:00 GMT",
    "Thu Jan 31 2030 12:00:00 GMT+0100 (Central European Standard Time)",
    "",
    "soon",
    "now",
    "10:00",
    "2030-W01",
    "T10:00",
]
# V8 falls back to a loose legacy parser; these parse there but are refused here.
LOOSE_DATES = [
    "1",
    "2030/01/31",
    "March 7, 2030",
    "2030-1-1",
    " 2030-01-31",
    "hello 2030",
    "call-2",
    "0001-20",
]


def test_expiry_date_parsing_agrees_on_samples(tanstack: TanStackNode) -> None:
    theirs = _date_parses(tanstack, SAMPLE_DATES)
    assert dict(zip(SAMPLE_DATES, theirs, strict=True)) == {
        text: js_date_parses(text) for text in SAMPLE_DATES
    }


@BATCHES
@given(st.lists(st.from_regex(DATE_SHAPES, fullmatch=True), min_size=50, max_size=100))
def test_expiry_dates_accepted_here_parse_in_javascript(
    tanstack: TanStackNode, texts: list[str]
) -> None:
    # Out-of-range fields can still pass V8's legacy parser ("0001-20"), so only this
    # direction holds for arbitrary digits: we never accept what JavaScript refuses.
    theirs = dict(zip(texts, _date_parses(tanstack, texts), strict=True))
    assert [text for text in texts if js_date_parses(text) and not theirs[text]] == []


def _two(low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map(lambda n: f"{n:02d}")


iso_years = st.integers(0, 9999).map(lambda n: f"{n:04d}") | st.integers(-271822, 275761).map(
    lambda n: f"{'-' if n < 0 else '+'}{abs(n):06d}"
).filter(lambda year: year != "-000000")
iso_times = st.tuples(
    _two(0, 23),
    _two(0, 59),
    st.none() | _two(0, 59),
    st.none() | st.integers(0, 9_999_999).map(str),
    st.none()
    | st.just("Z")
    | st.tuples(st.sampled_from("+-"), _two(0, 23), _two(0, 59)).map(
        lambda zone: f"{zone[0]}{zone[1]}:{zone[2]}"
    ),
).map(
    lambda t: (
        f"T{t[0]}:{t[1]}"
        + ("" if t[2] is None else f":{t[2]}" + ("" if t[3] is None else f".{t[3]}"))
        + (t[4] or "")
    )
)
well_formed_dates = st.builds(
    lambda year, month, day, time: (
        year
        + ("" if month is None else f"-{month}" + ("" if day is None else f"-{day}"))
        + (time or "")
    ),
    iso_years,
    st.none() | _two(1, 12),
    st.none() | _two(1, 31),
    st.none() | iso_times,
)


@BATCHES
@given(st.lists(well_formed_dates, min_size=50, max_size=100))
def test_expiry_date_parsing_agrees_on_well_formed_iso_dates(
    tanstack: TanStackNode, texts: list[str]
) -> None:
    assert dict(zip(texts, _date_parses(tanstack, texts), strict=True)) == {
        text: js_date_parses(text) for text in texts
    }


def test_loose_legacy_dates_javascript_accepts_are_refused_here(tanstack: TanStackNode) -> None:
    theirs = _date_parses(tanstack, LOOSE_DATES)
    assert theirs == [True] * len(LOOSE_DATES)
    assert not any(js_date_parses(text) for text in LOOSE_DATES)


def _date_parses(tanstack: TanStackNode, texts: list[str]) -> list[bool]:
    return tanstack.values([{"op": "dateParses", "text": text} for text in texts])


def _same(ours: Any, theirs: Any) -> bool:
    """Equal as JavaScript sees them: compare canonical texts."""
    if ours is None or theirs is None:
        return ours is None and theirs is None
    return canonical_json(ours) == canonical_json(theirs)
