"""The LangGraph readers and how one continuation's answers go back, on interrupts as
ag-ui-langgraph sends them (the whole round trip, against langchain's own agent, is in
test_interop_langchain_hitl.py)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers import require_peer

from pausepoint.agui._shape import continuation
from pausepoint.agui._shapes import read_shape
from pausepoint.errors import InvalidResolutionError, UsageError

require_peer("langchain", "langchain's HumanInTheLoopMiddleware")


def served(raw: Any, **fields: Any) -> dict[str, Any]:
    """An interrupt as ag-ui-langgraph serves one whose value is `raw`."""
    return {
        "id": "i1",
        "reason": "langgraph:interrupt",
        "metadata": {"langgraph": {"raw": raw, "ns": None}},
        **fields,
    }


PER_CALL = {
    "type": "tool_approval",
    "tool_call_id": "call_1",
    "name": "refund",
    "args": {"order_id": 42},
    "description": "Refund order 42?",
}
BATCHED = {
    "action_requests": [
        {"name": "refund", "args": {"order_id": 42}, "description": "Refund?"},
        {"name": "notify", "args": {"customer": "Ada"}, "description": "Tell Ada?"},
    ],
    "review_configs": [
        {"action_name": "refund", "allowed_decisions": ["approve", "edit", "reject"]},
        {"action_name": "notify", "allowed_decisions": ["approve", "reject"]},
    ],
}


def test_a_per_call_approval_answers_in_langchains_decisions() -> None:
    shape = read_shape(served(PER_CALL, toolCallId="call_1"))

    assert shape is not None
    assert (shape.source, shape.kind, shape.message, shape.decisions) == (
        "LangGraph",
        "tool-approval",
        "Refund order 42?",
        None,
    )
    assert shape.resolve(True) == {"type": "approve"}
    assert shape.resolve({"approved": True, "editedArgs": {"order_id": 7}}) == {
        "type": "edit",
        "edited_action": {"name": "refund", "args": {"order_id": 7}},
    }
    assert shape.resolve({"approved": False, "payload": {"response": "Wait."}}) == {
        "type": "respond",
        "message": "Wait.",
    }
    assert shape.decline("Not today.") == {"type": "reject", "message": "Not today."}


def test_a_per_call_approval_naming_another_call_is_not_read() -> None:
    assert read_shape(served(PER_CALL, toolCallId="call_2")) is None


def test_the_decisions_of_langchains_own_response_schema_are_read() -> None:
    # The schema the middleware gives LangGraph (ag-ui-langgraph 0.0.47 does not pass it
    # on; a server that does gets cards with only what the tool allows).
    from langchain.agents.middleware.human_in_the_loop import _decision_schema
    from pydantic import TypeAdapter

    for allowed in (["approve", "reject"], ["approve", "edit", "reject", "respond"], ["edit"]):
        schema = TypeAdapter(_decision_schema(allowed, "refund")).json_schema()
        shape = read_shape(served(PER_CALL, toolCallId="call_1", responseSchema=schema))
        assert shape is not None
        assert sorted(shape.decisions or ()) == sorted(allowed)


def test_a_batched_review_is_a_part_per_request_with_its_allowed_decisions() -> None:
    shape = read_shape(served(BATCHED))

    assert shape is not None
    refund, notify = shape.parts
    assert (refund.tool_name, refund.args, refund.message) == (
        "refund",
        {"order_id": 42},
        "Refund?",
    )
    assert refund.decisions == ("approve", "edit", "reject")
    assert notify.decisions == ("approve", "reject")
    assert (refund.batch, refund.index, notify.index) == (notify.batch, 0, 1)
    notify.check("reject")
    with pytest.raises(InvalidResolutionError, match="takes Approve or Reject, not Respond"):
        notify.check("respond")


def test_a_batch_goes_back_as_one_entry_with_its_decisions_in_order() -> None:
    shape = read_shape(served(BATCHED))
    assert shape is not None
    refund, notify = shape.parts
    shaped = {"i1#1": refund, "i1#2": notify}
    # Answered notify first: the decisions still follow the requests' order.
    answers = [
        {"interruptId": "i1#2", "status": "resolved", "payload": {"type": "approve"}},
        {"interruptId": "i1#1", "status": "resolved", "payload": {"type": "reject"}},
    ]

    assert continuation(answers, shaped) == (
        [
            {
                "interruptId": "i1",
                "status": "resolved",
                "payload": {"decisions": [{"type": "reject"}, {"type": "approve"}]},
            }
        ],
        None,
    )
    with pytest.raises(UsageError, match="answer each of them"):
        continuation(answers[:1], shaped)


def test_several_langgraph_answers_go_as_one_command_keyed_by_interrupt_id() -> None:
    first = read_shape(served(PER_CALL, toolCallId="call_1"))
    second = read_shape(
        served({**PER_CALL, "tool_call_id": "call_2"}, id="i2", toolCallId="call_2")
    )
    assert first is not None
    assert second is not None
    answers = [
        {"interruptId": "i1", "status": "resolved", "payload": {"type": "approve"}},
        {"interruptId": "i2", "status": "resolved", "payload": {"type": "reject"}},
    ]

    assert continuation(answers, {"i1": first, "i2": second}) == (
        [],
        {"command": {"resume": {"i1": {"type": "approve"}, "i2": {"type": "reject"}}}},
    )
    # One alone goes as AG-UI's resume entry; answers of other producers stay entries.
    assert continuation(answers[:1], {"i1": first}) == (answers[:1], None)
    assert continuation(answers, {"i1": first}) == (answers, None)


def test_values_that_are_not_langchains_are_not_read_as_it() -> None:
    for raw in ({"type": "tool_approval"}, {"action_requests": []}, [1, 2], {"n": 1}, " "):
        assert read_shape(served(raw)) is None
    # Not LangGraph's at all: no `metadata.langgraph`.
    assert read_shape({"id": "i1", "message": "Which order?"}) is None


def test_a_plain_langgraph_value_is_a_question_that_offers_no_reject() -> None:
    text = read_shape(served("Which order?"))
    assert text is not None
    assert (text.source, text.kind, text.message) == ("LangGraph", "generic", "Which order?")
    assert text.schema == {"type": "string"}
    assert text.decisions == ()
    assert text.resolve("order 42") == "order 42"  # the node reads the value itself
    with pytest.raises(InvalidResolutionError, match="takes an answer to its question"):
        text.check("reject")

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    for raw, fields in (
        ({"question": "How many?", "response_schema": schema}, {}),
        ({"message": "How many?", "responseSchema": schema}, {}),
        ({"message": "How many?"}, {"responseSchema": schema}),
    ):
        form = read_shape(served(raw, **fields))
        assert form is not None
        assert (form.kind, form.message, form.schema) == ("generic", "How many?", schema)
        assert form.resolve({"n": 3}) == {"n": 3}


INBOX = {
    "action_request": {"action": "send_email", "args": {"to": "ada@example.com"}},
    "config": {
        "allow_accept": True,
        "allow_edit": True,
        "allow_respond": True,
        "allow_ignore": True,
    },
    "description": "Send it?",
}


def test_an_agent_inbox_request_is_an_approval_of_its_action_answered_in_its_words() -> None:
    shape = read_shape(served([INBOX]))

    assert shape is not None
    assert (shape.source, shape.kind, shape.tool_name, shape.args, shape.message) == (
        "LangGraph",
        "tool-approval",
        "send_email",
        {"to": "ada@example.com"},
        "Send it?",
    )
    assert shape.decisions == ("approve", "edit", "respond", "reject")
    assert shape.resolve(True) == [{"type": "accept", "args": None}]
    assert shape.resolve({"approved": True, "editedArgs": {"to": "grace@example.com"}}) == [
        {"type": "edit", "args": {"action": "send_email", "args": {"to": "grace@example.com"}}}
    ]
    assert shape.resolve({"approved": False, "payload": {"response": "Wait."}}) == [
        {"type": "response", "args": "Wait."}
    ]
    # Reject is `ignore`, which has no room for the reason.
    assert shape.decline("Not today.") == [{"type": "ignore", "args": None}]
    assert shape.resolve(False) == [{"type": "ignore", "args": None}]


def test_the_inbox_config_decides_what_its_card_offers() -> None:
    config = {"allow_accept": True, "allow_edit": False, "allow_respond": False}
    shape = read_shape(served([{**INBOX, "config": {**config, "allow_ignore": True}}]))
    assert shape is not None
    assert shape.decisions == ("approve", "reject")
    with pytest.raises(InvalidResolutionError, match="takes Approve or Reject, not Edit"):
        shape.check("edit")

    respond_only = {"allow_accept": False, "allow_edit": False, "allow_respond": True}
    shape = read_shape(served([{**INBOX, "config": {**respond_only, "allow_ignore": False}}]))
    assert shape is not None
    assert shape.decisions == ("respond",)

    # A request that allows nothing cannot be answered from a card: shown read-only.
    nothing = dict.fromkeys(INBOX["config"], False)
    assert read_shape(served([{**INBOX, "config": nothing}])) is None


def test_without_its_config_an_inbox_card_offers_what_the_action_implies() -> None:
    # What ag-ui-langgraph 0.0.47 sends: it drops every value key named `config`.
    dropped = {k: v for k, v in INBOX.items() if k != "config"}
    shape = read_shape(served([dropped]))
    assert shape is not None
    assert shape.decisions == ("approve", "edit", "respond", "reject")

    no_args = {**dropped, "action_request": {"action": "archive", "args": {}}}
    shape = read_shape(served([no_args]))
    assert shape is not None
    assert shape.decisions == ("approve", "respond", "reject")  # nothing to edit


def test_values_that_are_not_an_inbox_request_are_not_read_as_one() -> None:
    for raw in (
        [INBOX, INBOX],  # the Agent Inbox asks one at a time
        [{**INBOX, "action_request": {"args": {}}}],
        [{**INBOX, "action_request": {"action": "send_email", "args": "to Ada"}}],
        [{"description": "Send it?"}],
        ["Send it?"],
    ):
        assert read_shape(served(raw)) is None
