"""Hostile text on the view's newer surfaces, in a real JupyterLab: tokens of 50,000
characters with no space stay inside the view's column, and hidden or direction-changing
characters show as markers on the Debug panel, the step slider, Compare, Show all, an edit
field, the inbox and the header's failure. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect
from tests.browser.helpers import ARTIFACTS

OpenNotebook = Callable[[str, list[str]], Any]

# Elements whose right edge lies beyond the view's, outside any box that clips them (a
# box with overflow other than visible is checked itself; what it clips is not seen).
OVERFLOW = """(root) => {
  const edge = root.getBoundingClientRect().right + 1;
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== root; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== "visible") return true;
    }
    return false;
  };
  const wide = [];
  for (const el of root.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= edge || clipped(el)) continue;
    wide.push(`${el.tagName.toLowerCase()}.${el.className} right=${Math.round(box.right)}`);
  }
  return {wide: wide.slice(0, 10), scroll: root.scrollWidth, client: root.clientWidth,
          width: root.getBoundingClientRect().width};
}"""

# Raw hidden characters in the view's text nodes and attributes; what an edit field holds
# (its value) is kept exact and is not looked at.
RAW_HIDDEN = r"""(root) => {
  const raw = /[\u202E\u200B]/;
  const found = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let node = walker.currentNode; node; node = walker.nextNode()) {
    if (node.nodeType === Node.TEXT_NODE) {
      if (!node.parentElement.closest("textarea") && raw.test(node.nodeValue)) {
        found.push(`text in ${node.parentElement.tagName}: ${node.nodeValue.slice(0, 60)}`);
      }
      continue;
    }
    for (const attr of node.attributes) {
      if (raw.test(attr.value)) found.push(`${node.tagName}[${attr.name}]`);
    }
  }
  return found;
}"""


def _screenshot(nb: Any, label: str) -> None:
    """The page as the user sees it (a view of 50,000-character texts is too tall to take whole)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    nb.page.screenshot(path=str(ARTIFACTS / f"{label}.png"))
    print(f"screenshot: {ARTIFACTS}/{label}.png")


def _inside(view: Any, what: str) -> None:
    measured = view.evaluate(OVERFLOW)
    assert measured["wide"] == [], (what, measured)
    assert measured["scroll"] <= measured["client"], (what, measured)
    assert measured["width"] <= 1280, (what, measured)


LONG_SETUP = r'''
import pathlib, tempfile
import pausepoint
from pydantic import BaseModel, ConfigDict, Field
from pausepoint import (Agent, ActionContext, ActionInterrupt, ModelResponse, ScriptedModel,
                        action, call)
from pausepoint.store import SQLiteStore

N = 50_000
TOOL, FAIL, LEGEND, LABEL, MSG, TITLE, AGENT = (c * N for c in "TFLDMIA")

class Inner(BaseModel):
    model_config = ConfigDict(title=LEGEND)
    value: str = Field("x", title=LABEL, description=LABEL)

class Answer(BaseModel):
    model_config = ConfigDict(title=LEGEND)
    inner: Inner = Inner()
    choice: str = Field("keep", title=LABEL)

@action
async def ask(ctx: ActionContext) -> str:
    """Ask a person."""
    if ctx.resumption is None:
        raise ActionInterrupt(MSG, response_schema=Answer)
    return "asked"

def reply(request):
    if request.items[-1].type == "user":
        return ModelResponse(tool_calls=[call(TOOL, **{LABEL: MSG}), call("ask")])
    return "done"

def broken(request):
    raise RuntimeError(FAIL)

run = Agent(model=ScriptedModel(reply), actions=[ask]).start("go")
run
'''
LONG_FAILING = """
failing = Agent(model=ScriptedModel(broken)).start("go")
failing
"""
LONG_INBOX = """
store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "runs.db")
agent = Agent(model=ScriptedModel(reply), actions=[ask], name=AGENT, store=store)
waiting = agent.new_run(TITLE)
print("PAUSED", (await waiting.run()).status)
pausepoint.inbox(store, agents={AGENT: agent})
"""


