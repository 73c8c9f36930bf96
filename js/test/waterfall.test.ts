import { describe, expect, it } from "vitest";
import type { Step } from "../src/lib/past";
import {
  around,
  axisTicks,
  binSteps,
  isWhole,
  KINDS,
  labelPlace,
  pan,
  shownSteps,
  stepLabel,
  tickLabel,
  took,
  usageByTurn,
  usageKey,
  wholeRun,
  zoom,
} from "../src/lib/waterfall";
import type { Item } from "../src/types";

import { MS, S, scriptedSteps, T0 } from "./fixtures-steps";

function byKind(steps: readonly Step[], value: (step: Step) => number) {
  return Object.fromEntries(KINDS.map((kind) => [kind, steps.filter((s) => s.kind === kind).reduce((sum, s) => sum + value(s), 0)]));
}

describe("the waterfall's time axis", () => {
  const labels = (from: number, to: number, most = 8) => axisTicks({ from: T0 + from, to: T0 + to }, T0, most).map((t) => t.label);

  it("puts round milliseconds on a run of a second", () => {
    expect(labels(0, S)).toEqual(["0 ms", "200 ms", "400 ms", "600 ms", "800 ms", "1.0 s"]);
  });

  it("puts fractions of a millisecond on a stretch of a few", () => {
    expect(labels(0, 2.5 * MS)).toEqual(["0 ms", "0.5 ms", "1.0 ms", "1.5 ms", "2.0 ms", "2.5 ms"]);
  });

  it("reads seconds and minutes on a run of a minute and a half", () => {
    expect(labels(0, 90 * S)).toEqual(["0 s", "15 s", "30 s", "45 s", "1 min", "1 min 15 s", "1 min 30 s"]);
  });

  it("reads minutes on ten minutes and hours on three", () => {
    expect(labels(0, 600 * S)).toEqual(["0 s", "2 min", "4 min", "6 min", "8 min", "10 min"]);
    expect(labels(0, 3 * 3600 * S, 6)).toEqual(["0 s", "30 min", "1 h", "1 h 30 min", "2 h", "2 h 30 min", "3 h"]);
  });

  it("counts from the run's start on a zoomed stretch, placed across the view", () => {
    const ticks = axisTicks({ from: T0 + 1.23 * S, to: T0 + 1.27 * S }, T0, 8);
    expect(ticks.map((t) => t.label)).toEqual(["1.230 s", "1.235 s", "1.240 s", "1.245 s", "1.250 s", "1.255 s", "1.260 s", "1.265 s", "1.270 s"]);
    expect(ticks[0]!.x).toBeCloseTo(0);
    expect(ticks[4]!.x).toBeCloseTo(0.5);
    expect(ticks.at(-1)!.x).toBeCloseTo(1);
  });

  it("never draws more than one tick beyond the spacings asked for", () => {
    for (const width of [7, 999, 12_345, 4.2 * S, 77 * S, 5000 * S]) {
      for (const most of [2, 5, 10]) {
        const ticks = axisTicks({ from: T0 + 3, to: T0 + 3 + width }, T0, most);
        expect(ticks.length).toBeGreaterThanOrEqual(1);
        expect(ticks.length).toBeLessThanOrEqual(most + 1);
      }
    }
  });

  it("words a tick's time at its spacing's precision", () => {
    expect(tickLabel(125 * S, 5 * S)).toBe("2 min 5 s");
    expect(tickLabel(3600 * S, 15 * 60 * S)).toBe("1 h");
    expect(tickLabel(1500, 500)).toBe("1.5 ms");
  });
});

