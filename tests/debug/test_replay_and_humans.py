"""Replay of a recorded session, and scripted humans answering by rules."""

from __future__ import annotations

from typing import Any

import pytest
from tests.debug.helpers import Ledger, RecordingModel

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    Prompt,
    ReplayModel,
    ScriptedModel,
    action,
    call,
    humans,
)
from pausepoint.errors import ReplayDivergedError


def shop(model: Any, ledger: Ledger, **run: Any) -> Agent:
    @action(needs_approval=True)
    async def refund(order: int, cents: int) -> str:
        """Refund."""
        ledger.refunds.append(cents)  # type: ignore[arg-type]
        return f"refunded {cents}"

    @action(needs_approval=True)
    async def delete_record(id: int) -> str:
        """Delete."""
        return f"deleted {id}"

    @action
    async def ask_date(ctx: ActionContext) -> str:
        """Ask a person for a date."""
        if ctx.resumption is None:
            raise ActionInterrupt(
                "Which date?",
                response_schema={
                    "title": "Date",
                    "type": "object",
                    "properties": {"date": {"type": "string"}},
                },
            )
        return str(ctx.resumption.data["date"])

    return Agent(model=model, actions=[refund, delete_record, ask_date])


def session() -> list[Any]:
    return [
        [call("refund", order=42, cents=500), call("delete_record", id=7)],
        call("ask_date"),
        "Refunded, kept the record, booked.",
    ]


def policy(**extra: Any) -> humans.Policy:
    return humans.Policy(
        approve=["refund"],
        reject={"delete_record": "not today"},
        answers={"Date": {"date": "2026-12-24"}},
        **extra,
    )


def _comparable(prompt: Prompt) -> list[Any]:
    """The transcript with ids and times aside."""
    out: list[Any] = []
    for item in prompt.model_dump(mode="json")["items"]:
        item.pop("call", None)
        item.pop("started_at", None)
        item.pop("ended_at", None)
        for entry in item.get("interrupts", []):
            for key in ("id", "created_at"):
                entry.pop(key)
            if entry.get("resolution"):
                entry["resolution"].pop("at")
        out.append(item)
    return out


async def test_a_policy_answers_by_rules_through_resume_and_reject_and_logs() -> None:
    ledger = Ledger()
    run = shop(ScriptedModel(session()), ledger).new_run("Refund 42")
    result = await policy().drive(run)
    assert result.status == "completed"
    assert ledger.refunds == [500]
    calls = {r.name: r for r in run.prompt.tool_calls()}
    assert calls["delete_record"].status == "rejected"
    assert calls["delete_record"].error is not None
    assert calls["delete_record"].error.message == "not today"
    assert calls["ask_date"].result == "2026-12-24"


async def test_a_policy_leaves_unmatched_interrupts_pending_or_raises_when_strict() -> None:
    run = shop(ScriptedModel(session()), Ledger()).new_run("x")
    result = await humans.Policy(approve=["refund"]).drive(run)
    assert result.status == "interrupted"
    assert [p.tool_call.name for p in run.pending] == ["delete_record"]
    with pytest.raises(humans.UnansweredInterruptError, match="delete_record"):
        await humans.Policy(strict=True).drive(run)
    assert [p.tool_call.name for p in run.pending] == ["delete_record"]


async def test_a_policy_leaves_breakpoints_alone_unless_told() -> None:
    ledger = Ledger()
    run = shop(ScriptedModel(session()), ledger).new_run("x", breakpoints=["refund"])
    leaves = policy()
    result = await leaves.drive(run)
    assert result.status == "interrupted"
    assert run.pending[0].kind == "breakpoint"
    assert [a.kind for a in leaves.log] == ["tool-approval"]  # delete_record's, declined
    assert ledger.refunds == []
    driver = policy(breakpoints="continue")
    result = await driver.drive(run)
    assert result.status == "completed"
    assert next(a.kind for a in driver.log) == "breakpoint"


async def test_replay_with_scripted_humans_reproduces_the_recorded_transcript() -> None:
    recorded_model = RecordingModel(session())
    recorded = shop(recorded_model, Ledger()).new_run("Refund 42")
    await policy().drive(recorded)
    saved = recorded.prompt.model_dump_json()

    replay = ReplayModel.from_prompt(saved)
    again = shop(replay, Ledger()).new_run(Prompt.from_user("Refund 42"))
    result = await policy().drive(again)
    assert result.status == "completed"
    assert _comparable(again.prompt) == _comparable(recorded.prompt)
    assert replay.diverged_at is None
    models = [i.call.model for i in again.prompt.items if getattr(i, "call", None)]  # type: ignore[union-attr]
    assert models == ["RecordingModel"] * 3


async def test_replay_that_diverges_without_a_fallback_fails_with_a_clear_error() -> None:
    recorded = shop(ScriptedModel(session()), Ledger()).new_run("Refund 42")
    await policy().drive(recorded)
    replay = ReplayModel.from_prompt(recorded.prompt)
    again = shop(replay, Ledger()).new_run("Refund 42")
    other = humans.Policy(approve=["refund", "delete_record"], answers={"Date": {"date": "x"}})
    result = await other.drive(again)
    assert result.status == "failed"
    assert isinstance(result.exception, ReplayDivergedError)
    assert "turn 1" in str(result.exception)
    assert "fallback" in str(result.exception)


async def test_replay_hands_diverging_turns_to_the_fallback() -> None:
    recorded = shop(ScriptedModel(session()), Ledger()).new_run("Refund 42")
    await policy().drive(recorded)
    fallback = RecordingModel(["(unused)", "Something else happened."])
    replay = ReplayModel.from_prompt(recorded.prompt, fallback=fallback)
    again: AgentRun = shop(replay, Ledger()).new_run("Refund 42")
    result = await humans.Policy(approve=["refund", "delete_record"]).drive(again)
    assert result.status == "completed"
    assert result.output == "Something else happened."
    assert replay.diverged_at == 1
    assert fallback.calls == 1


async def test_a_policy_told_to_continue_drives_a_stepping_run_to_the_end() -> None:
    ledger = Ledger()
    run = shop(ScriptedModel(session()), ledger).new_run("x", step=True)
    assert (await policy().drive(run)).status == "paused"
    driver = policy(breakpoints="continue")
    result = await driver.drive(run)
    assert result.status == "completed"
    assert ledger.refunds == [500]
    assert driver.log[0].kind == "model-pause"


async def test_a_policy_drives_a_run_started_in_the_background_with_breakpoints() -> None:
    ledger = Ledger()
    run = shop(ScriptedModel(session()), ledger).start("Refund 42", breakpoints=["refund"])
    driver = policy(breakpoints="continue")
    result = await driver.drive(run)
    assert result.status == "completed"
    assert ledger.refunds == [500]
    assert [a.kind for a in driver.log].count("breakpoint") == 1
