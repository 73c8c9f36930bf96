"""A stored run after a kernel restart, as a user meets it: the view says the run is
stored and shows the line that loads it; that line, run in a new cell of the new kernel,
shows the run live again and answerable. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from tests.browser.test_lab import SETUP, _card

OpenNotebook = Callable[[str, list[str]], Any]


def _agent(db: Path) -> str:
    return (
        "from pausepoint.store import SQLiteStore\n"
        f"store = SQLiteStore({str(db)!r})\n"
        "agent = Agent(model=ScriptedModel(reply), actions=[refund], store=store)"
    )


START = 'run = agent.start("Refund order 42")\nrun'


def _add_cell_and_run(nb: Any, source: str) -> None:
    nb.page.evaluate(
        """(source) => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = panel.content.widgets.length - 1;
            window.jupyterapp.commands.execute('notebook:insert-cell-below');
            panel.content.activeCell.model.sharedModel.setSource(source);
            window.jupyterapp.commands.execute('notebook:run-cell');
        }""",
        source,
    )


def test_a_stored_run_after_a_restart_names_the_line_that_brings_it_back(
    open_notebook: OpenNotebook, tmp_path: Path
) -> None:
    nb = open_notebook("restart-stored", [SETUP, _agent(tmp_path / "runs.db"), START])
    nb.run_all()
    card = _card(nb, "tool-approval")
    expect(card.get_by_test_id("pp-approve")).to_be_enabled()
    old = nb.widget(0)
    run_id = old.get_by_test_id("pp-run-id").text_content()
    assert run_id
    assert run_id.startswith("run_")

    nb.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
    )

    notice = old.get_by_test_id("pp-kernel-gone")
    expect(notice).to_be_visible(timeout=30_000)
    expect(notice).to_have_attribute("data-stored", "true")
    line = old.get_by_test_id("pp-load-line")
    expect(line).to_have_text(f'agent.load("{run_id}")')
    expect(notice).not_to_contain_text("cell again")
    status = old.get_by_test_id("pp-status")
    expect(status).to_have_class(re.compile(r"\bpp-status-gone\b"))
    expect(status).not_to_have_text("Waiting for an answer")
    expect(card.get_by_test_id("pp-approve")).to_be_disabled()
    nb.screenshot("s-restart-stored-notice")

    # In the new kernel: the setup cells again, then the line the notice names, as is.
    nb.wait_kernel_idle()
    nb.run_cell(0)
    nb.run_cell(1)
    _add_cell_and_run(nb, line.text_content() or "")

    live = nb.widget(1)
    expect(live.get_by_test_id("pp-kernel-gone")).to_have_count(0, timeout=60_000)
    expect(live.get_by_test_id("pp-status")).to_contain_text("Waiting for an answer")
    again = live.locator('[data-testid="pp-card"][data-kind="tool-approval"]')
    expect(again.get_by_test_id("pp-approve")).to_be_enabled(timeout=30_000)
    again.get_by_test_id("pp-approve").click()
    expect(live.get_by_test_id("pp-status")).to_contain_text("Completed", timeout=30_000)
    nb.screenshot("s-restart-stored-loaded")
