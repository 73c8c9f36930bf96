"""The Agent Framework readers, on interrupts as agent-framework-ag-ui 1.7.0 sends them
(the whole round trip, against the framework's own server, is in
test_interop_agent_framework.py)."""

from __future__ import annotations

from typing import Any

import pytest

from pausepoint.agui._shapes import read_shape
from pausepoint.errors import InvalidResolutionError

CALL = {
    "call_id": "call_refund_42",
    "name": "refund",
    "arguments": {"order_id": 42, "amount": 30.0},
}


def approval(**schema_properties: Any) -> dict[str, Any]:
    """A tool approval as the framework sends one; `schema_properties` beside `approved`."""
    framework = {"type": "function_approval_request", "function_call": CALL}
    return {
        "id": "af-call-8b810e6109b247438d21471a4549b569",
        "reason": "tool_call",
        "message": "Approve running refund?",
        "toolCallId": "call_refund_42",
        "responseSchema": {
            "type": "object",
            "properties": {
                "approved": {"type": "boolean"},
                "accepted": {"type": "boolean"},
                **schema_properties,
            },
            "anyOf": [{"required": ["approved"]}, {"required": ["accepted"]}],
            "additionalProperties": False,
        },
        "metadata": {"agent_framework": {**framework, "value": framework}},
    }


EDITED_ARGS = {
    "type": "object",
    "properties": {"order_id": {"type": "integer"}, "amount": {"type": "number"}},
    "required": ["order_id", "amount"],
    "additionalProperties": False,
}


def request(**fields: Any) -> dict[str, Any]:
    """A workflow's request_info as the framework sends it."""
    data = {"message": "Which warehouse should order 42 ship from?", "order_id": 42}
    return {
        "id": "b68cc7cb-22b2-4001-99ed-4f85e02dcd94",
        "reason": "input_required",
        "message": "Which warehouse should order 42 ship from?",
        "responseSchema": {"type": "string"},
        "metadata": {
            "agent_framework": {
                "type": "workflow_request_info",
                "request_id": "b68cc7cb-22b2-4001-99ed-4f85e02dcd94",
                "source_executor_id": "dispatch",
                "request_type": "dict",
                "response_type": "str",
                "data": data,
                "value": data,
            }
        },
        **fields,
    }


def test_a_tool_approval_answers_in_the_frameworks_words() -> None:
    shape = read_shape(approval(editedArgs=EDITED_ARGS))

    assert shape is not None
    assert (shape.source, shape.kind, shape.decisions) == (
        "Agent Framework",
        "tool-approval",
        ("approve", "edit", "reject"),
    )
    assert shape.resolve(True) == {"approved": True}
    assert shape.resolve({"approved": True, "editedArgs": {"order_id": 42, "amount": 12.5}}) == {
        "approved": True,
        "editedArgs": {"order_id": 42, "amount": 12.5},
    }
    # Its denial has no room for a reason: any other key is read as an edited argument.
    assert shape.decline("Order 42 was a gift.") == {"approved": False}


def test_respond_is_refused_with_what_the_framework_takes() -> None:
    shape = read_shape(approval(editedArgs=EDITED_ARGS))

    assert shape is not None
    with pytest.raises(InvalidResolutionError, match="takes Approve or Edit arguments or Reject"):
        shape.check("respond")


def test_an_approval_without_edited_args_in_its_schema_offers_no_edit() -> None:
    # A hosted tool's approval: the framework refuses edited arguments for it.
    shape = read_shape(approval())

    assert shape is not None
    assert shape.decisions == ("approve", "reject")
    with pytest.raises(InvalidResolutionError, match="not Edit arguments"):
        shape.check("edit")


def test_a_steps_review_or_an_approval_naming_another_call_is_not_read() -> None:
    steps = approval()
    steps["responseSchema"] = {
        "type": "object",
        "properties": {"accepted": {"type": "boolean"}, "steps": {"type": "array"}},
        "required": ["accepted"],
    }
    other_call = {**approval(editedArgs=EDITED_ARGS), "toolCallId": "call_other"}
    untyped = approval(editedArgs=EDITED_ARGS)
    untyped["metadata"] = {"agent_framework": {"function_call": CALL}}

    assert [read_shape(i) for i in (steps, other_call, untyped)] == [None, None, None]


def test_a_workflow_request_is_a_question_answered_with_its_value() -> None:
    shape = read_shape(request())

    assert shape is not None
    assert (shape.source, shape.kind, shape.message, shape.schema, shape.decisions) == (
        "Agent Framework",
        "generic",
        "Which warehouse should order 42 ship from?",
        {"type": "string"},
        (),
    )
    assert shape.resolve("Leeds") == "Leeds"
    with pytest.raises(InvalidResolutionError, match="takes an answer to its question"):
        shape.check("reject")


def test_a_workflow_request_without_words_is_asked_by_its_type() -> None:
    shape = read_shape(request(message=None))

    assert shape is not None
    assert shape.message == "The workflow asks for dict."


def test_a_workflow_request_without_a_schema_or_of_another_kind_is_not_read() -> None:
    no_schema = request()
    del no_schema["responseSchema"]
    approval_reason = request(reason="tool_call")

    assert [read_shape(i) for i in (no_schema, approval_reason)] == [None, None]


def test_a_workflows_approval_offers_no_edit() -> None:
    # Its executor runs the call it stored: an edit would be dropped without a word.
    asked = approval(editedArgs=EDITED_ARGS)
    asked["metadata"]["agent_framework"]["source_executor_id"] = "refunds"

    shape = read_shape(asked)

    assert shape is not None
    assert shape.decisions == ("approve", "reject")
