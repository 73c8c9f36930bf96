"""A response schema whose references loop without checking a part of the answer is
refused at the raise and at load; a legitimately recursive one works end to end."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from tests.helpers import agent_asking, saved_with_schema

from pausepoint import ActionInterrupt, Prompt
from pausepoint._response_schema import answer_validator
from pausepoint.errors import (
    InvalidResolutionError,
    InvalidResponseSchemaError,
    InvalidTranscriptError,
)

LINKED_LIST: dict[str, Any] = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]},
            },
        }
    },
    "$ref": "#/$defs/node",
}
TREE: dict[str, Any] = {
    "$defs": {
        "tree": {
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
        }
    },
    "$ref": "#/$defs/tree",
}
THREE_NODES = {"value": 1, "next": {"value": 2, "next": {"value": 3, "next": None}}}


def refusal(schema: dict[str, Any]) -> InvalidResponseSchemaError:
    with pytest.raises(InvalidResponseSchemaError) as caught:
        ActionInterrupt("x", response_schema=schema)
    return caught.value


def test_a_schema_that_refers_to_itself_is_refused_at_the_raise() -> None:
    error = refusal({"$ref": "#"})
    assert error.path == "$.$ref"
    assert "never end" in error.reason


def test_defs_that_refer_to_each_other_in_a_loop_are_refused_at_the_raise() -> None:
    error = refusal(
        {
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            "$ref": "#/$defs/a",
        }
    )
    assert error.path == "$.$defs['b'].$ref"
    assert "'#/$defs/b' -> '#/$defs/a'" in error.reason


def test_a_def_that_refers_to_itself_is_refused_at_the_raise_even_when_unused() -> None:
    error = refusal({"$defs": {"a": {"$ref": "#/$defs/a"}}, "type": "object"})
    assert error.path == "$.$defs['a'].$ref"


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({"allOf": [{"$ref": "#"}]}, "$.allOf[0].$ref"),
        ({"anyOf": [{"type": "string"}, {"$ref": "#"}]}, "$.anyOf[1].$ref"),
        ({"oneOf": [{"$ref": "#"}]}, "$.oneOf[0].$ref"),
        ({"not": {"$ref": "#"}}, "$.not.$ref"),
        ({"if": {"$ref": "#"}}, "$.if.$ref"),
        ({"if": {"type": "object"}, "then": {"$ref": "#"}}, "$.then.$ref"),
        ({"dependentSchemas": {"a": {"$ref": "#"}}}, "$.dependentSchemas['a'].$ref"),
        ({"$dynamicAnchor": "meta", "$dynamicRef": "#meta"}, "$.$dynamicRef"),
    ],
)
def test_a_loop_through_a_keyword_that_checks_the_same_value_is_refused_at_the_raise(
    schema: dict[str, Any], path: str
) -> None:
    assert refusal(schema).path == path


@pytest.mark.parametrize(
    "schema",
    [
        LINKED_LIST,
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "object", "additionalProperties": {"$ref": "#"}},
        TREE,
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "string"}}, "$ref": "#/$defs/a"},
    ],
)
def test_a_schema_that_refers_to_itself_from_inside_a_part_of_the_answer_is_accepted(
    schema: dict[str, Any],
) -> None:
    assert ActionInterrupt("x", response_schema=schema).response_schema == schema


async def test_a_looping_schema_fails_the_call_and_records_no_interrupt() -> None:
    run = agent_asking({"$ref": "#"}).new_run("go")
    result = await run.run()
    record = next(run.prompt.tool_calls())
    assert result.status == "completed"  # the model saw the failure and answered
    assert record.status == "failed"
    assert record.error is not None
    assert record.error.name == "InvalidResponseSchemaError"
    assert "$.$ref" in record.error.message
    assert record.interrupts == []


def test_a_saved_transcript_with_a_looping_schema_is_refused_at_load() -> None:
    looping = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}
    with pytest.raises(InvalidTranscriptError) as caught:
        Prompt.model_validate_json(json.dumps(saved_with_schema(looping)))
    assert [(p.path, p.rule) for p in caught.value.problems] == [
        ("items[2].interrupts[0].response_schema.$defs['b'].$ref", "response-schemas-are-usable")
    ]


async def test_a_linked_list_is_answered_with_three_nodes_end_to_end() -> None:
    run = agent_asking(LINKED_LIST).new_run("go")
    assert (await run.run()).status == "interrupted"
    result = await run.resume(copy.deepcopy(THREE_NODES))
    assert result.status == "completed"
    record = next(run.prompt.tool_calls())
    assert record.status == "succeeded"
    assert record.result == THREE_NODES
    assert Prompt.model_validate_json(run.prompt.model_dump_json()) == run.prompt


async def test_a_wrong_value_deep_in_a_linked_list_is_refused_with_its_path() -> None:
    run = agent_asking(LINKED_LIST).new_run("go")
    await run.run()
    before = run.prompt.model_dump_json()
    wrong = copy.deepcopy(THREE_NODES)
    wrong["next"]["next"]["value"] = "three"  # type: ignore[index]
    with pytest.raises(InvalidResolutionError) as caught:
        await run.resume(wrong)
    assert [p.path for p in caught.value.problems] == ["$.next.next.value"]
    assert run.prompt.model_dump_json() == before
    assert len(run.pending) == 1


async def test_a_value_that_fits_no_branch_is_refused_where_the_branches_part() -> None:
    run = agent_asking(LINKED_LIST).new_run("go")
    await run.run()
    with pytest.raises(InvalidResolutionError) as caught:
        await run.resume({"value": 1, "next": 5})
    assert [p.path for p in caught.value.problems] == ["$.next"]


async def test_an_answer_to_a_looping_schema_recorded_another_way_is_refused_not_a_crash() -> None:
    run = agent_asking({"type": "object"}).new_run("go")
    await run.run()
    entry = next(run.prompt.tool_calls()).interrupts[0]
    entry.response_schema = {"$ref": "#"}  # as other code writing the transcript might
    with pytest.raises(InvalidResolutionError, match="reject it instead"):
        await run.resume({"n": 1})
    assert entry.resolution is None


def test_checking_an_answer_against_a_looping_schema_raises_no_recursion_error() -> None:
    with pytest.raises(InvalidResolutionError) as caught:
        list(answer_validator({"$ref": "#"}).iter_errors({"n": 1}))
    assert caught.value.problems[0].path == "$"
    assert "never ends" in caught.value.problems[0].message


def test_a_refused_schema_is_refused_again_at_every_raise() -> None:
    for _ in range(2):
        assert refusal({"$ref": "#"}).path == "$.$ref"
    ActionInterrupt("x", response_schema=LINKED_LIST)
    assert ActionInterrupt("x", response_schema=LINKED_LIST).response_schema == LINKED_LIST


def test_asking_whether_an_answer_fits_a_looping_schema_raises_no_recursion_error() -> None:
    with pytest.raises(InvalidResolutionError):
        answer_validator({"$ref": "#"}).is_valid({"n": 1})
