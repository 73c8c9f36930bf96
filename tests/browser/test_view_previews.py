"""Large values in JupyterLab: a 5 MiB result arrives as a preview with its size, and
"Show all" brings the whole value from the kernel. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

OpenNotebook = Callable[[str, list[str]], Any]

LARGE = """
from pausepoint import Agent, ScriptedModel, action, call

@action
async def fetch_log(topic: str) -> str:
    \"\"\"Fetch a log.\"\"\"
    return "line of the log\\n" * (5 * 1024 * 1024 // 16)

run = Agent(model=ScriptedModel([call("fetch_log", topic="disk"), "Read it."]),
            actions=[fetch_log]).start("Fetch the log")
run
"""
FIVE_MIB = 5 * 1024 * 1024
LENGTH = "(el) => el.textContent.length"
COUNT_RECEIVED = """() => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  window.ppReceived = 0;
  kernel.anyMessage.connect((_, args) => {
    if (args.direction === "recv") window.ppReceived += JSON.stringify(args.msg.content).length;
  });
}"""


def test_a_large_result_shows_as_a_preview_with_its_size_and_show_all_reveals_it(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("large-result", [LARGE])
    nb.page.evaluate(COUNT_RECEIVED)
    nb.run_all()
    view = nb.widget()
    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=60_000
    )
    expect(view).to_contain_text("Read it.")
    view.locator('[data-testid="pp-tool-call"] .pp-tool-summary').click()
    preview = view.get_by_test_id("pp-preview")
    expect(preview.get_by_test_id("pp-preview-size")).to_contain_text("5.0 MiB")
    shown = preview.get_by_test_id("pp-preview-text")
    assert shown.evaluate(LENGTH) < 5000
    nb.screenshot("p-large-result-preview")
    # Everything the page got from the kernel while the run worked, the front-end bundle
    # included: a fraction of the one value.
    total = nb.page.evaluate("() => window.ppReceived")
    print(f"bytes received by the page during the run: {total:,}")
    assert total < FIVE_MIB // 2

    preview.get_by_test_id("pp-preview-show-all").click()
    expect(preview).to_have_attribute("data-state", "shown", timeout=30_000)
    assert shown.evaluate(LENGTH) == FIVE_MIB
    expect(preview.get_by_test_id("pp-preview-size")).to_have_text("All 5.0 MiB")
    nb.screenshot("p-large-result-shown")
