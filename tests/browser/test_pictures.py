"""The README's pictures, taken from the real view in JupyterLab, light and dark.

`make pictures` runs this test to redraw `docs/images/*.png` from the current front end
(commit them when the view changes); other runs draw them into test-artifacts/pictures, so
a test run leaves the checkout as it was.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from tests.browser.test_lab import FORM_SETUP, _in_theme, open_quickstart
from tests.browser.test_view_reading import PIXELS_DIFFER

IMAGES = Path(
    os.environ.get("PAUSEPOINT_PICTURES")
    or Path(os.environ.get("PAUSEPOINT_ARTIFACTS", "test-artifacts")) / "pictures"
).resolve()
THEMES = (("light", "JupyterLab Light"), ("dark", "JupyterLab Dark"))

OpenNotebook = Callable[[str, list[str]], Any]


def _picture(nb: Any, view: Any, name: str) -> dict[str, Path]:
    """The view, with the notebook's own margin around it, in both themes."""
    paths: dict[str, Path] = {}
    IMAGES.mkdir(parents=True, exist_ok=True)
    output = view.locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')]")
    for label, theme in THEMES:
        _in_theme(nb, theme)
        view.scroll_into_view_if_needed()
        nb.page.mouse.move(0, 0)  # no hover state in the picture
        path = IMAGES / f"{name}-{label}.png"
        output.first.screenshot(path=str(path), animations="disabled", caret="hide")
        paths[label] = path
    _in_theme(nb, "JupyterLab Light")
    urls = [
        "data:image/png;base64," + base64.b64encode(paths[label].read_bytes()).decode()
        for label in ("light", "dark")
    ]
    # Same size, and the dark picture really is the dark theme (most pixels differ).
    width, height = nb.page.evaluate(
        """async (src) => { const i = new Image(); i.src = src; await i.decode();
                            return [i.width, i.height]; }""",
        urls[0],
    )
    assert width >= 300, f"{name}: a picture {width} px wide"
    assert height >= 80, f"{name}: a picture {height} px high"
    changed = nb.page.evaluate(PIXELS_DIFFER, urls)
    assert changed > width * height // 3, f"{name}: light and dark differ in {changed} pixels"
    print(f"pictures: {paths['light']} {paths['dark']} ({width}x{height})")
    return paths


def test_readme_pictures_of_the_card_the_form_and_a_completed_run(
    open_notebook: OpenNotebook,
) -> None:
    # The quickstart notebook, run down to its view: the approval card.
    nb = open_quickstart(open_notebook, "pictures-quickstart")
    nb.run_cell(8)
    card = nb.page.locator('[data-testid="pp-card"][data-kind="tool-approval"]').first
    expect(card).to_be_visible(timeout=60_000)
    expect(card.get_by_test_id("pp-approve")).to_be_enabled()
    _picture(nb, nb.widget(), "quickstart-card")

    # The same run, approved and completed.
    card.get_by_test_id("pp-approve").click()
    expect(nb.page.get_by_test_id("pp-status").first).to_contain_text(
        "completed", ignore_case=True, timeout=30_000
    )
    _picture(nb, nb.widget(), "completed-run")

    # A question with a response schema: the form built from it.
    nb = open_notebook("pictures-form", [FORM_SETUP])
    nb.run_all()
    form = nb.page.locator('[data-testid="pp-card"]').first
    expect(form.get_by_test_id("pp-field-quantity")).to_be_visible(timeout=60_000)
    _picture(nb, nb.widget(), "schema-form")
