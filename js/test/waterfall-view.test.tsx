import { type ComponentProps, render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DETAIL_STEPS, LONGEST, MAX_BINS, Waterfall } from "../src/components/Waterfall";
import type { Step } from "../src/lib/past";
import { scriptedSteps, T0 } from "./fixtures-steps";

afterEach(() => {
  document.body.innerHTML = "";
});

// The waterfall alone, without the widget around it (helpers.ts brings the whole view).
function within(root: ParentNode) {
  const q = (testid: string) => root.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
  return {
    q,
    qa: (testid: string) => [...root.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)],
    get(testid: string): HTMLElement {
      const found = q(testid);
      if (!found) throw new Error(`no element with data-testid=${testid}`);
      return found;
    },
  };
}

function click(element: HTMLElement): void {
  act(() => element.click());
}

type Props = Partial<ComponentProps<typeof Waterfall>>;

function draw(steps: Step[], props: Props = {}) {
  const el = document.createElement("div");
  document.body.appendChild(el);
  const onPick = vi.fn();
  const paint = (more: Props = {}) =>
    act(() => {
      render(<Waterfall steps={steps} onPick={onPick} {...props} {...more} />, el);
    });
  paint();
  return { el, onPick, paint, ...within(el) };
}

function key(target: HTMLElement, name: string) {
  act(() => {
    target.dispatchEvent(new KeyboardEvent("keydown", { key: name, bubbles: true }));
  });
}

describe("the waterfall of a short run", () => {
  it("has a time axis, a legend with the time and steps of each kind, and a row a step", () => {
    const view = draw(scriptedSteps(10));
    expect(view.get("pp-waterfall").dataset.mode).toBe("rows");
    const ticks = view.qa("pp-waterfall-tick").map((t) => t.textContent);
    expect(ticks[0]).toBe("0 ms");
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks.every((t) => / (µs|ms|s)$/.test(t ?? ""))).toBe(true);
    const keys = view.qa("pp-waterfall-key");
    expect(keys.map((k) => k.dataset.kind)).toEqual(["model", "action", "wait", "breakpoint"]);
    expect(keys.map((k) => k.textContent?.trim())).toEqual(["model turn1.5 ms · 5", "action500 µs · 5", "waiting for a person0 µs · 0", "breakpoint0 µs · 0"]);
    const rows = view.qa("pp-waterfall-row");
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.dataset.kind).slice(0, 3)).toEqual(["model", "action", "model"]);
    expect(rows[0]!.getAttribute("title")).toBe("Step 1 of 10, model turn: ScriptedModel · 300 µs, began as the run did");
    expect(rows[0]!.getAttribute("aria-label")).toBe(rows[0]!.getAttribute("title"));
    // Each step's words fit beside its bar in a 600px plot.
    const labels = view.qa("pp-waterfall-label").map((l) => l.textContent);
    expect(labels).toHaveLength(10);
    expect(labels[0]).toBe("ScriptedModel · 300 µs");
    expect(labels[1]).toBe("lookup · 100 µs");
    expect(view.get("pp-waterfall-range").textContent).toBe("Steps 1–10 of 10 · 0 µs to 2.5 ms");
  });

  it("leaves out words that fit nowhere, keeping them on hover and focus", () => {
    const long = "a-model-whose-name-is-far-too-long-to-draw-beside-a-bar-in-the-middle-of-the-plot";
    const steps: Step[] = [
      { kind: "action", label: "first", start: T0, end: T0 + 400 },
      { kind: "model", label: long, start: T0 + 420, end: T0 + 460 },
      { kind: "action", label: "last", start: T0 + 480, end: T0 + 1000 },
    ];
    const view = draw(steps);
    const rows = view.qa("pp-waterfall-row");
    expect(rows.map((r) => r.querySelector('[data-testid="pp-waterfall-label"]')?.textContent ?? null)).toEqual(["first · 400 µs", null, "last · 520 µs"]);
    expect(rows[1]!.getAttribute("title")).toContain(long);
    expect(rows[1]!.tabIndex).toBe(0);
  });

  it("marks the slider's step, and takes the slider to a step clicked", () => {
    const view = draw(scriptedSteps(10), { current: 3 });
    const rows = view.qa("pp-waterfall-row");
    expect(rows.map((r) => r.getAttribute("aria-current"))).toEqual([null, null, null, "step", null, null, null, null, null, null]);
    click(rows[6]!);
    expect(view.onPick).toHaveBeenCalledWith(6);
  });

  it("zooms and pans with its buttons and keys, says which steps are in view, and fits again", () => {
    const view = draw(scriptedSteps(30));
    const range = () => view.get("pp-waterfall-range").textContent;
    const fit = view.get("pp-waterfall-fit") as HTMLButtonElement;
    expect(fit.disabled).toBe(true);
    expect((view.get("pp-waterfall-earlier") as HTMLButtonElement).disabled).toBe(true);
    expect(range()).toMatch(/^Steps 1–30 of 30 · 0 µs to /);

    click(view.get("pp-waterfall-zoom-in"));
    expect(range()).toContain("zoomed ×2");
    expect(fit.disabled).toBe(false);
    const middle = view.qa("pp-waterfall-row").map((r) => Number(r.dataset.step));
    expect(middle[0]).toBeGreaterThan(0);
    expect(middle.at(-1)).toBeLessThan(29);
    expect(range()).toContain(`Steps ${middle[0]! + 1}–${middle.at(-1)! + 1} of 30`);

    const plot = view.el.querySelector<HTMLElement>(".pp-wf-plot")!;
    key(plot, "ArrowRight");
    const later = view.qa("pp-waterfall-row").map((r) => Number(r.dataset.step));
    expect(later[0]).toBeGreaterThan(middle[0]!);
    key(plot, "+");
    expect(range()).toContain("zoomed ×4");
    const closer = Number(view.qa("pp-waterfall-row")[0]!.dataset.step);
    click(view.get("pp-waterfall-earlier"));
    expect(Number(view.qa("pp-waterfall-row")[0]!.dataset.step)).toBeLessThan(closer);
    key(plot, "-");
    expect(range()).toContain("zoomed ×2");
    key(plot, "0");
    expect(range()).toMatch(/^Steps 1–30 of 30 · 0 µs to [^·]*$/);
    expect(fit.disabled).toBe(true);
    click(view.get("pp-waterfall-zoom-in"));
    click(fit);
    expect(view.qa("pp-waterfall-row")).toHaveLength(30);
  });

  it("draws a step that goes on up to now, and nothing for a run with no steps", () => {
    const now = Date.now() * 1000;
    const view = draw([{ kind: "wait", label: "refund", start: now - 5_000_000, end: null }]);
    expect(view.get("pp-waterfall-label").textContent).toMatch(/^waiting for a person · refund · 5\.\d\d s so far$/);
    const empty = draw([]);
    expect(empty.el.innerHTML).toBe("");
  });
});

