"""The Debug panel's waterfall after a 2,000-call run, in a real JupyterLab: a time axis,
a legend, bands summed by kind, the longest steps called out; one of them clicked zooms in
to a row and words per step and takes the step slider there; the panel's turn rows keep
their words clear of their buttons. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from tests.browser.helpers import ARTIFACTS

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

LONG = f"""
import sys
sys.path.insert(0, {str(BENCHMARKS)!r})
from _workload import confirm, one_call_per_turn
from pausepoint import Agent, ScriptedModel, action

@action
async def lookup(n: int) -> dict:
    \"\"\"Return a small record for n.\"\"\"
    return {{"n": n}}

run = Agent(model=ScriptedModel(one_call_per_turn(2000, "lookup")),
            actions=[lookup, confirm]).new_run("go")
result = await run.run()
while result.status == "interrupted":
    result = await run.resume(True)
run
"""

OpenNotebook = Callable[[str, list[str]], Any]

TIME = re.compile(r"^\d+(\.\d+)? (µs|ms|s)$|^\d+ min( \d+(\.\d+)? s)?$")

# Each turn row's words against its button: no rectangle of the one may cross the other's.
OVERLAPS = """(list) => {
  const hits = [];
  const crosses = (a, b) =>
    a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const edge = list.getBoundingClientRect();
  for (const row of list.querySelectorAll(':scope > li')) {
    const buttons = [...row.querySelectorAll(':scope > button')]
      .map((b) => b.getBoundingClientRect());
    const words = [];
    for (const node of row.childNodes) {
      if (node.nodeName === 'BUTTON') continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      words.push(...[...range.getClientRects()].filter((r) => r.width > 0));
    }
    const name = row.textContent.trim().slice(0, 40);
    buttons.forEach((box, i) => {
      if (words.some((w) => crosses(w, box))) hits.push(`words under a button: ${name}`);
      const others = buttons.slice(i + 1);
      if (others.some((other) => crosses(other, box))) hits.push(`buttons cross: ${name}`);
      if (box.right > edge.right + 0.5) hits.push(`button past the edge: ${name}`);
    });
  }
  const rows = [...list.querySelectorAll(':scope > li')].map((li) => li.getBoundingClientRect());
  for (let i = 1; i < rows.length; i++) {
    if (rows[i].top < rows[i - 1].bottom - 0.5) hits.push(`row ${i} over row ${i - 1}`);
  }
  return hits;
}"""


def test_the_waterfall_of_a_2000_call_run_has_an_axis_a_legend_bands_and_labels(
    open_notebook: OpenNotebook,
) -> None:
    nb = open_notebook("waterfall", [LONG])
    nb.run_cell(0)
    view = nb.widget()
    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=180_000
    )
    view.get_by_test_id("pp-debug").locator("summary").click()
    waterfall = view.get_by_test_id("pp-waterfall")
    expect(waterfall).to_have_attribute("data-mode", "bands", timeout=30_000)

    ticks = waterfall.get_by_test_id("pp-waterfall-tick").all_text_contents()
    assert len(ticks) >= 3, ticks
    assert all(TIME.match(tick) for tick in ticks), ticks
    assert ticks[0] in ("0 ms", "0 s"), ticks
    keys = waterfall.get_by_test_id("pp-waterfall-key")
    expect(keys).to_have_count(4)
    for kind, words in [
        ("model", "model turn"),
        ("action", "action"),
        ("wait", "waiting for a person"),
        ("breakpoint", "breakpoint"),
    ]:
        expect(
            waterfall.locator(f'[data-testid="pp-waterfall-key"][data-kind="{kind}"]')
        ).to_contain_text(words)
    expect(
        waterfall.locator('[data-testid="pp-waterfall-key"][data-kind="model"]')
    ).to_contain_text("2,001")
    expect(waterfall.locator('[data-testid="pp-waterfall-key"][data-kind="wait"]')).to_contain_text(
        "200"
    )
    bands = waterfall.get_by_test_id("pp-waterfall-band")
    assert [b.get_attribute("data-kind") for b in bands.all()] == ["model", "action", "wait"]
    expect(waterfall.get_by_test_id("pp-waterfall-range")).to_contain_text(
        re.compile(r"^Steps 1–\d,\d{3} of \d,\d{3}")
    )
    expect(waterfall.get_by_test_id("pp-waterfall-cost")).to_have_count(5)
    expect(waterfall.get_by_test_id("pp-waterfall-marker")).to_have_count(5)
    nodes = waterfall.evaluate("(el) => el.querySelectorAll('*').length")
    print(f"waterfall DOM nodes at 2,000 calls (bands): {nodes}")
    assert nodes < 300
    box = waterfall.bounding_box()
    assert box is not None
    assert box["height"] < 400, box
    waterfall.scroll_into_view_if_needed()
    shot = nb.screenshot("waterfall-2000")
    waterfall.screenshot(path=str(ARTIFACTS / "waterfall-2000-panel.png"))
    print(f"screenshots: {shot}, {ARTIFACTS / 'waterfall-2000-panel.png'}")

    # The longest step, clicked: its neighbours a row each, with words; the slider there.
    cost = waterfall.get_by_test_id("pp-waterfall-cost").first
    step = int(cost.get_attribute("data-step") or "-1")
    kind = cost.get_attribute("data-kind")
    cost.click()
    expect(waterfall).to_have_attribute("data-mode", "rows")
    expect(view.get_by_test_id("pp-scrubber-range")).to_have_attribute(
        "aria-valuetext", re.compile(rf"^Step {step + 1} of ")
    )
    current = waterfall.locator('[data-testid="pp-waterfall-row"][aria-current="step"]')
    expect(current).to_have_attribute("data-step", str(step))
    expect(current).to_have_attribute("data-kind", kind or "")
    labels = waterfall.get_by_test_id("pp-waterfall-label").all_text_contents()
    assert len(labels) >= 10, labels
    assert any(re.match(r"^ScriptedModel · [\d.]+ (µs|ms)$", text) for text in labels), labels
    assert any(re.match(r"^lookup · [\d.]+ (µs|ms)$", text) for text in labels), labels
    assert any(text.startswith("waiting for a person · confirm · ") for text in labels), labels
    rows = waterfall.get_by_test_id("pp-waterfall-row")
    assert "Step" in (rows.first.get_attribute("title") or "")
    nodes = waterfall.evaluate("(el) => el.querySelectorAll('*').length")
    print(f"waterfall DOM nodes zoomed to a step's neighbours (rows): {nodes}")
    assert nodes < 300
    # Read each label whole: none runs past the plot's edges.
    clipped = waterfall.evaluate(
        """(el) => {
          const plot = el.querySelector('.pp-wf-plot').getBoundingClientRect();
          return [...el.querySelectorAll('[data-testid="pp-waterfall-label"]')]
            .filter((l) => {
              const r = l.getBoundingClientRect();
              return r.left < plot.left - 1 || r.right > plot.right + 1;
            })
            .map((l) => l.textContent);
        }"""
    )
    assert clipped == []
    waterfall.scroll_into_view_if_needed()
    shot = nb.screenshot("waterfall-2000-zoomed")
    waterfall.screenshot(path=str(ARTIFACTS / "waterfall-2000-zoomed-panel.png"))
    print(f"screenshots: {shot}, {ARTIFACTS / 'waterfall-2000-zoomed-panel.png'}")

    # The keyboard: Fit, from the plot.
    plot = waterfall.locator(".pp-wf-plot")
    plot.focus()
    plot.press("0")
    expect(waterfall).to_have_attribute("data-mode", "bands")

    turns = view.locator(".pp-debug-turns")
    assert turns.evaluate(OVERLAPS) == []
    nb.page.set_viewport_size({"width": 760, "height": 1000})
    expect(view.get_by_test_id("pp-debug-turn").first).to_be_visible()
    assert turns.evaluate(OVERLAPS) == []
    turns.scroll_into_view_if_needed()
    turns.screenshot(path=str(ARTIFACTS / "waterfall-turn-rows-narrow.png"))
    print(f"screenshot: {ARTIFACTS / 'waterfall-turn-rows-narrow.png'}")


SHORT = LONG.replace("2000", "300")

# Every visible word and mark of `root` with its contrast against what it is drawn on, as
# the page's computed styles give them: colours are read back from a canvas (so any CSS
# colour, `color-mix` included, is compared as drawn), and a translucent colour is laid
# over the opaque background beneath it. A label inside a bar is drawn on the bar's tint.
CONTRASTS = """(root) => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const paint = (colours) => {
    for (const c of colours) {
      ctx.fillStyle = c;
      ctx.fillRect(0, 0, 1, 1);
    }
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    return [r, g, b];
  };
  const opaque = (c) => paint(['#fff', c]).join() === paint(['#000', c]).join();
  // The backgrounds under `el`, from the first opaque one up to its own.
  const layers = (el) => {
    const found = [];
    for (let at = el; at; at = at.parentElement) {
      const bg = getComputedStyle(at).backgroundColor;
      if (paint(['#fff', bg]).join() === '255,255,255' && paint(['#000', bg]).join() === '0,0,0') {
        continue;
      }
      found.unshift(bg);
      if (opaque(bg)) break;
    }
    return found;
  };
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((v) => {
      const s = v / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)];
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  };
  const visible = (el) => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden' && !el.closest('[disabled]');
  const name = (el) => `${el.getAttribute('class')}: ${el.textContent.trim().slice(0, 30)}`;
  const out = [];
  for (const el of root.querySelectorAll('*')) {
    if (!visible(el)) continue;
    if ([...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) {
      let under = layers(el);
      if (el.classList.contains('pp-wf-label-inside')) {
        const bar = el.parentElement.querySelector('.pp-wf-bar');
        under = [...layers(el.parentElement), getComputedStyle(bar).backgroundColor];
      }
      const text = paint([...under, getComputedStyle(el).color]);
      out.push({what: 'text', name: name(el), ratio: ratio(text, paint(under))});
    }
    const style = getComputedStyle(el);
    const mark = el.matches('.pp-wf-band') ? style.fill
      : el.matches('.pp-wf-swatch') ? style.backgroundColor
      : el.matches('.pp-wf-bar, .pp-wf-marker') ? style.borderTopColor : null;
    if (mark) {
      const under = layers(el.parentElement);
      out.push({what: 'mark', name: name(el), ratio: ratio(paint([...under, mark]), paint(under))});
    }
  }
  return out;
}"""


def _assert_contrast(waterfall: Any, label: str) -> None:
    found = waterfall.evaluate(CONTRASTS)
    texts = [f for f in found if f["what"] == "text"]
    marks = [f for f in found if f["what"] == "mark"]
    assert len(texts) >= 10, found
    assert len(marks) >= 4, found
    for what, least in (("text", 4.5), ("mark", 3.0)):
        mine = [f for f in found if f["what"] == what]
        worst = min(mine, key=lambda f: f["ratio"])
        print(f"{label}: {len(mine)} {what}s, lowest {worst['ratio']:.2f}:1 ({worst['name']})")
        low = [f"{f['name']} {f['ratio']:.2f}:1" for f in mine if f["ratio"] < least]
        assert low == [], f"{label}: {what} under {least}:1: {low}"


def test_the_waterfalls_words_and_marks_stand_out_in_the_dark_and_light_themes(
    open_notebook: OpenNotebook,
) -> None:
    """Words at least 4.5:1 against what they are drawn on, marks (bands, bars, swatches,
    markers) at least 3:1, in bands and in rows, in JupyterLab's dark and light themes."""
    nb = open_notebook("waterfall-contrast", [SHORT])
    nb.run_cell(0)
    view = nb.widget()
    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=120_000
    )
    view.get_by_test_id("pp-debug").locator("summary").click()
    waterfall = view.get_by_test_id("pp-waterfall")
    for theme, light in (("JupyterLab Dark", "false"), ("JupyterLab Light", "true")):
        nb.page.evaluate(
            "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})",
            theme,
        )
        expect(nb.page.locator(f"body[data-jp-theme-light='{light}']")).to_have_count(1)
        expect(waterfall).to_have_attribute("data-mode", "bands", timeout=30_000)
        _assert_contrast(waterfall, f"{theme}, bands")
        waterfall.get_by_test_id("pp-waterfall-cost").first.click()
        expect(waterfall).to_have_attribute("data-mode", "rows")
        expect(waterfall.get_by_test_id("pp-waterfall-label").first).to_be_visible()
        _assert_contrast(waterfall, f"{theme}, rows")
        waterfall.scroll_into_view_if_needed()
        waterfall.screenshot(path=str(ARTIFACTS / f"waterfall-contrast-{theme.split()[-1]}.png"))
        waterfall.get_by_test_id("pp-waterfall-fit").click()
