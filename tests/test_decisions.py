"""What a recorded answer means: one table of cases, read here and by the front end
(js/test/answers.test.ts), so both sides say the same thing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pausepoint import Agent, AgentRun, Prompt, ScriptedModel, action, call
from pausepoint.errors import InvalidResolutionError, InvalidTranscriptError
from pausepoint.transcript import InterruptEntry, ToolCall
from pausepoint.transcript.decisions import decision_of, decisions_of, shown_status
from pausepoint.widget._snapshot import snapshot_html

TABLE = json.loads((Path(__file__).parent / "fixtures" / "decisions.json").read_text("utf-8"))
CASES = TABLE["cases"]
REFUSED = TABLE["refused"]


def entry_of(case: dict[str, Any]) -> InterruptEntry:
    return InterruptEntry.model_validate(
        {"kind": case["kind"], "message": "Go ahead?", "resolution": case["resolution"]}
    )


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_each_recorded_answer_reads_as_one_decision(case: dict[str, Any]) -> None:
    decision = decision_of(entry_of(case), case["before"])
    expect = case["expect"]

    assert decision is not None
    assert decision.kind == expect["kind"]
    assert decision.words == expect["words"]
    assert decision.runs_action is expect["runs"]
    assert decision.by == expect.get("by")
    assert [c.as_json() for c in decision.changes] == expect.get("changes", [])
    assert (decision.reason.message if decision.reason else None) == expect.get("reason")
    if "value" in expect:
        assert decision.value == expect["value"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_arguments_that_run_follow_the_decision(case: dict[str, Any]) -> None:
    record = ToolCall(
        id="c1", name="refund", input=case["before"], status="interrupted", interrupts=[]
    )
    record.interrupts.append(entry_of(case))

    assert record.effective_input == case["expect"]["args"]


@pytest.mark.parametrize("case", REFUSED, ids=[c["name"] for c in REFUSED])
def test_an_answer_that_does_not_fit_its_kind_is_refused_with_its_path(
    case: dict[str, Any],
) -> None:
    with pytest.raises(InvalidResolutionError) as caught:
        decision_of(entry_of(case), {})

    assert caught.value.problems[0].path == case["path"]


def test_a_pending_entry_has_no_decision() -> None:
    assert decision_of(InterruptEntry(message="Sure?")) is None


def test_each_edit_is_compared_with_the_arguments_just_before_it() -> None:
    record = ToolCall.model_validate(
        {
            "id": "c1",
            "name": "refund",
            "input": {"cents": 500},
            "status": "succeeded",
            "interrupts": [
                {
                    "kind": "breakpoint",
                    "message": "Paused",
                    "resolution": {
                        "type": "resume",
                        "data": {"action": "edit", "args": {"cents": 300}},
                    },
                },
                {
                    "kind": "tool-approval",
                    "message": "Refund?",
                    "resolution": {
                        "type": "resume",
                        "data": {"approved": True, "editedArgs": {"cents": 250}},
                    },
                },
            ],
        }
    )

    words = [d.words for d in decisions_of(record) if d is not None]

    assert words == [
        "Ran with edited arguments: cents 500 → 300",
        "Approved with changes: cents 300 → 250",
    ]
    assert record.effective_input == {"cents": 250}


@pytest.mark.parametrize(
    ("kind", "data", "status"),
    [
        ("tool-approval", False, "declined"),
        ("breakpoint", {"action": "skip"}, "skipped"),
    ],
)
def test_a_call_that_never_ran_says_why_in_its_status(kind: str, data: Any, status: str) -> None:
    record = ToolCall.model_validate(
        {
            "id": "c1",
            "name": "refund",
            "status": "rejected",
            "interrupts": [
                {"kind": kind, "message": "?", "resolution": {"type": "resume", "data": data}}
            ],
        }
    )

    assert shown_status(record) == status


# -- readers ------------------------------------------------------------------------


@action(needs_approval=True)
def refund(order_id: int, cents: int) -> str:
    """Refund an order."""
    return f"refunded {cents} on order {order_id}"


def approval_agent() -> Agent:
    return Agent(
        model=ScriptedModel([call("refund", order_id=7, cents=500), "Done."]),
        actions=[refund],
    )


@pytest.mark.parametrize(
    ("answer", "words", "ran"),
    [
        (False, "Declined", False),
        ({"approved": False}, "Declined", False),
        ({"approved": True, "editedArgs": {"order_id": 42, "cents": 500}}, None, True),
    ],
    ids=["false", "approved-false", "edited"],
)
async def test_the_saved_snapshot_reads_an_answer_as_the_run_did(
    answer: Any, words: str | None, ran: bool
) -> None:
    run = approval_agent().new_run("Refund order 7")
    await run.run()
    await run.resume(answer)

    text = snapshot_html(run)
    record = next(run.prompt.tool_calls())
    decision = record.decisions()[0]

    assert decision is not None
    assert (record.status == "succeeded") is ran
    assert decision.words.replace('"', "&quot;") in text
    if words is not None:
        assert decision.words == words
        assert "Approved" not in text
    else:
        assert "order_id 7 → 42" in text
        assert "&quot;order_id&quot;: 42" in text  # the arguments that ran, not the model's


async def test_a_saved_approval_without_an_answer_is_refused_at_load() -> None:
    saved = await approved_prompt()
    del saved["items"][2]["interrupts"][0]["resolution"]["data"]

    with pytest.raises(InvalidTranscriptError) as caught:
        Prompt.model_validate_json(json.dumps(saved))

    assert "items[2].interrupts[0].resolution.data" in str(caught.value)


async def test_a_saved_approval_whose_decision_is_a_string_is_refused_at_load() -> None:
    saved = await approved_prompt()
    saved["items"][2]["interrupts"][0]["resolution"]["data"] = {"approved": "yes"}

    with pytest.raises(InvalidTranscriptError) as caught:
        Prompt.model_validate_json(json.dumps(saved))

    assert "items[2].interrupts[0].resolution.data.approved" in str(caught.value)


async def test_a_run_given_an_unreadable_answer_fails_instead_of_spinning() -> None:
    saved = await approved_prompt()
    del saved["items"][3:]  # as if the process died once the approval was recorded
    saved["items"][2].update(status="interrupted", result=None, attempts=0)
    prompt = Prompt.model_validate_json(json.dumps(saved))
    record = prompt.items[2]
    assert isinstance(record, ToolCall)
    resolution = record.interrupts[0].resolution
    assert resolution is not None
    # What a hand-built transcript could hold if it skipped the checks at load.
    object.__setattr__(resolution, "data", "yes")
    run = AgentRun(approval_agent(), prompt)

    result = await asyncio.wait_for(run.run(), timeout=10)

    record = result.prompt.items[2]
    assert isinstance(record, ToolCall)
    assert record.status == "failed"  # the action never ran
    assert record.error is not None
    assert record.error.name == "UnreadableAnswer"
    assert "tool-approval pause cannot be read" in record.error.message
    assert result.status == "completed"  # the model was told, and the run went on


async def approved_prompt() -> dict[str, Any]:
    """A saved transcript whose refund call was approved."""
    run = approval_agent().new_run("Refund order 7")
    await run.run()
    await run.resume(True)
    data: dict[str, Any] = json.loads(run.prompt.model_dump_json())
    return data