describe("the waterfall's bins", () => {
  for (const n of [10, 2000, 10_000]) {
    it(`sum ${n.toLocaleString("en-US")} steps by kind, keeping every step and every microsecond`, () => {
      const steps = scriptedSteps(n);
      const whole = wholeRun(steps, 0);
      const bins = binSteps(steps, whole, 200, 0);
      expect(bins).toHaveLength(200);
      const counted = byKind([], () => 0);
      const timed = byKind([], () => 0);
      for (const bin of bins) {
        for (const kind of KINDS) {
          counted[kind]! += bin.count[kind];
          timed[kind]! += bin.time[kind];
        }
      }
      expect(counted).toEqual(byKind(steps, () => 1));
      const expected = byKind(steps, (s) => s.end! - s.start);
      for (const kind of KINDS) expect(timed[kind]).toBeCloseTo(expected[kind]!, 3);
      expect(counted.wait).toBe(steps.filter((s) => s.kind === "wait").length);
      expect(bins[0]!.first).toBe(0);
      expect(Math.max(...bins.map((b) => b.last))).toBe(n - 1);
    });
  }

  it("share a step across the bins it spans, by its overlap with each", () => {
    const steps: Step[] = [{ kind: "wait", label: "refund", start: T0, end: T0 + 1000 }];
    const bins = binSteps(steps, { from: T0, to: T0 + 1000 }, 10, 0);
    expect(bins.map((b) => b.time.wait)).toEqual(Array(10).fill(100));
    expect(bins.map((b) => b.count.wait)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("count only the time inside a zoomed stretch, and a step that goes on up to now", () => {
    const steps: Step[] = [
      { kind: "model", label: "m", start: T0, end: T0 + 400 },
      { kind: "action", label: "a", start: T0 + 400, end: null },
    ];
    const bins = binSteps(steps, { from: T0 + 200, to: T0 + 600 }, 4, T0 + 1000);
    expect(bins.map((b) => [b.time.model, b.time.action])).toEqual([
      [100, 0],
      [100, 0],
      [0, 100],
      [0, 100],
    ]);
    expect(bins.map((b) => b.count.model + b.count.action)).toEqual([0, 0, 1, 0]);
  });
});

describe("the steps a stretch shows", () => {
  it("lists them when few, and always names the longest, longest first", () => {
    const steps = scriptedSteps(2000);
    const whole = wholeRun(steps, 0);
    const all = shownSteps(steps, whole, 0, 40, 5);
    expect(all.indices).toBeNull();
    expect([all.count, all.first, all.last]).toEqual([2000, 0, 1999]);
    expect(all.longest).toHaveLength(5);
    expect(all.longest.every((i) => steps[i]!.kind === "wait")).toBe(true);
    expect(all.longest).toEqual([...all.longest].sort((a, b) => a - b)); // ties keep run order
    const some = shownSteps(steps, { from: steps[100]!.start, to: steps[110]!.end! }, 0, 40, 5);
    expect(some.indices).toEqual(Array.from({ length: 11 }, (_, i) => 100 + i));
    expect(steps[some.longest[0]!]!.kind).toBe("wait");
  });
});

describe("zooming and panning", () => {
  const whole = { from: T0, to: T0 + 1000 };

  it("zooms in about the middle or a point, never past the run's ends", () => {
    expect(zoom(whole, whole, 0.5)).toEqual({ from: T0 + 250, to: T0 + 750 });
    expect(zoom(whole, whole, 0.5, T0 + 100)).toEqual({ from: T0 + 50, to: T0 + 550 });
    expect(zoom({ from: T0 + 800, to: T0 + 1000 }, whole, 2)).toEqual({ from: T0 + 600, to: T0 + 1000 });
    expect(zoom({ from: T0 + 100, to: T0 + 300 }, whole, 100)).toEqual(whole);
    expect(zoom(whole, whole, 0.000001).to - zoom(whole, whole, 0.000001).from).toBe(20);
  });

  it("pans by a share of the view and stops at either end", () => {
    const view = { from: T0 + 400, to: T0 + 600 };
    expect(pan(view, whole, 0.25)).toEqual({ from: T0 + 450, to: T0 + 650 });
    expect(pan(view, whole, -10)).toEqual({ from: T0, to: T0 + 200 });
    expect(pan(view, whole, 10)).toEqual({ from: T0 + 800, to: T0 + 1000 });
  });

  it("knows the whole run, and the stretch around a step", () => {
    expect(isWhole(whole, whole)).toBe(true);
    expect(isWhole(zoom(whole, whole, 0.9), whole)).toBe(false);
    const steps = scriptedSteps(100);
    const all = wholeRun(steps, 0);
    const near = around(steps, 50, 0, all, 3);
    expect(near.from).toBeLessThanOrEqual(steps[47]!.start);
    expect(near.to).toBeGreaterThanOrEqual(steps[53]!.end!);
    expect(shownSteps(steps, near, 0, 40).indices).toEqual([47, 48, 49, 50, 51, 52, 53]);
    // A long step among short ones: its neighbours, not the short steps beyond them.
    const long = scriptedSteps(100).map((s, i) => (i === 50 ? { ...s, end: s.start + 300 * S } : s));
    const shifted = long.map((s, i) => (i > 50 ? { ...s, start: s.start + 300 * S, end: s.end! + 300 * S } : s));
    const wide = around(shifted, 50, 0, wholeRun(shifted, 0), 3);
    expect(shownSteps(shifted, wide, 0, 40).indices).toEqual([47, 48, 49, 50, 51, 52, 53]);
  });
});

describe("the words on a step", () => {
  it("word times from microseconds to hours", () => {
    expect(took(420)).toBe("420 µs");
    expect(took(1500)).toBe("1.5 ms");
    expect(took(12_000)).toBe("12 ms");
    expect(took(1.5 * S)).toBe("1.50 s");
    expect(took(125 * S)).toBe("2 min 5 s");
    expect(took(3780 * S)).toBe("1 h 3 min");
  });

  it("name a model turn's model, tokens and time; an action's name; a wait and a breakpoint", () => {
    const model: Step = { kind: "model", label: "gpt-x", start: T0, end: T0 + 1.5 * S };
    expect(stepLabel(model, 0, { total: 1234, words: "" })).toBe("gpt-x · 1,234 tokens · 1.50 s");
    expect(stepLabel(model, 0)).toBe("gpt-x · 1.50 s");
    expect(stepLabel({ kind: "action", label: "refund", start: T0, end: T0 + 12 * MS }, 0)).toBe("refund · 12 ms");
    expect(stepLabel({ kind: "wait", label: "refund", start: T0, end: null }, T0 + 125 * S)).toBe("waiting for a person · refund · 2 min 5 s so far");
    expect(stepLabel({ kind: "breakpoint", label: "lookup", start: T0, end: T0 + 3 * S }, 0)).toBe("breakpoint · lookup · 3.00 s");
  });

  it("read each turn's token usage from the transcript", () => {
    const turn = (usage: Record<string, number> | null, start: string) => ({
      type: "assistant",
      text: "",
      tool_calls: [],
      call: { model: "gpt-x", started_at: start, ended_at: start, usage, finish_reason: null },
    });
    const usages = usageByTurn([
      turn({ input_tokens: 7, output_tokens: 3 }, "2025-01-01T00:00:00.000001Z"),
      turn({ total_tokens: 50, input_tokens: 40 }, "2025-01-01T00:00:01Z"),
      turn(null, "2025-01-01T00:00:02Z"),
    ] as unknown as Item[]);
    expect(usages.get(usageKey(T0 + 1, "gpt-x"))).toEqual({ total: 10, words: "input_tokens 7, output_tokens 3" });
    expect(usages.get(usageKey(T0 + S, "gpt-x"))?.total).toBe(50);
    expect(usages.size).toBe(2);
  });

  it("go inside a bar they fit in, else after it, else before it, else nowhere", () => {
    expect(labelPlace(10, 0, 200, 600)).toBe("inside");
    expect(labelPlace(10, 100, 110, 600)).toBe("after");
    expect(labelPlace(10, 560, 595, 600)).toBe("before");
    expect(labelPlace(80, 250, 280, 600)).toBeNull();
  });
});
