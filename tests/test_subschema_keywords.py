"""Every keyword that holds a schema, in every supported draft, is held to the rules a
response schema's root is: its patterns run on RE2 and its `$ref`s stay inside the schema
and point at a schema. What the check at the raise accepts can be answered, and a wrong
answer is refused with `InvalidResolutionError`, never a raw error from the engine."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from pydantic import BaseModel
from tests.helpers import agent_asking, saved_with_schema

from pausepoint import ActionInterrupt, Prompt
from pausepoint._response_schema import check_response_schema
from pausepoint.errors import (
    InvalidResolutionError,
    InvalidResponseSchemaError,
    InvalidTranscriptError,
)
from pausepoint.transcript import InterruptEntry

DRAFT_04 = "http://json-schema.org/draft-04/schema#"
DRAFT_06 = "http://json-schema.org/draft-06/schema#"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"
DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"
DRAFTS = {"04": DRAFT_04, "06": DRAFT_06, "07": DRAFT_07, "2019": DRAFT_2019, "2020": DRAFT_2020}
UP_TO_07 = ("04", "06", "07")
FROM_06 = ("06", "07", "2019", "2020")
FROM_07 = ("07", "2019", "2020")
FROM_2019 = ("2019", "2020")
UP_TO_2019 = ("04", "06", "07", "2019")

LOOK_BEHIND = "(?<=a)b"
WORD = {"type": "string", "pattern": "^[a-z]+$"}


class Slot(NamedTuple):
    """A place for a subschema: the schema around it, the path to it, the drafts that
    have it, and an answer that passes and one that fails when the subschema is WORD."""

    around: Callable[[Any], dict[str, Any]]
    path: str
    drafts: tuple[str, ...]
    good: Any
    bad: Any


SLOTS: dict[str, Slot] = {
    "properties": Slot(
        lambda s: {"properties": {"a": s}},
        "$.properties['a']",
        tuple(DRAFTS),
        {"a": "x"},
        {"a": "X"},
    ),
    "patternProperties": Slot(
        lambda s: {"patternProperties": {"^a": s}},
        "$.patternProperties['^a']",
        tuple(DRAFTS),
        {"ab": "x"},
        {"ab": "X"},
    ),
    "additionalProperties": Slot(
        lambda s: {"properties": {"n": {}}, "additionalProperties": s},
        "$.additionalProperties",
        tuple(DRAFTS),
        {"n": 1, "z": "x"},
        {"n": 1, "z": "X"},
    ),
    "unevaluatedProperties": Slot(
        lambda s: {"properties": {"n": {}}, "unevaluatedProperties": s},
        "$.unevaluatedProperties",
        FROM_2019,
        {"n": 1, "z": "x"},
        {"n": 1, "z": "X"},
    ),
    "propertyNames": Slot(
        lambda s: {"propertyNames": s}, "$.propertyNames", FROM_06, {"abc": 1}, {"ABC": 1}
    ),
    "items": Slot(lambda s: {"items": s}, "$.items", tuple(DRAFTS), ["x", "y"], ["x", "Y"]),
    "items array": Slot(lambda s: {"items": [s]}, "$.items[0]", UP_TO_2019, ["x", 1], ["X", 1]),
    "prefixItems": Slot(
        lambda s: {"prefixItems": [s]}, "$.prefixItems[0]", ("2020",), ["x", 1], ["X", 1]
    ),
    "additionalItems": Slot(
        lambda s: {"items": [{}], "additionalItems": s},
        "$.additionalItems",
        UP_TO_2019,
        [1, "x"],
        [1, "X"],
    ),
    "unevaluatedItems after items": Slot(
        lambda s: {"items": [{}], "unevaluatedItems": s},
        "$.unevaluatedItems",
        ("2019",),
        [1, "x"],
        [1, "X"],
    ),
    "unevaluatedItems after prefixItems": Slot(
        lambda s: {"prefixItems": [{}], "unevaluatedItems": s},
        "$.unevaluatedItems",
        ("2020",),
        [1, "x"],
        [1, "X"],
    ),
    "contains": Slot(lambda s: {"contains": s}, "$.contains", FROM_06, ["X", "x"], ["X", "Y"]),
    "allOf": Slot(lambda s: {"allOf": [{}, s]}, "$.allOf[1]", tuple(DRAFTS), "x", "X"),
    "anyOf": Slot(
        lambda s: {"anyOf": [{"type": "integer"}, s]}, "$.anyOf[1]", tuple(DRAFTS), "x", "X"
    ),
    "oneOf": Slot(lambda s: {"oneOf": [s]}, "$.oneOf[0]", tuple(DRAFTS), "x", "X"),
    "not": Slot(lambda s: {"not": s}, "$.not", tuple(DRAFTS), "X", "x"),
    "if": Slot(lambda s: {"if": s, "then": {"maxLength": 2}}, "$.if", FROM_07, "xy", "xyz"),
    "then": Slot(lambda s: {"if": {"type": "string"}, "then": s}, "$.then", FROM_07, "x", "X"),
    "else": Slot(lambda s: {"if": {"type": "integer"}, "else": s}, "$.else", FROM_07, "x", "X"),
    "dependencies": Slot(
        lambda s: {"dependencies": {"a": {"required": ["b"], "properties": {"b": s}}}},
        "$.dependencies['a'].properties['b']",
        UP_TO_07,
        {"a": 1, "b": "x"},
        {"a": 1, "b": "X"},
    ),
    "dependentSchemas": Slot(
        lambda s: {"dependentSchemas": {"a": {"required": ["b"], "properties": {"b": s}}}},
        "$.dependentSchemas['a'].properties['b']",
        FROM_2019,
        {"a": 1, "b": "x"},
        {"a": 1, "b": "X"},
    ),
}
# Keywords a draft keeps schemas under without applying them to the answer (until a
# `$ref` points there): the rules hold there too.
HOLDERS: dict[str, Slot] = {
    "definitions": Slot(
        lambda s: {"definitions": {"a": s}}, "$.definitions['a']", tuple(DRAFTS), None, None
    ),
    "nested definitions": Slot(
        lambda s: {"definitions": {"a": {"definitions": {"b": s}}}},
        "$.definitions['a'].definitions['b']",
        UP_TO_07,
        None,
        None,
    ),
    "$defs": Slot(lambda s: {"$defs": {"a": s}}, "$.$defs['a']", FROM_2019, None, None),
    "nested $defs": Slot(
        lambda s: {"$defs": {"a": {"$defs": {"b": s}}}},
        "$.$defs['a'].$defs['b']",
        FROM_2019,
        None,
        None,
    ),
    "dependencies (2019-09 on)": Slot(
        lambda s: {"dependencies": {"a": s}}, "$.dependencies['a']", FROM_2019, None, None
    ),
    "contentSchema": Slot(
        lambda s: {"contentMediaType": "application/json", "contentSchema": s},
        "$.contentSchema",
        FROM_2019,
        None,
        None,
    ),
}


def defs(draft: str) -> str:
    return "$defs" if draft in FROM_2019 else "definitions"


def placed(draft: str, slot: Slot, subschema: Any, **root: Any) -> dict[str, Any]:
    return {"$schema": DRAFTS[draft], **root, **slot.around(subschema)}


def every(slots: dict[str, Slot]) -> list[Any]:
    return [
        pytest.param(draft, slot, id=f"{draft}-{name}")
        for name, slot in slots.items()
        for draft in slot.drafts
    ]


def refusal(schema: dict[str, Any]) -> InvalidResponseSchemaError:
    with pytest.raises(InvalidResponseSchemaError) as caught:
        ActionInterrupt("x", response_schema=schema)
    return caught.value


@pytest.mark.parametrize(("draft", "slot"), every(SLOTS | HOLDERS))
def test_a_look_behind_pattern_under_any_keyword_is_refused_at_the_raise(
    draft: str, slot: Slot
) -> None:
    error = refusal(placed(draft, slot, {"type": "string", "pattern": LOOK_BEHIND}))
    assert error.path == f"{slot.path}.pattern"
    assert "lookarounds" in error.reason


@pytest.mark.parametrize(("draft", "slot"), every(SLOTS | HOLDERS))
def test_a_look_behind_pattern_property_under_any_keyword_is_refused_at_the_raise(
    draft: str, slot: Slot
) -> None:
    error = refusal(placed(draft, slot, {"patternProperties": {LOOK_BEHIND: {}}}))
    assert error.path == f"{slot.path}.patternProperties['(?<=a)b']"


@pytest.mark.parametrize(("draft", "slot"), every(SLOTS | HOLDERS))
def test_a_ref_to_nothing_under_any_keyword_is_refused_at_the_raise(draft: str, slot: Slot) -> None:
    error = refusal(placed(draft, slot, {"$ref": f"#/{defs(draft)}/Missing"}))
    assert error.path == f"{slot.path}.$ref"
    assert "points to nothing" in error.reason


@pytest.mark.parametrize(("draft", "slot"), every(SLOTS | HOLDERS))
def test_a_ref_outside_the_schema_under_any_keyword_is_refused_at_the_raise(
    draft: str, slot: Slot
) -> None:
    error = refusal(placed(draft, slot, {"$ref": "https://example.com/schema.json"}))
    assert error.path == f"{slot.path}.$ref"
    assert "outside the schema" in error.reason


@pytest.mark.parametrize(("draft", "slot"), every(SLOTS | HOLDERS))
def test_a_ref_to_a_value_that_is_not_a_schema_under_any_keyword_is_refused_at_the_raise(
    draft: str, slot: Slot
) -> None:
    schema = placed(draft, slot, {"$ref": "#/enum/0"}, enum=[{"pattern": LOOK_BEHIND}, "x"])
    error = refusal(schema)
    assert error.path == f"{slot.path}.$ref"
    assert "not a schema" in error.reason


@pytest.mark.parametrize(("draft", "slot"), every(SLOTS))
async def test_a_usable_schema_under_any_keyword_is_answerable_through_resume(
    draft: str, slot: Slot
) -> None:
    schema = placed(draft, slot, {"$ref": f"#/{defs(draft)}/word"}, **{defs(draft): {"word": WORD}})
    run = agent_asking(schema).new_run("go")
    await run.run()
    assert run.pending
    with pytest.raises(InvalidResolutionError) as caught:
        await run.resume(slot.bad)
    assert type(caught.value) is InvalidResolutionError
    assert run.pending
    result = await run.resume(slot.good)
    assert result.status == "completed"
    assert next(run.prompt.tool_calls()).result == slot.good


@pytest.mark.parametrize("draft", UP_TO_07)
def test_a_ref_under_dependencies_is_refused_when_it_points_nowhere(draft: str) -> None:
    schema = {"$schema": DRAFTS[draft], "dependencies": {"a": {"$ref": "#/definitions/b"}}}
    error = refusal(schema)
    assert error.path == "$.dependencies['a'].$ref"
    assert "'#/definitions/b' points to nothing" in error.reason


@pytest.mark.parametrize("draft", UP_TO_07)
def test_a_look_behind_under_dependencies_is_refused_at_the_raise_not_at_resume(
    draft: str,
) -> None:
    schema = {
        "$schema": DRAFTS[draft],
        "dependencies": {"a": {"properties": {"b": {"pattern": LOOK_BEHIND}}}},
    }
    assert refusal(schema).path == "$.dependencies['a'].properties['b'].pattern"


@pytest.mark.parametrize("draft", UP_TO_07)
async def test_dependencies_with_a_property_list_and_a_schema_are_answerable(draft: str) -> None:
    schema = {
        "$schema": DRAFTS[draft],
        "definitions": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
        "type": "object",
        "dependencies": {
            "currency": ["amount"],
            "amount": {"properties": {"currency": {"$ref": "#/definitions/code"}}},
        },
    }
    run = agent_asking(schema).new_run("go")
    await run.run()
    with pytest.raises(InvalidResolutionError):
        await run.resume({"currency": "EUR"})
    with pytest.raises(InvalidResolutionError) as caught:
        await run.resume({"currency": "euro", "amount": 3})
    assert caught.value.problems[0].path == "$.currency"
    result = await run.resume({"currency": "EUR", "amount": 3})
    assert result.status == "completed"


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({"const": {"pattern": LOOK_BEHIND}, "$ref": "#/const"}, "$.$ref"),
        ({"x-note": {"type": "string"}, "properties": {"a": {"$ref": "#/x-note"}}},
         "$.properties['a'].$ref"),
        ({"properties": {"pattern": {"type": "string"}}, "allOf": [{"$ref": "#/properties"}]},
         "$.allOf[0].$ref"),
        ({"required": ["a"], "allOf": [{"$ref": "#/required"}]}, "$.allOf[0].$ref"),
        ({"minimum": 1, "not": {"$ref": "#/minimum"}}, "$.not.$ref"),
        ({"$defs": {"x": {"type": "string"}}, "$dynamicRef": "#/$defs/x/type"}, "$.$dynamicRef"),
    ],
)  # fmt: skip
def test_a_ref_into_a_value_that_is_not_a_schema_is_refused_at_the_raise(
    schema: dict[str, Any], path: str
) -> None:
    error = refusal(schema)
    assert error.path == path
    assert "not a schema" in error.reason


def test_defs_hold_schemas_in_every_draft_as_pydantic_writes_them() -> None:
    class Address(BaseModel):
        city: str

    class Person(BaseModel):
        home: Address

    schema = {"$schema": DRAFT_07, **Person.model_json_schema()}
    check_response_schema(schema)  # pydantic's $defs, under draft-07
    schema["$defs"]["Address"]["properties"]["city"]["pattern"] = LOOK_BEHIND
    error = refusal(schema)
    assert error.path == "$.$defs['Address'].properties['city'].pattern"
    typo = {"$schema": DRAFT_07, "$defs": {"x": {"type": "integr"}}, "$ref": "#/$defs/x"}
    assert refusal(typo).path == "$.$defs['x'].type"


@pytest.mark.parametrize(
    ("schema", "path", "reason"),
    [
        ({"properties": {"a": {"$dynamicRef": "#nowhere"}}}, "$.properties['a'].$dynamicRef",
         "points to nothing"),
        ({"$schema": DRAFT_2019, "properties": {"a": {"$recursiveRef": "#/$defs/a"}}},
         "$.properties['a'].$recursiveRef", "only value"),
        ({"$schema": DRAFT_04, "definitions": {"s": {"type": "string"}},
          "properties": {"a": {"id": "https://example.com/a", "$ref": "#/definitions/s"}}},
         "$.properties['a'].id", "nested id"),
        ({"$schema": "http://json-schema.org/draft-03/schema#", "extends": {"type": "string"}},
         "$.$schema", "draft-03"),
        ({"$schema": ["not", "a", "uri"]}, "$.$schema", "not a URI"),
    ],
)  # fmt: skip
def test_references_and_ids_follow_the_rules_in_every_form(
    schema: dict[str, Any], path: str, reason: str
) -> None:
    error = refusal(schema)
    assert error.path == path
    assert reason in error.reason


@pytest.mark.parametrize(
    ("schema", "bad"),
    [
        ({"$schema": DRAFT_2019, "$recursiveAnchor": True, "type": "object",
          "properties": {"kid": {"$recursiveRef": "#"}, "name": WORD}},
         {"name": "x", "kid": {"name": "X"}}),
        ({"$dynamicAnchor": "node", "type": "object",
          "properties": {"kid": {"$dynamicRef": "#node"}, "name": WORD}},
         {"name": "x", "kid": {"name": "X"}}),
        ({"$defs": {"any": True}, "type": "object",
          "properties": {"kid": {"$ref": "#/$defs/any"}, "name": WORD}},
         {"name": "X", "kid": 1}),
    ],
)  # fmt: skip
async def test_recursive_dynamic_and_boolean_references_are_answerable(
    schema: dict[str, Any], bad: Any
) -> None:
    run = agent_asking(schema).new_run("go")
    await run.run()
    with pytest.raises(InvalidResolutionError):
        await run.resume(bad)
    result = await run.resume({"name": "x", "kid": {"name": "y"}})
    assert result.status == "completed"


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({"$schema": DRAFT_04, "dependencies": {"a": {"pattern": LOOK_BEHIND}}},
         "dependencies['a'].pattern"),
        ({"$schema": DRAFT_07, "dependencies": {"a": {"$ref": "#/definitions/b"}}},
         "dependencies['a'].$ref"),
        ({"dependentSchemas": {"a": {"patternProperties": {LOOK_BEHIND: {}}}}},
         "dependentSchemas['a'].patternProperties['(?<=a)b']"),
        ({"if": {"const": 1}, "else": {"not": {"pattern": LOOK_BEHIND}}}, "else.not.pattern"),
        ({"enum": [{"pattern": LOOK_BEHIND}], "contains": {"$ref": "#/enum/0"}}, "contains.$ref"),
    ],
)  # fmt: skip
def test_a_saved_transcript_with_such_a_schema_is_refused_at_load(
    schema: dict[str, Any], path: str
) -> None:
    with pytest.raises(InvalidTranscriptError) as caught:
        Prompt.model_validate_json(json.dumps(saved_with_schema(schema)))
    assert [(p.path, p.rule) for p in caught.value.problems] == [
        (f"items[2].interrupts[0].response_schema.{path}", "response-schemas-are-usable")
    ]


async def test_an_entry_written_around_the_check_is_refused_at_resume_not_a_crash() -> None:
    run = agent_asking({"type": "object"}).new_run("go")
    await run.run()
    record = next(run.prompt.tool_calls())
    # Written around every check, as a buggy extension might.
    record.interrupts[-1] = InterruptEntry(
        message="x",
        response_schema={
            "$schema": DRAFT_07,
            "dependencies": {"a": {"properties": {"b": {"pattern": LOOK_BEHIND}}}},
        },
    )
    with pytest.raises(InvalidResolutionError, match="reject it instead") as caught:
        await run.resume({"a": 1, "b": "ab"})
    assert "$.dependencies['a'].properties['b'].pattern" in caught.value.problems[0].message
