"""The view in marimo, as its users run it: `marimo edit` on examples/marimo/quickstart.py,
the run shown with `mo.ui.anywidget(run.view)` in headless Chromium, its card answered
with clicks, the next turn started from the message box, and the page opened again.
What the actions did is read from the kernel by running the notebook's last cell.
Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.helpers import ARTIFACTS, _free_port

EXAMPLE = Path(__file__).parents[2] / "examples" / "marimo" / "quickstart.py"
WAIT = 60_000


class Marimo:
    """`marimo edit` on a copy of the example, its cells run when a page opens."""

    def __init__(self, base: Path) -> None:
        shutil.copy(EXAMPLE, base / "quickstart.py")
        # The page runs the notebook as it opens (marimo's default waits for a click).
        (base / "pyproject.toml").write_text("[tool.marimo.runtime]\nauto_instantiate = true\n")
        self.port = _free_port()
        self.log = base / "marimo.log"
        env = {**os.environ, "MARIMO_SKIP_UPDATE_CHECK": "1", "HOME": str(base)}
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable, "-m", "marimo", "edit", "quickstart.py", "--headless",
                    "--no-token", "--host", "127.0.0.1", "--port", str(self.port),
                ],
                cwd=base, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 120  # a budget for a busy machine, not a requirement
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"marimo did not start; see {self.log}")
            time.sleep(0.3)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url, timeout=5) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def marimo(tmp_path: Path) -> Iterator[Marimo]:
    server = Marimo(tmp_path)
    yield server
    server.stop()


def _shot(page: Any, label: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{label}.png"), full_page=True)
    print(f"screenshots: {ARTIFACTS}/{label}.png")


def _kernel_says(page: Any, text: str) -> None:
    """Run the notebook's last cell (it prints what the actions did) and read its output."""
    last = page.locator(".marimo-cell", has_text="Refunded so far")
    last.locator(".cm-content").click()
    page.keyboard.press("Control+Enter")
    expect(last).to_contain_text(text, timeout=WAIT)


def test_a_run_in_marimo_is_answered_by_clicks_and_goes_on_from_the_message_box(
    marimo: Marimo, browser: Any
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    page = context.new_page()
    page.goto(marimo.url)

    view = page.locator(".pp-root").first
    card = view.get_by_test_id("pp-card")
    expect(card).to_contain_text("Approve running refund_order?", timeout=WAIT)
    # Drawn with the view's styles inside marimo's shadow root: a card has its border.
    # (Read with a retrying assertion: marimo may draw the output again as the page settles.)
    expect(card).to_have_css("border-left-style", "solid")
    _shot(page, "marimo-card")

    card.get_by_test_id("pp-approve").click()

    status = view.get_by_test_id("pp-status")
    expect(status).to_have_text("Completed", timeout=WAIT)
    expect(view).to_contain_text("Done: refund_order returned refunded 35.00 for order 42.")
    _kernel_says(page, "Refunded so far: [42]")

    view.get_by_test_id("pp-message-text").fill("Refund order 7")
    view.get_by_test_id("pp-message-send").click()
    second = view.get_by_test_id("pp-card")
    expect(second).to_contain_text("order_id", timeout=WAIT)
    expect(second).to_contain_text("7")
    second.get_by_test_id("pp-reject-reason").fill("Not this one")
    second.get_by_test_id("pp-reject").click()

    expect(status).to_have_text("Completed", timeout=WAIT)
    expect(view.get_by_test_id("pp-tool-status")).to_have_text(["succeeded", "declined"])
    _kernel_says(page, "Refunded so far: [42]")
    _shot(page, "marimo-answered")

    # Opened again, the page draws the run as it is now, not as marimo first saw it.
    again = context.new_page()
    page.close()
    again.goto(marimo.url)
    view = again.locator(".pp-root").first
    expect(view.get_by_test_id("pp-status")).to_have_text("Completed", timeout=WAIT)
    expect(view.get_by_test_id("pp-tool-status")).to_have_text(["succeeded", "declined"])
    expect(view).to_contain_text("Not this one")
    _shot(again, "marimo-opened-again")
    context.close()
