"""Loading refuses what a hand-edited file can slip in: naive timestamps anywhere, and a
fork that lost the interrupt it was made at. Each is refused with its path."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from pausepoint import SCHEMA_VERSION, Prompt
from pausepoint.errors import InvalidTranscriptError

AWARE = "2026-01-01T00:00:00Z"
NAIVE = "2026-01-01T00:00:00"


def saved() -> dict[str, Any]:
    """A saved transcript with every kind of timestamp, all of them aware: a model call,
    a cancelled tool call, an answered interrupt, a pending one and a model pause."""
    answered = {
        "id": "int_1",
        "message": "Which?",
        "created_at": AWARE,
        "expires_at": AWARE,
        "resolution": {"type": "resume", "data": {"n": 1}, "at": AWARE},
    }
    return {
        "schema_version": SCHEMA_VERSION,
        "thread_id": "thread_1",
        "run_id": "run_1",
        "items": [
            {"type": "user", "text": "go"},
            {"type": "assistant",
             "tool_calls": [{"id": "c1", "name": "ask", "input": {}},
                            {"id": "c2", "name": "slow", "input": {}}],
             "call": {"model": "m", "started_at": AWARE, "ended_at": AWARE}},
            {"type": "tool", "id": "c1", "name": "ask", "status": "succeeded",
             "started_at": AWARE, "ended_at": AWARE, "interrupts": [answered]},
            {"type": "tool", "id": "c2", "name": "slow", "status": "cancelled",
             "started_at": AWARE, "ended_at": AWARE,
             "cancellation": {"by": "user", "at": AWARE}},
        ],
        "model_pause": {"at": AWARE},
    }  # fmt: skip


def load(data: dict[str, Any]) -> Prompt:
    return Prompt.model_validate_json(json.dumps(data))


def problems_of(data: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(InvalidTranscriptError) as caught:
        load(data)
    return [(p.path, p.rule) for p in caught.value.problems]


def with_naive(path: tuple[str | int, ...]) -> dict[str, Any]:
    data = copy.deepcopy(saved())
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = NAIVE
    return data


def test_a_transcript_with_every_kind_of_aware_timestamp_loads() -> None:
    prompt = load(saved())
    assert prompt.model_pause is not None
    assert Prompt.model_validate_json(prompt.model_dump_json()) == prompt


def test_a_naive_timestamp_in_a_tool_calls_start_is_refused_at_load() -> None:
    data = with_naive(("items", 2, "started_at"))
    assert problems_of(data) == [("items[2].started_at", "timestamps-are-aware")]


def test_a_naive_timestamp_in_a_tool_calls_end_is_refused_at_load() -> None:
    data = with_naive(("items", 3, "ended_at"))
    assert problems_of(data) == [("items[3].ended_at", "timestamps-are-aware")]


def test_a_naive_timestamp_in_a_model_calls_start_is_refused_at_load() -> None:
    data = with_naive(("items", 1, "call", "started_at"))
    assert problems_of(data) == [("items[1].call.started_at", "timestamps-are-aware")]


def test_a_naive_timestamp_in_a_model_calls_end_is_refused_at_load() -> None:
    data = with_naive(("items", 1, "call", "ended_at"))
    assert problems_of(data) == [("items[1].call.ended_at", "timestamps-are-aware")]


def test_a_naive_timestamp_in_a_model_pause_is_refused_at_load() -> None:
    data = with_naive(("model_pause", "at"))
    assert problems_of(data) == [("model_pause.at", "timestamps-are-aware")]


def test_a_naive_timestamp_in_a_cancellation_is_refused_at_load() -> None:
    data = with_naive(("items", 3, "cancellation", "at"))
    assert problems_of(data) == [("items[3].cancellation.at", "timestamps-are-aware")]


def test_a_naive_timestamp_in_an_answer_is_still_refused_at_load() -> None:
    data = with_naive(("items", 2, "interrupts", 0, "resolution", "at"))
    assert problems_of(data) == [("items[2].interrupts[0].resolution.at", "timestamps-are-aware")]


def test_every_naive_timestamp_is_named_and_the_message_says_how_to_write_one() -> None:
    data = with_naive(("items", 2, "started_at"))
    data["items"][1]["call"]["ended_at"] = NAIVE
    data["model_pause"]["at"] = NAIVE
    with pytest.raises(InvalidTranscriptError) as caught:
        load(data)
    assert [p.path for p in caught.value.problems] == [
        "items[1].call.ended_at",
        "items[2].started_at",
        "model_pause.at",
    ]
    assert "+00:00" in str(caught.value)


def forked() -> dict[str, Any]:
    """A fork as `AgentRun.fork` saves one: the interrupt it was made at, reopened."""
    data = copy.deepcopy(saved())
    data["items"] = data["items"][:3]
    data["items"][1]["tool_calls"] = data["items"][1]["tool_calls"][:1]
    data["items"][2] |= {"status": "interrupted", "ended_at": None}
    del data["items"][2]["interrupts"][0]["resolution"]
    del data["model_pause"]
    data["run_id"] = "run_2"
    data["parent"] = {"run_id": "run_1", "interrupt_id": "int_1"}
    return data


def test_a_fork_that_holds_the_interrupt_it_was_made_at_loads() -> None:
    prompt = load(forked())
    assert prompt.parent is not None
    assert prompt.pending()[0][1].id == prompt.parent.interrupt_id


def test_a_fork_whose_parent_interrupt_is_not_in_its_transcript_is_refused_at_load() -> None:
    data = forked()
    data["parent"]["interrupt_id"] = "int_gone"
    with pytest.raises(InvalidTranscriptError) as caught:
        load(data)
    assert [(p.path, p.rule) for p in caught.value.problems] == [
        ("parent.interrupt_id", "a-fork-holds-its-parent-interrupt")
    ]
    assert "'int_gone'" in str(caught.value)


def test_a_fork_cut_before_its_parent_interrupt_is_refused_at_load() -> None:
    data = forked()
    data["items"] = data["items"][:1]
    assert ("parent.interrupt_id", "a-fork-holds-its-parent-interrupt") in problems_of(data)


def test_a_fork_at_a_tool_call_it_does_not_hold_is_refused_at_load() -> None:
    data = forked()
    data["parent"] = {"run_id": "run_1", "tool_call_id": "c1"}
    assert load(data).parent is not None  # c1 is there

    data["parent"]["tool_call_id"] = "c_gone"
    with pytest.raises(InvalidTranscriptError) as caught:
        load(data)
    assert [(p.path, p.rule) for p in caught.value.problems] == [
        ("parent.tool_call_id", "a-fork-holds-its-fork-point")
    ]
    assert "'c_gone'" in str(caught.value)


@pytest.mark.parametrize(
    ("origin", "path"),
    [
        ({"turn": -2}, "parent.turn"),
        ({"turn": 1, "edited": [0, 1]}, "parent.edited[1]"),  # an assistant message
        ({"turn": 1, "edited": [7]}, "parent.edited[0]"),  # past the end
    ],
)
def test_a_fork_at_a_turn_with_a_bad_turn_or_edited_item_is_refused_at_load(
    origin: dict[str, Any], path: str
) -> None:
    data = forked()
    data["parent"] = {"run_id": "run_1"} | origin
    assert (path, "a-fork-holds-its-fork-point") in problems_of(data)
    data["parent"] = {"run_id": "run_1", "turn": 1, "edited": [0, 2]}
    assert load(data).parent is not None
