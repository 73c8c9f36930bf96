"""Stopping a long run from its view in a real JupyterLab: Stop, and the kernel agrees.
Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

SETUP = """
import asyncio
from pausepoint import Agent, ScriptedModel, action, call

@action
async def crunch(rows: int) -> str:
    \"\"\"Crunch numbers for a long time.\"\"\"
    await asyncio.Event().wait()
    return "crunched"

agent = Agent(model=ScriptedModel([call("crunch", rows=10**9), "Done."]), actions=[crunch])
"""
START = """
run = agent.start("Crunch everything")
run
"""
CHECK = """
call_ = next(run.prompt.tool_calls())
print("KERNEL", run.result.status, "|", call_.status, "|", call_.cancellation.by)
"""

OpenNotebook = Callable[[str, list[str]], Any]


def test_stop_a_long_run_from_the_view(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("stop", [SETUP, START, CHECK])
    nb.run_cell(0)
    nb.run_cell(1)
    view = nb.widget(0)
    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "running", timeout=60_000
    )
    tool = view.locator('[data-testid="pp-tool-call"]')
    expect(tool).to_have_attribute("data-status", "running", timeout=30_000)
    nb.screenshot("stop-running")

    view.get_by_test_id("pp-stop").click()

    status = view.get_by_test_id("pp-status")
    expect(status).to_have_attribute("data-status", "cancelled", timeout=30_000)
    expect(status).to_contain_text("Stopped")
    expect(view.get_by_test_id("pp-stop")).to_have_count(0)
    expect(tool).to_have_attribute("data-status", "cancelled")
    nb.screenshot("stop-cancelled")

    nb.run_cell(2)
    expect(nb.output(2).last).to_contain_text("KERNEL cancelled | cancelled | user", timeout=30_000)


STREAMING = """
import asyncio
from pausepoint import Agent, ModelResponse, TextDelta

class Slow:
    def __init__(self):
        self.asked = 0

    async def request(self, request):
        raise AssertionError("streams")

    async def stream(self, request):
        self.asked += 1
        if self.asked > 1:
            yield ModelResponse(text="And here is the rest.")
            return
        for word in "Here is a long answer that".split():
            yield TextDelta(word + " ")
            await asyncio.sleep(0.05)
        await asyncio.Event().wait()

talk = Agent(model=Slow()).start("Tell me a story")
talk
"""
STREAMING_CHECK = """
print("KERNEL", [i.text for i in talk.prompt.items if i.type == "assistant"], talk.status)
"""


def stopped_while_writing(nb: Any) -> tuple[Any, Any]:
    """Run the streaming cell, click Stop while the model writes: the view and its status."""
    nb.run_cell(0)
    view = nb.widget(0)
    expect(view.get_by_test_id("pp-streaming")).to_contain_text("answer that", timeout=30_000)
    view.get_by_test_id("pp-stop").click()
    status = view.get_by_test_id("pp-status")
    expect(status).to_have_attribute("data-status", "cancelled", timeout=30_000)
    return view, status


def test_stop_while_the_model_writes_keeps_the_text_and_continue_goes_on(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("stop-streaming", [STREAMING, STREAMING_CHECK])

    view, status = stopped_while_writing(nb)

    stopped = view.locator('[data-testid="pp-item"][data-stopped="true"]')
    expect(stopped).to_contain_text("Here is a long answer that")
    # What each step reads: the run "Stopped" (the button's word), the cut reply says what
    # Continue and Retry will do with it, and Continue's title says the same.
    expect(status).to_have_text("Stopped")
    note = stopped.get_by_test_id("pp-stopped-note")
    expect(note).to_have_text(
        "Stopped here. Continue shows the model this part and asks it to go on; "
        "Retry asks again without it."
    )
    go_on = view.get_by_test_id("pp-continue")
    expect(go_on).to_have_attribute("title", re.compile("a cut reply included"))
    nb.screenshot("stop-streaming")

    go_on.click()

    expect(status).to_have_attribute("data-status", "completed", timeout=30_000)
    expect(status).to_have_text("Completed")
    expect(view).to_contain_text("And here is the rest.")
    # Once the run went on, the note says what was done, not what a button would do; the
    # rest came as a reply of its own, not the cut sentence started again.
    expect(note).to_have_text(
        "Stopped here; the model was shown this part when it was asked again."
    )
    expect(view.get_by_test_id("pp-continue")).to_have_count(0)
    replies = view.locator('[data-testid="pp-item"][data-type="assistant"]')
    expect(replies).to_have_count(2)
    expect(replies.nth(1)).not_to_contain_text("Here is a long answer")
    nb.run_cell(1)
    expect(nb.output(1)).to_contain_text(
        "KERNEL ['Here is a long answer that ', 'And here is the rest.'] completed",
        timeout=30_000,
    )


RETRYING = STREAMING.replace("And here is the rest.", "A fresh answer.")
RETRY_CHECK = """
aside = [i.text for i in talk.prompt.items if i.type == "assistant" and i.set_aside]
print("KERNEL", aside, talk.prompt.output, talk.prompt.items[1].set_aside.by, talk.status)
"""


def test_stop_while_the_model_writes_then_retry_asks_again_without_the_stopped_reply(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("stop-retry", [RETRYING, RETRY_CHECK])
    view, status = stopped_while_writing(nb)
    expect(status).to_have_text("Stopped")
    retry = view.get_by_test_id("pp-retry")
    expect(retry).to_have_attribute(
        "title", "Ask the model again, without the turn that ended the run"
    )

    retry.click()

    expect(status).to_have_attribute("data-status", "completed", timeout=30_000)
    expect(status).to_have_text("Completed")
    aside = view.locator('[data-testid="pp-item"][data-set-aside="true"]')
    expect(aside).to_contain_text("Here is a long answer that")
    expect(aside.get_by_test_id("pp-set-aside-note")).to_contain_text("Retry asked the model again")
    expect(view.get_by_test_id("pp-stopped-note")).to_have_count(0)
    expect(view).to_contain_text("A fresh answer.")
    nb.screenshot("stop-retry")
    nb.run_cell(1)
    expect(nb.output(1)).to_contain_text(
        "KERNEL ['Here is a long answer that '] A fresh answer. view completed", timeout=30_000
    )
