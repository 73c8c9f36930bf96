"""Jupyter Notebook 7 (the `notebook` package), not only JupyterLab: the quickstart's
approve flow in headless Chromium. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import nbformat
from playwright.sync_api import expect
from tests.browser.test_lab import QUICKSTART, _card, _expect_status, _kernel_says


def approve_the_quickstart(nb: Any, label: str) -> None:
    """Run the quickstart down to its run, click Approve, see the run complete in the view
    and in the kernel (Notebook 7 and JupyterLab alike)."""
    nb.page.evaluate(
        """() => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = 8;
            window.jupyterapp.commands.execute('notebook:run-all-above');
        }"""
    )
    nb.run_cell(8)
    card = _card(nb, "tool-approval")
    expect(card).to_contain_text("refund_order")
    card.scroll_into_view_if_needed()
    nb.screenshot(f"{label}-card")

    card.get_by_test_id("pp-approve").click()

    _expect_status(nb, "completed")
    expect(nb.widget()).to_contain_text("Done: refund_order returned refunded 35.00 for order 42.")
    _kernel_says(nb, 10, "completed")
    expect(nb.output(10).last).not_to_contain_text("approving from code")
    nb.screenshot(f"{label}-completed")


def test_quickstart_approve_in_notebook_7(open_in_notebook7: Callable[..., Any]) -> None:
    nb = open_in_notebook7("quickstart", nbformat.read(QUICKSTART, as_version=4))
    assert "/notebooks/quickstart.ipynb" in nb.page.url
    expect(nb.page.locator("#jp-NotebookPanel-notebook, .jp-NotebookPanel").first).to_be_visible()
    approve_the_quickstart(nb, "n7-quickstart")
