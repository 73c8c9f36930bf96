"""The static snapshot stays small whatever the run holds, and shows what will run."""

from __future__ import annotations

import re
from html import escape

from pydantic import BaseModel
from tests.widget.test_view_previews import ANSWER, RESULT, large_run

from pausepoint import Agent, ScriptedModel, action, call
from pausepoint.widget._snapshot import MAX_TEXT, snapshot_html


class Refund(BaseModel):
    order: int
    cents: int


async def test_a_large_result_and_answer_leave_the_snapshot_small() -> None:
    run = await large_run()
    await run.run()
    await run.resume(ANSWER)

    html = snapshot_html(run)

    assert len(html) < 20 * MAX_TEXT
    cut = sorted(int(n.replace(",", "")) for n in re.findall(r"([\d,]+) more characters", html))
    assert any(len(RESULT) - 2 * MAX_TEXT < n <= len(RESULT) for n in cut)
    # The answer reads as its decision, its value cut to a glance.
    assert escape(f"Answered: {ANSWER[:79]}…") in html


async def test_an_approval_after_a_breakpoint_edit_shows_the_edited_arguments() -> None:
    @action(needs_approval=True)
    async def refund(input: Refund) -> str:
        """Refund part of an order."""
        return "ok"

    model = ScriptedModel([call("refund", order=42, cents=12_345), "Refunded."])
    run = Agent(model=model, actions=[refund]).new_run("Refund", breakpoints=["refund"])
    await run.run()
    await run.debug.edit({"order": 42, "cents": 700})

    waiting = snapshot_html(run).split("Waiting for your answer", 1)[1]

    assert "700" in waiting
    assert "12345" not in waiting
