"""Loading checks the file: version, then one test per consistency rule."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.helpers import saved_waiting

from pausepoint import SCHEMA_VERSION, Prompt, _versions
from pausepoint.errors import InvalidTranscriptError, UnsupportedSchemaVersionError


def saved(*, pending: bool = True) -> dict[str, Any]:
    """A saved transcript: one call paused on an interrupt (answered unless pending)."""
    entry: dict[str, Any] = {
        "id": "int_1",
        "message": "Which?",
        "created_at": "2026-01-01T00:00:00Z",
        "expires_at": "2026-01-02T00:00:00Z",
        "response_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    if not pending:
        entry["resolution"] = {"type": "resume", "data": {"n": 1}, "at": "2026-01-01T01:00:00Z"}
    return saved_waiting(entry)


def load(data: dict[str, Any]) -> Prompt:
    return Prompt.model_validate_json(json.dumps(data))


def refused(data: dict[str, Any]) -> InvalidTranscriptError:
    with pytest.raises(InvalidTranscriptError) as caught:
        load(data)
    return caught.value


def test_a_consistent_saved_prompt_loads() -> None:
    assert load(saved()).pending()[0][1].id == "int_1"


def test_a_prompt_from_a_newer_version_is_refused_naming_both_versions() -> None:
    data = saved()
    data["schema_version"] = 999
    with pytest.raises(UnsupportedSchemaVersionError) as caught:
        load(data)
    assert "999" in str(caught.value)
    assert f"up to {SCHEMA_VERSION}" in str(caught.value)
    assert caught.value.path == "schema_version"


def test_an_older_version_is_upgraded_through_the_registered_migrations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def rename_text(data: dict[str, Any]) -> dict[str, Any]:
        for item in data["items"]:
            if "body" in item:
                item["text"] = item.pop("body")
        return data

    monkeypatch.setattr(_versions, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(_versions.MIGRATIONS, SCHEMA_VERSION, rename_text)
    data = saved()
    data["items"][0] = {"type": "user", "body": "go"}

    prompt = load(data)

    assert prompt.items[0].text == "go"  # type: ignore[union-attr]
    assert prompt.schema_version == SCHEMA_VERSION + 1
    assert SCHEMA_VERSION in _versions.supported_versions()


def test_a_version_no_migration_reaches_is_refused() -> None:
    data = saved()
    data["schema_version"] = 0
    with pytest.raises(UnsupportedSchemaVersionError, match="no migration"):
        load(data)


def test_duplicate_interrupt_ids_are_refused() -> None:
    data = saved(pending=False)
    second = dict(data["items"][2]["interrupts"][0], resolution=None)
    data["items"][2]["interrupts"].append(second)
    error = refused(data)
    assert error.problems[0].rule == "interrupt-ids-are-unique"
    assert error.path == "items[2].interrupts[1].id"


def test_an_unanswered_entry_below_a_newer_one_is_refused() -> None:
    data = saved()
    data["items"][2]["interrupts"].append(dict(data["items"][2]["interrupts"][0], id="int_2"))
    error = refused(data)
    assert [p.rule for p in error.problems] == ["only-the-latest-entry-waits"]
    assert error.path == "items[2].interrupts[0]"


def test_an_unanswered_entry_in_an_earlier_turn_is_refused() -> None:
    data = saved()
    data["items"].append({"type": "assistant", "text": "moved on"})
    error = refused(data)
    assert error.problems[0].rule == "interrupts-wait-in-the-latest-turn"
    assert error.path == "items[2].interrupts[0]"


def test_a_tool_record_that_answers_no_request_is_refused() -> None:
    data = saved()
    data["items"][2]["id"] = "c9"
    error = refused(data)
    assert error.problems[0].rule == "tool-records-answer-requests"
    assert error.path == "items[2].id"


def test_a_tool_record_naming_another_action_than_its_request_is_refused() -> None:
    data = saved()
    data["items"][2]["name"] = "delete_everything"
    assert refused(data).path == "items[2].name"


def test_a_naive_expires_at_is_refused() -> None:
    data = saved()
    data["items"][2]["interrupts"][0]["expires_at"] = "2026-01-02T00:00:00"
    error = refused(data)
    assert error.problems[0].rule == "timestamps-are-aware"
    assert error.path == "items[2].interrupts[0].expires_at"


def test_an_invalid_recorded_response_schema_is_refused() -> None:
    data = saved()
    data["items"][2]["interrupts"][0]["response_schema"] = {"type": "no-such-type"}
    error = refused(data)
    assert error.problems[0].rule == "response-schemas-are-usable"
    assert error.path.startswith("items[2].interrupts[0].response_schema")


def test_a_recorded_response_schema_with_a_remote_ref_is_refused() -> None:
    data = saved()
    data["items"][2]["interrupts"][0]["response_schema"] = {"$ref": "https://example.com/s"}
    assert refused(data).problems[0].rule == "response-schemas-are-usable"


def test_nan_in_a_file_is_refused_rather_than_saved_back_as_null() -> None:
    text = json.dumps(saved(pending=False)).replace('{"n": 1}', '{"n": NaN}')
    with pytest.raises(InvalidTranscriptError) as caught:
        Prompt.model_validate_json(text)
    assert caught.value.problems[0].rule == "values-are-json"
    assert caught.value.path == "items[2].interrupts[0].resolution.data.n"


def test_a_malformed_file_is_an_invalid_transcript_error_naming_the_path() -> None:
    data = saved()
    data["items"][2]["status"] = "exploded"
    error = refused(data)
    assert error.path == "items[2].tool.status"
    with pytest.raises(InvalidTranscriptError):
        Prompt.model_validate_json("{not json")