def test_long_tokens_stay_inside_the_view(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("long-tokens", [LONG_SETUP, LONG_FAILING, LONG_INBOX])
    nb.run_all()
    run = nb.output(0).locator(".pp-root")
    failing = nb.output(1).locator(".pp-root")
    inbox = nb.output(2).locator(".pp-root")

    question = run.locator('[data-testid="pp-card"][data-kind="generic"]')
    expect(question).to_be_visible(timeout=60_000)
    expect(question.locator("legend").first).to_contain_text("LLLL")
    tool = run.locator('[data-testid="pp-tool-call"][data-status="failed"]')
    expect(tool).to_be_visible()
    # A tool's name is one line, cut with "…", the whole name on hover.
    name = tool.locator(".pp-tool-name")
    cut = name.evaluate(
        "el => [el.scrollWidth > el.clientWidth, getComputedStyle(el).textOverflow,"
        " el.title.length]"
    )
    assert cut == [True, "ellipsis", 50_000], cut
    expect(tool.get_by_test_id("pp-tool-status")).to_be_visible()
    run.get_by_test_id("pp-debug").locator("summary").click()
    expect(run.get_by_test_id("pp-scrubber")).to_be_visible()
    _inside(run, "run view")
    _screenshot(nb, "long-tokens-run")

    status = failing.get_by_test_id("pp-status")
    expect(status).to_contain_text("Failed: RuntimeError: FFFF", timeout=60_000)
    label = failing.get_by_test_id("pp-status-label")
    assert label.evaluate("el => el.title.length") > 50_000
    assert label.evaluate("el => el.getBoundingClientRect().height") < 100
    _inside(failing, "failed run")
    _screenshot(nb, "long-tokens-failed")

    row = inbox.get_by_test_id("pp-triage-row")
    expect(row).to_have_count(1, timeout=60_000)
    expect(inbox.get_by_test_id("pp-inbox-title")).to_contain_text("IIII")
    expect(inbox.get_by_test_id("pp-inbox-agent")).to_contain_text("AAAA")
    row.get_by_test_id("pp-triage-open").click()
    entry = inbox.get_by_test_id("pp-inbox-entry")
    expect(entry.locator('[data-testid="pp-card"]').first).to_contain_text("MMMM")
    _inside(inbox, "inbox")
    inbox.scroll_into_view_if_needed()
    _screenshot(nb, "long-tokens-inbox")


HIDDEN_SETUP = r'''
import pathlib, tempfile
import pausepoint
from pausepoint import Agent, ModelResponse, ScriptedModel, action, call
from pausepoint.store import SQLiteStore

RLO, ZW = "\u202e", "\u200b"

@action
def big() -> str:
    """A large result."""
    return "x" * 40_000 + f" and {RLO}gpj.exe{ZW} at the end"

@action(needs_approval=True)
def transfer(to: str, amount: float) -> str:
    """Send money."""
    return "sent"

def reply(request):
    if request.items[-1].type == "user":
        return ModelResponse(
            tool_calls=[call(f"ev{RLO}il{ZW}"), call("big"),
                        call("transfer", to=f"alice {RLO}eve", amount=5.0),
                        call("transfer", to=f"bob{ZW}", amount=6.0)],
            usage={f"in{ZW}put": 5}, finish_reason=f"tool{RLO}calls")
    return "done"

model = ScriptedModel(reply)
model.model = f"scripted{RLO}model"
run = Agent(model=model, actions=[big, transfer]).start("go")
run
'''
HIDDEN_FORK = """
await run.wait()
first = run.pending[0]
await run.reject(f"no {RLO}way", interrupt=first.id)
forked = run.fork(at=first.id)
print("FORKED", len(run.forks))
"""
HIDDEN_FAILING = """
def broken(request):
    raise RuntimeError(f"bad {RLO}txt.exe{ZW}")

failing = Agent(model=ScriptedModel(broken)).start("go")
failing
"""
HIDDEN_INBOX = """
store = SQLiteStore(pathlib.Path(tempfile.mkdtemp()) / "runs.db")
agent = Agent(model=ScriptedModel(reply), actions=[big, transfer], name=f"ops{ZW}", store=store)
waiting = agent.new_run(f"Pay {RLO}gpj.exe")
print("PAUSED", (await waiting.run()).status)
pausepoint.inbox(store, agents={f"ops{ZW}": agent})
"""


def _markers(locator: Any, *codes: str) -> None:
    for code in codes:
        expect(locator.get_by_test_id("pp-hidden-char").filter(has_text=code).first).to_be_visible()


def _no_raw(view: Any, what: str) -> None:
    assert view.evaluate(RAW_HIDDEN) == [], what


def test_each_surface_shows_markers_for_hidden_characters(open_notebook: OpenNotebook) -> None:
    nb = open_notebook("hidden-surfaces", [HIDDEN_SETUP, HIDDEN_FORK, HIDDEN_FAILING, HIDDEN_INBOX])
    nb.run_all()
    run = nb.output(0).locator(".pp-root")
    expect(nb.output(1).last).to_contain_text("FORKED 1", timeout=60_000)

    # The Debug panel: the turn's model, usage and finish reason; the waterfall's tooltips.
    run.get_by_test_id("pp-debug").locator("summary").click()
    turn = run.get_by_test_id("pp-debug-turn").first
    _markers(turn.get_by_test_id("pp-debug-model"), "U+202E")
    _markers(turn.get_by_test_id("pp-debug-usage"), "U+200B")
    _markers(turn.get_by_test_id("pp-debug-finish"), "U+202E")
    titles = run.get_by_test_id("pp-waterfall-row").evaluate_all("rows => rows.map(r => r.title)")
    assert any("⟦U+202E⟧" in t for t in titles), titles
    _no_raw(run, "Debug panel")

    # The step slider, at the first model request.
    run.get_by_test_id("pp-scrubber-range").evaluate(
        "el => { el.value = '0'; el.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    _markers(run.get_by_test_id("pp-scrubber-where"), "U+202E")
    expect(run.get_by_test_id("pp-past")).to_be_visible()
    _no_raw(run, "step slider")
    _screenshot(nb, "hidden-slider")
    run.get_by_test_id("pp-scrubber-live").click()

    # Compare this run with its fork: the reason it was declined with.
    expect(run.get_by_test_id("pp-fork")).to_have_count(1, timeout=30_000)
    run.get_by_test_id("pp-compare").click()
    answers = run.get_by_test_id("pp-branch-answer")
    expect(answers).to_have_count(2, timeout=30_000)
    _markers(answers.first, "U+202E")
    _no_raw(run, "Compare")
    _screenshot(nb, "hidden-compare")

    # Show all of a large result.
    big = run.locator('[data-testid="pp-tool-call"][data-name="big"]').first
    big.locator("summary").click()
    big.get_by_test_id("pp-preview-show-all").click()
    shown = big.get_by_test_id("pp-preview")
    expect(shown).to_have_attribute("data-state", "shown", timeout=30_000)
    _markers(big.get_by_test_id("pp-preview-text"), "U+202E", "U+200B")
    _no_raw(run, "Show all")

    # An edit field keeps its value exact and says what it holds.
    card = run.locator('[data-testid="pp-card"][data-kind="tool-approval"]')
    expect(card).to_have_count(1)
    expect(card.get_by_test_id("pp-hidden-warning")).to_be_visible()
    card.get_by_test_id("pp-edit-args").click()
    field = card.get_by_test_id("pp-field-to")
    assert field.input_value() == "bob\u200b"
    warning = card.get_by_test_id("pp-value-hidden")
    expect(warning).to_contain_text("U+200B")
    _markers(warning, "U+200B")
    _no_raw(run, "edit field")
    _screenshot(nb, "hidden-edit")

    # The header's failure.
    failing = nb.output(2).locator(".pp-root")
    label = failing.get_by_test_id("pp-status-label")
    expect(label).to_contain_text("Failed: RuntimeError", timeout=60_000)
    _markers(label, "U+202E", "U+200B")
    _no_raw(failing, "failed run")

    # The inbox: a run's row (title, id, agent's name) and the run opened from it.
    inbox = nb.output(3).locator(".pp-root")
    expect(inbox.get_by_test_id("pp-triage-row")).to_have_count(1, timeout=60_000)
    inbox.get_by_test_id("pp-triage-open").click()
    expect(inbox.get_by_test_id("pp-inbox-entry").get_by_test_id("pp-card")).to_have_count(2)
    _markers(inbox.get_by_test_id("pp-inbox-title"), "U+202E")
    _markers(inbox.get_by_test_id("pp-inbox-agent"), "U+200B")
    _no_raw(inbox, "inbox")
    inbox.scroll_into_view_if_needed()
    _screenshot(nb, "hidden-inbox")
