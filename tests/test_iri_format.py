"""The ``iri`` and ``iri-reference`` formats: checked in time that grows with the text, and
agreeing with rfc3987-syntax (the parser of RFC 3987's grammar jsonschema uses) on values
short enough for that parser to check. Beyond the first 65,536 code points that parser
and on IP literals that parser refuses what the RFC allows (an emoji is a ucschar;
``http://[::1]`` is an IRI), so those are checked against the RFC instead."""

from __future__ import annotations

import itertools

import jsonschema._format
import pytest

from pausepoint._formats import FORMAT_CHECKER
from pausepoint._response_schema import answer_validator

rfc3987_syntax = pytest.importorskip("rfc3987_syntax")

PIECES = [
    "http:",
    "//",
    "例え.テスト",
    "a",
    "/",
    "パス",
    "?",
    "#",
    "\ue000",  # private use: in a query only
    "\u0085",  # a C1 control: nowhere
    " ",
    "%41",
    "\ufffe",  # not a character
    "Ῥόδος",
]
# Every value of up to three pieces.
VALUES = sorted(
    {"".join(parts) for n in range(1, 4) for parts in itertools.permutations(PIECES, n)}
)


@pytest.mark.parametrize(("name", "rule"), [("iri", "iri"), ("iri-reference", "iri_reference")])
def test_the_kernels_iri_check_agrees_with_the_grammar_of_rfc_3987(name: str, rule: str) -> None:
    disagreements = [
        value
        for value in VALUES
        if FORMAT_CHECKER.conforms(value, name) != rfc3987_syntax.is_valid_syntax(rule, value)
    ]
    assert len(VALUES) > 2_000
    assert disagreements == []


def test_a_long_iri_in_an_answer_is_checked_and_a_long_bad_one_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # rfc3987-syntax's Earley parser took seconds on a few thousand characters and over
    # two minutes on these 200,000: the kernel's check never calls it.
    def parse(rule: str, value: str) -> bool:
        raise AssertionError(f"the {rule} was given to rfc3987-syntax's parser")

    monkeypatch.setattr(jsonschema._format, "_rfc3987_is_valid_syntax", parse)
    monkeypatch.setattr(rfc3987_syntax, "is_valid_syntax", parse)
    schema = {
        "type": "object",
        "properties": {"link": {"type": "string", "format": "iri"}},
        "required": ["link"],
    }
    validator = answer_validator(schema)
    good = "https://例え.テスト/" + "パス/" * 50_000
    assert list(validator.iter_errors({"link": good})) == []
    errors = list(validator.iter_errors({"link": good + "\u0085"}))
    assert [error.validator for error in errors] == ["format"]


@pytest.mark.parametrize(
    ("character", "allowed"),
    [
        ("\U0001f600", True),  # in %x10000-1FFFD
        ("\U0001fffe", False),  # a plane's last two code points are not characters
        ("\U000e1000", True),
        ("\U000e0001", False),  # tags, before %xE1000
        ("\U00100000", False),  # private use beyond the query
    ],
)
def test_characters_beyond_the_first_plane_are_allowed_as_rfc_3987_lists_them(
    character: str, allowed: bool
) -> None:
    assert FORMAT_CHECKER.conforms(f"https://example.org/{character}", "iri") is allowed
    assert FORMAT_CHECKER.conforms(character, "iri-reference") is allowed
    assert FORMAT_CHECKER.conforms(f"https://example.org/?{character}", "iri") is (
        allowed or character == "\U00100000"
    )


def test_an_ip_literal_is_a_host_of_an_iri() -> None:
    assert FORMAT_CHECKER.conforms("http://[::1]/パス", "iri")
    assert FORMAT_CHECKER.conforms("//[2001:db8::7]/c=GB?objectClass?one", "iri-reference")
    assert not FORMAT_CHECKER.conforms("http://[::1/", "iri")
