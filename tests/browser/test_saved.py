"""A run's view without its kernel, as users meet it: a notebook executed headless and
opened later in JupyterLab, its HTML export, and a view whose kernel was restarted or shut
down while the page stayed open. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import copy
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbconvert import HTMLExporter
from playwright.sync_api import expect
from tests.browser.helpers import ARTIFACTS, Notebook
from tests.browser.test_lab import SETUP, START, _card
from tests.notebooks.headless import EVIL, executed, jupyter

OpenSaved = Callable[[str, nbformat.NotebookNode], Any]


def _no_broken_widget(nb: Any) -> None:
    outputs = nb.page.locator(".jp-OutputArea-output")
    expect(outputs.filter(has_text="Error displaying widget")).to_have_count(0)
    expect(outputs.filter(has_text="<AgentRun")).to_have_count(0)


def test_reopened_headless_notebook_shows_what_happened(open_saved: OpenSaved) -> None:
    """Executed with `jupyter nbconvert --execute`, then opened: not trusted (nobody signed
    it), so JupyterLab shows the safe `text/html` snapshot of each run."""
    nb = open_saved("reopened-quickstart", executed("quickstart"))

    snapshots = nb.page.locator(".jp-OutputArea-output .pausepoint-snapshot")
    expect(snapshots).to_have_count(2, timeout=30_000)
    # The reader's run, left for the reader to answer; "try your own request", answered.
    shown = snapshots.nth(0)
    expect(shown).to_contain_text("Waiting for an answer")
    expect(shown).to_contain_text("Approve running refund_order?")
    mine = snapshots.nth(1)
    expect(mine).to_contain_text("Completed")
    expect(mine).to_contain_text("Done: refund_order returned refunded 12.50 for order 7.")
    expect(mine).to_contain_text("Approved")
    _no_broken_widget(nb)
    shown.scroll_into_view_if_needed()
    nb.screenshot("s-reopened-untrusted")
    shown.screenshot(path=str(ARTIFACTS / "s-reopened-untrusted-output.png"))


def test_reopened_trusted_notebook_draws_the_saved_view_read_only(
    open_saved: OpenSaved, tmp_path: Path
) -> None:
    """Trusted, the saved widget state draws the view itself; its kernel is gone, so the
    card is read-only and says how to show the run again, before anyone clicks."""
    signed = tmp_path / "signed.ipynb"
    nbformat.write(executed("waiting"), signed)
    jupyter("trust", signed.name, cwd=tmp_path)

    nb = open_saved("reopened-waiting", nbformat.read(signed, as_version=4))

    expect(nb.page.locator(".jp-OutputArea-output .pp-root")).to_have_count(1, timeout=30_000)
    view = nb.widget()
    expect(view.get_by_test_id("pp-kernel-gone")).to_contain_text("gone unless it was saved")
    expect(view.get_by_test_id("pp-status")).to_contain_text("Was waiting for an answer")
    # The view is drawn: the static snapshot beside it, for viewers without one, is hidden.
    expect(nb.page.locator(".pausepoint-snapshot-beside-view")).to_be_hidden()
    card = _card(nb, "tool-approval")
    expect(card).to_have_attribute("data-readonly", "true")
    expect(card.get_by_test_id("pp-approve")).to_be_disabled()
    expect(card.get_by_test_id("pp-reject")).to_be_disabled()
    expect(view).to_contain_text(f"Please {EVIL}")  # as text, from the saved state
    assert nb.page.evaluate("() => window.__pwned") is None
    _no_broken_widget(nb)
    card.scroll_into_view_if_needed()
    nb.screenshot("s-reopened-trusted")


AGAIN = 'again = agent.start("Refund order 43")\nagain'
STATIC_ROUTE = "/pausepoint/static/"


def _added_by_outputs(path: Path) -> int:
    """What the outputs and the saved widget state add to the notebook at `path`."""
    saved = nbformat.read(path, as_version=4)
    bare = copy.deepcopy(saved)
    for cell in bare.cells:
        cell.outputs, cell.execution_count = [], None
    bare.metadata.pop("widgets", None)
    return len(nbformat.writes(saved).encode()) - len(nbformat.writes(bare).encode())


def _watch_code_requests(page: Any, *, server_route: bool = True) -> list[tuple[str, int]]:
    """The page's requests for the view's code, as `(<digest>/<file>, status)`; with
    `server_route=False` the server answers them 404, as one without pausepoint's
    extension (VS Code, Voila, an install without its data files) does."""
    asked: list[tuple[str, int]] = []
    if not server_route:
        page.route(f"**{STATIC_ROUTE}**", lambda route: route.fulfill(status=404))
    page.on(
        "response",
        lambda r: (
            asked.append((r.url.split(STATIC_ROUTE)[1], r.status))
            if STATIC_ROUTE in r.url
            else None
        ),
    )
    return asked


@pytest.mark.parametrize("views", [1, 2])
def test_a_notebook_saved_in_jupyterlab_adds_little_per_view_and_reopens_with_its_views(
    open_notebook: Callable[[str, list[str]], Any], browser: Any, views: int
) -> None:
    """Saved with JupyterLab's defaults (widget state is not saved automatically), the
    kernel shut down, the notebook opened again: the view is drawn from what pausepoint
    saved with the notebook, not "Error displaying widget: model not found". The saved
    state carries none of the view's code, even for a single view: the reopened page
    fetches it from the Jupyter server, where pausepoint is installed."""
    name = f"saved-in-lab-{views}"
    nb = open_notebook(name, [SETUP, START, AGAIN][: 1 + views])
    nb.run_all()
    expect(nb.page.locator('[data-testid="pp-card"]')).to_have_count(views, timeout=60_000)
    nb.page.evaluate(
        "async () => { const panel = window.jupyterapp.shell.currentWidget;"
        " await panel.context.save(); await panel.sessionContext.shutdown(); }"
    )
    path = nb.lab.root / f"{name}.ipynb"
    saved = nbformat.read(path, as_version=4)
    states = saved.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    assert [s["state"]["status"] for s in states.values() if "run_id" in s["state"]] == [
        "interrupted"
    ] * views
    [shared] = [s["state"] for s in states.values() if "pausepoint_front_end" in s["state"]]
    assert shared.get("code", "") == ""  # the code's digest, not the code
    added = _added_by_outputs(path)
    print(f"\nsaved in JupyterLab with {views} run view(s): {added / 1000:.1f} KB added, "
          f"{added / views / 1000:.1f} KB per view")  # fmt: skip
    assert added / views <= 60_000

    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        asked = _watch_code_requests(page)
        page.goto(
            f"{nb.lab.url}/lab/workspaces/{uuid.uuid4().hex[:8]}/tree/{name}.ipynb"
            f"?token={nb.lab.token}&reset"
        )
        reopened = Notebook(page, nb.lab, name)
        reopened.wait_kernel_idle()
        view = reopened.widget()
        expect(view.get_by_test_id("pp-kernel-gone")).to_be_visible(timeout=30_000)
        card = _card(reopened, "tool-approval")
        expect(card.get_by_test_id("pp-approve")).to_be_disabled()
        expect(view).to_contain_text("Refund order 42")
        _no_broken_widget(reopened)
        # Fetched from the server once for the page, whatever the number of views.
        digest = shared["pausepoint_front_end"]
        assert sorted(asked) == [(f"{digest}/widget.css", 200), (f"{digest}/widget.js", 200)]
        card.scroll_into_view_if_needed()
        reopened.screenshot(f"s-saved-in-lab-{views}-reopened")
    finally:
        context.close()


def test_a_view_saved_by_another_build_is_drawn_by_the_installed_one(
    open_saved: OpenSaved, tmp_path: Path
) -> None:
    """A notebook saved before pausepoint was upgraded (or its bundle rebuilt), reopened
    without its kernel: the server has no bundle of that digest and the kernel is gone,
    so the view is drawn by the bundle installed now."""
    nb = copy.deepcopy(executed("waiting"))
    states = nb.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    [shared] = [s["state"] for s in states.values() if "pausepoint_front_end" in s["state"]]
    shared["pausepoint_front_end"] = "0" * 16
    signed = tmp_path / "signed.ipynb"
    nbformat.write(nb, signed)
    jupyter("trust", signed.name, cwd=tmp_path)

    opened = open_saved("saved-by-another-build", nbformat.read(signed, as_version=4))

    expect(opened.widget().get_by_test_id("pp-kernel-gone")).to_be_visible(timeout=30_000)
    expect(_card(opened, "tool-approval").get_by_test_id("pp-approve")).to_be_disabled()
    _no_broken_widget(opened)
    opened.screenshot("s-saved-by-another-build")


def test_without_the_server_route_the_kernel_sends_the_views_code(
    open_notebook: Callable[[str, list[str]], Any],
) -> None:
    """Where the Jupyter server does not serve the view's code (no pausepoint extension:
    VS Code, Voila, an install without its data files), the view asks its kernel for it,
    and works: Approve runs the action."""
    nb = open_notebook("no-server-route", [SETUP, START])
    asked = _watch_code_requests(nb.page, server_route=False)
    nb.run_all()
    card = _card(nb, "tool-approval")
    assert sorted(status for _, status in asked) == [404, 404]  # asked the server first
    expect(nb.page.locator(".pausepoint-snapshot-beside-view")).to_be_hidden()  # its css
    card.get_by_test_id("pp-approve").click()
    expect(nb.widget().get_by_test_id("pp-status")).to_contain_text("Completed", timeout=30_000)
    _no_broken_widget(nb)
    nb.screenshot("s-no-server-route")


def test_a_run_answered_in_the_view_is_saved_with_its_final_snapshot(
    open_notebook: Callable[[str, list[str]], Any],
) -> None:
    """The quickstart's flow: the run pauses after its cell ended and is answered by a
    click, with no cell running; the snapshot saved with the notebook follows it."""
    nb = open_notebook("answered-in-view", [SETUP, START])
    nb.run_all()
    card = _card(nb, "tool-approval")
    card.get_by_test_id("pp-approve").click()
    expect(nb.widget().get_by_test_id("pp-status")).to_contain_text("Completed", timeout=30_000)
    # Drawn beside the live view, the snapshot is hidden; it is there for other viewers.
    expect(nb.page.locator(".pausepoint-snapshot-beside-view")).to_be_hidden()
    snapshot = nb.page.locator(".pausepoint-snapshot-beside-view")
    expect(snapshot).to_contain_text("Completed", use_inner_text=False, timeout=30_000)

    nb.page.evaluate("() => window.jupyterapp.shell.currentWidget.context.save()")
    path = nb.lab.root / "answered-in-view.ipynb"
    html = ""
    for _ in range(50):
        saved = nbformat.read(path, as_version=4)
        html = "".join(
            o.get("data", {}).get("text/html", "") for o in saved.cells[1].get("outputs", [])
        )
        if "Completed" in html:
            break
        nb.page.wait_for_timeout(200)
    assert "Completed" in html
    assert "Approved" in html
    assert "Waiting for your answer" not in html


@pytest.mark.parametrize(
    ("how", "script"),
    [
        ("restart", "(s) => s.session.kernel.restart()"),
        ("shutdown", "(s) => s.shutdown()"),
    ],
)
def test_a_view_whose_kernel_went_away_turns_read_only(
    open_notebook: Callable[[str, list[str]], Any], how: str, script: str
) -> None:
    nb = open_notebook(f"kernel-{how}", [SETUP, START])
    nb.run_all()
    card = _card(nb, "tool-approval")
    expect(card.get_by_test_id("pp-approve")).to_be_enabled()
    expect(nb.widget().get_by_test_id("pp-kernel-gone")).to_have_count(0)

    nb.page.evaluate(
        f"() => {{ const s = window.jupyterapp.shell.currentWidget.sessionContext; "
        f"({script})(s); }}"
    )

    notice = nb.widget().get_by_test_id("pp-kernel-gone")
    expect(notice).to_be_visible(timeout=30_000)
    expect(card.get_by_test_id("pp-approve")).to_be_disabled()
    expect(card.get_by_test_id("pp-reject")).to_be_disabled()
    expect(card).to_have_attribute("data-readonly", "true")
    # A run kept in memory: gone with its kernel, and nothing suggests "run the cell
    # again" (a cell holding just `run` would be IPython's %run magic in a new kernel).
    expect(notice).to_contain_text("gone unless it was saved")
    expect(notice).not_to_contain_text("cell again")
    status = nb.widget().get_by_test_id("pp-status")
    expect(status).to_have_class(re.compile(r"\bpp-status-gone\b"))
    expect(status).to_contain_text("Was waiting for an answer")
    expect(nb.widget().get_by_test_id("pp-pending-jump")).to_have_count(0)
    nb.screenshot(f"s-kernel-{how}")
    if how == "restart":
        nb.wait_kernel_idle()  # the new kernel, before the server is asked to stop it


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    yield context.new_page()
    context.close()


def test_html_export_shows_the_snapshot_and_runs_nothing(page: Any, tmp_path: Path) -> None:
    body, _ = HTMLExporter().from_notebook_node(executed("later-no-state"))
    html = tmp_path / "evil.html"
    html.write_text(body, encoding="utf-8")

    page.route("http*://**", lambda route: route.abort())  # offline, as a file on a laptop
    page.goto(html.as_uri(), wait_until="domcontentloaded")

    snapshot = page.locator(".pausepoint-snapshot")
    expect(snapshot).to_have_count(1)
    expect(snapshot).to_contain_text(f"Please {EVIL}")
    expect(snapshot).to_contain_text(f"Done {EVIL}")
    expect(snapshot).to_contain_text("Completed")
    assert snapshot.locator("img, script, button, input").count() == 0
    assert page.evaluate("() => window.__pwned") is None
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    snapshot.screenshot(path=str(ARTIFACTS / "s-nbconvert-html.png"))


def test_html_export_of_a_notebook_with_saved_views_shows_each_run_offline(page: Any) -> None:
    """The quickstart answered from code, saved with its views' state and exported with
    the default `jupyter nbconvert --to html`, opened with no network: the live views
    cannot be drawn (their scripts come from a CDN); each run's snapshot shows."""
    from tests.notebooks.test_saved_html import answered

    path, _ = answered()
    jupyter("nbconvert", "--to", "html", path.name, "--output", "offline", cwd=path.parent)

    page.route("http*://**", lambda route: route.abort())
    page.goto((path.parent / "offline.html").as_uri(), wait_until="load")

    snapshots = page.locator(".pausepoint-snapshot")
    expect(snapshots).to_have_count(2)
    for i in range(2):
        expect(snapshots.nth(i)).to_be_visible()
        expect(snapshots.nth(i)).to_contain_text("Completed")
        expect(snapshots.nth(i)).to_contain_text("Approved")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    snapshots.nth(0).screenshot(path=str(ARTIFACTS / "s-nbconvert-offline-quickstart.png"))
