"""A response schema of 10,000 properties, answered in a real JupyterLab: the form shows a
page of fields, typing reaches them, the required fields are found through "Still needed"
and "Find a field", and the kernel receives the answer.

The times are printed against their goals (the form interactive within 500 ms of the
card's arrival, each keystroke under 50 ms), never asserted: `make bench-view` reports
them. 2,000 properties are measured too, for comparison. Screenshots go to
test-artifacts/browser/."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.figures import figure

OpenNotebook = Callable[[str, list[str]], Any]

DISPLAY_BUDGET_MS = 500
KEYSTROKE_BUDGET_MS = 50
REQUIRED = 20

SETUP = """
from pausepoint import Agent, ActionContext, ActionInterrupt, ScriptedModel, action, call

N, REQUIRED = {n}, {required}
KINDS = [{{"type": "string"}}, {{"type": "number"}}, {{"type": "boolean"}},
         {{"enum": ["low", "medium", "high"]}}]
properties = {{f"field_{{i}}": KINDS[i % 4] for i in range(N)}}
# Spread over the whole list, one of each kind in turn.
required = [f"field_{{k * (N // REQUIRED) + k % 4}}" for k in range(REQUIRED)]
SCHEMA = {{"type": "object", "properties": properties, "required": required}}
received = []

@action
async def survey(ctx: ActionContext) -> str:
    \"\"\"Ask for the survey's answers.\"\"\"
    if ctx.resumption is None:
        raise ActionInterrupt("Fill in the survey", response_schema=SCHEMA)
    received.append(ctx.resumption.data)
    return "thanks"

run = Agent(model=ScriptedModel([call("survey"), "Survey received."]),
            actions=[survey]).new_run("Survey")