describe("the waterfall of a long run", () => {
  for (const n of [2000, 10_000]) {
    it(`sums ${n.toLocaleString("en-US")} steps into bands by kind, in a DOM of a bounded size`, () => {
      const steps = scriptedSteps(n);
      const view = draw(steps, { current: n - 1 });
      const waterfall = view.get("pp-waterfall");
      expect(waterfall.dataset.mode).toBe("bands");
      expect(view.qa("pp-waterfall-row")).toHaveLength(0);
      const bands = view.qa("pp-waterfall-band");
      expect(bands.map((b) => b.dataset.kind)).toEqual(["model", "action", "wait"]);
      // One rectangle per bin a kind has time in: at most MAX_BINS, whatever the length.
      for (const band of bands) {
        const rects = band.getAttribute("d")!.match(/M/g)!.length;
        expect(rects).toBeGreaterThan(10);
        expect(rects).toBeLessThanOrEqual(MAX_BINS);
      }
      expect(view.qa("pp-waterfall-tick").length).toBeGreaterThanOrEqual(3);
      expect(view.get("pp-waterfall-range").textContent).toMatch(
        new RegExp(`^Steps 1–${n.toLocaleString("en-US")} of ${n.toLocaleString("en-US")} · 0 µs to `),
      );
      expect(view.q("pp-waterfall-current")).not.toBeNull();
      // The longest steps, called out on the plot and listed.
      const costs = view.qa("pp-waterfall-cost");
      expect(costs).toHaveLength(LONGEST);
      expect(costs.every((c) => c.textContent!.includes("waiting for a person · confirm"))).toBe(true);
      expect(view.qa("pp-waterfall-marker").map((m) => m.textContent)).toEqual(["1", "2", "3", "4", "5"]);
      const nodes = waterfall.querySelectorAll("*").length;
      expect(nodes).toBeLessThan(120);
    });
  }

  it("reads the bin under the pointer, and zooms in there on a click", () => {
    const steps = scriptedSteps(2000);
    const view = draw(steps);
    const svg = view.get("pp-waterfall-bands");
    svg.getBoundingClientRect = () => ({ left: 0, top: 0, width: 600, height: 72, right: 600, bottom: 72, x: 0, y: 0, toJSON: () => ({}) });
    expect(view.get("pp-waterfall-readout").textContent).toContain("Point at the bands");
    act(() => {
      svg.dispatchEvent(new MouseEvent("mousemove", { clientX: 300, bubbles: true }));
    });
    expect(view.get("pp-waterfall-readout").textContent).toMatch(/ to .*: steps [\d,]+–[\d,]+ · model turn [\d.]+ (µs|ms) \(\d+\) · action /);
    act(() => {
      svg.dispatchEvent(new MouseEvent("click", { clientX: 300, bubbles: true }));
    });
    expect(view.get("pp-waterfall-range").textContent).toContain("zoomed ×4");
  });

  it("takes the slider to a longest step and zooms to its neighbours, one row each", () => {
    const steps = scriptedSteps(10_000);
    const view = draw(steps);
    const first = view.qa("pp-waterfall-cost")[0]!;
    const index = Number(first.dataset.step);
    click(first);
    expect(view.onPick).toHaveBeenCalledWith(index);
    expect(view.get("pp-waterfall").dataset.mode).toBe("rows");
    const rows = view.qa("pp-waterfall-row");
    expect(rows.length).toBeLessThanOrEqual(DETAIL_STEPS);
    expect(rows.map((r) => Number(r.dataset.step))).toContain(index);
    expect(view.qa("pp-waterfall-label").length).toBeGreaterThan(10);
    expect(view.get("pp-waterfall").querySelectorAll("*").length).toBeLessThan(300);
  });

  it("follows the slider to a step out of the zoomed stretch", () => {
    const steps = scriptedSteps(2000);
    const view = draw(steps, { current: 10 });
    click(view.qa("pp-waterfall-cost")[0]!);
    view.paint({ current: 1500 });
    expect(view.qa("pp-waterfall-row").map((r) => Number(r.dataset.step))).toContain(1500);
    expect(view.el.querySelector('[aria-current="step"]')?.getAttribute("data-step")).toBe("1500");
  });
});