run
"""
START = "run.start()"
CHECK = """
answer = received[0] if received else {}
filled = {k: v for k, v in answer.items() if not isinstance(v, bool)}
by_number = sorted(filled.items(), key=lambda kv: int(kv[0][6:]))
print("KERNEL", run.state.status, len(answer), by_number)
"""

# Marks, in the page: when the kernel's message with the card arrives, and when the form
# is interactive (its first field drawn, a frame shown, and the main thread free again).
# Long tasks are kept from here on.
WATCH = """() => {
  window.__pp = {arrived: null, drawn: null, interactive: null, long: []};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__pp.long.push([e.startTime, e.duration]);
  }).observe({type: "longtask"});
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  kernel.anyMessage.connect((_, {msg, direction}) => {
    const pending = msg.content?.data?.state?.pending;
    const first = direction === "recv" && window.__pp.arrived === null;
    if (first && Array.isArray(pending) && pending.length > 0) {
      window.__pp.arrived = performance.now();
    }
  });
  const observer = new MutationObserver(() => {
    if (!document.querySelector('.pp-root [data-testid="pp-field-field_0"]')) return;
    observer.disconnect();
    window.__pp.drawn = performance.now();
    requestAnimationFrame(() => setTimeout(() => { window.__pp.interactive = performance.now(); }));
  });
  observer.observe(document.body, {childList: true, subtree: true});
}"""

# Per keystroke: the work its events cause (keydown until the task that handles it ends)
# and the time until the next frame shows it.
KEYS = """() => {
  window.__ppKeys = [];
  window.__pp.long = [];
  if (window.__ppKeysOn) return;
  window.__ppKeysOn = true;
  document.addEventListener("keydown", (event) => {
    const start = performance.now();
    const entry = {work: null, frame: null};
    window.__ppKeys.push(entry);
    setTimeout(() => { entry.work = performance.now() - start; });
    const shown = () => { entry.frame = performance.now() - event.timeStamp; };
    requestAnimationFrame(() => setTimeout(shown));
  }, {capture: true});
}"""


def _keystrokes(page: Any, field: Any, text: str) -> dict[str, float]:
    page.evaluate(KEYS)
    field.focus()
    field.press_sequentially(text, delay=120)
    expect(field).to_have_value(text)
    page.wait_for_timeout(300)
    keys = page.evaluate("() => window.__ppKeys")
    long = page.evaluate("() => window.__pp.long.map(([, d]) => d)")
    assert len(keys) == len(text), keys
    work = [k["work"] for k in keys]
    frame = [k["frame"] for k in keys]
    return {
        "work_median": statistics.median(work),
        "work_max": max(work),
        "frame_median": statistics.median(frame),
        "frame_max": max(frame),
        "longest_task": max(long, default=0.0),
    }


def _fill(card: Any, testid: str) -> None:
    field = card.get_by_test_id(testid)
    tag = field.evaluate("el => el.tagName === 'SELECT' ? 'select' : el.type")
    if tag == "select":
        field.select_option(label="high")
    elif tag == "number":
        field.fill("7")
    else:
        field.fill(f"answer {testid.rsplit('_', 1)[1]}")


@pytest.mark.parametrize("n", [2_000, 10_000])
def test_a_form_of_many_properties_shows_types_and_sends_its_answer(
    open_notebook: OpenNotebook, n: int
) -> None:
    nb = open_notebook(f"big-form-{n}", [SETUP.format(n=n, required=REQUIRED), START, CHECK])
    page = nb.page
    nb.run_cell(0)
    expect(nb.widget(0).get_by_test_id("pp-status")).to_be_visible(timeout=60_000)

    page.evaluate(WATCH)
    nb.run_cell(1)
    # Waited for in the page, so that no locator polls while the form is being drawn.
    page.wait_for_function("() => window.__pp.interactive !== null", timeout=60_000)
    card = nb.widget(0).locator('[data-testid="pp-card"][data-kind="generic"]')
    shown = page.evaluate("() => window.__pp")
    display = shown["interactive"] - shown["arrived"]
    long_at_display = max((d for s, d in shown["long"] if s >= shown["arrived"]), default=0.0)
    nb.screenshot(f"big-form-{n}-shown")

    # A page of fields is drawn, the rest are a button or a search away.
    expect(card.get_by_test_id("pp-field-count")).to_contain_text(f"{n:,} fields")
    assert card.locator("[data-testid^='pp-field-field_']").count() == 50
    hint = card.get_by_test_id("pp-form-hint")
    expect(hint).to_contain_text("and 5 more")
    expect(card.get_by_test_id("pp-submit")).to_be_disabled()

    # Typing into a field of the first page ...
    first = _keystrokes(page, card.get_by_test_id("pp-field-field_4"), "hello world")
    # ... and into one found by name at the end of the list.
    card.get_by_test_id("pp-field-filter").fill(f"field_{n - 4}")
    expect(card.get_by_test_id("pp-field-count")).to_contain_text(f"1 of {n:,} fields match")
    last = _keystrokes(page, card.get_by_test_id(f"pp-field-field_{n - 4}"), "the end")
    card.get_by_test_id("pp-field-filter").fill("")
    print(f"\n{n} properties: longest task while the form was drawn {long_at_display:.0f} ms")
    figure(
        f"a form of {n:,} fields: interactive after the card arrived", display, DISPLAY_BUDGET_MS
    )
    for where, typed in (("first page", first), ("list's end", last)):
        for what, key in (
            ("slowest work", "work_max"),
            ("median to next frame", "frame_median"),
            ("longest task", "longest_task"),
        ):
            name = f"a form of {n:,} fields: keystroke {what} ({where})"
            figure(name, typed[key], KEYSTROKE_BUDGET_MS)

    # Each required field, however far down, is one click away under "Still needed".
    for _ in range(REQUIRED):
        if hint.count() == 0:
            break
        hint.get_by_test_id("pp-needed").first.click()
        focused = page.evaluate("() => document.activeElement.dataset.testid")
        assert focused.startswith("pp-field-field_"), focused
        _fill(card, focused)
    expect(hint).to_have_count(0)
    nb.screenshot(f"big-form-{n}-filled")
    submit = card.get_by_test_id("pp-submit")
    expect(submit).to_be_enabled()
    submit.click()

    expect(nb.widget(0).get_by_test_id("pp-status")).to_contain_text(
        "completed", ignore_case=True, timeout=60_000
    )
    nb.run_cell(2)
    step = n // REQUIRED
    expected = [(f"field_{4}", "hello world")]
    for k in range(REQUIRED):
        i = k * step + k % 4
        expected.append((f"field_{i}", [f"answer {i}", 7, None, "high"][k % 4]))
    expected.append((f"field_{n - 4}", "the end"))
    filled = sorted((kv for kv in expected if kv[1] is not None), key=lambda kv: int(kv[0][6:]))
    expect(nb.output(2).last).to_contain_text(
        f"KERNEL ready {n // 4 + len(filled)} {filled!r}", timeout=30_000
    )
