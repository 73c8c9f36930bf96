/**
 * The arithmetic of the Debug panel's waterfall, as pure functions: the stretch of time
 * shown and how zoom and pan move it, the time axis's ticks, the bins a long run is
 * summed into, the longest steps, the words on each step and whether they fit.
 *
 * Times are microseconds, as `past.ts` gives them.
 */

import type { Item } from "../types";
import { instant, type Step, type StepKind } from "./past";

export const KINDS: readonly StepKind[] = ["model", "action", "wait", "breakpoint"];

export const KIND_WORDS: Record<StepKind, string> = {
  model: "model turn",
  action: "action",
  wait: "waiting for a person",
  breakpoint: "breakpoint",
};

/** The stretch of time drawn, `from` to `to` in microseconds since the epoch. */
export interface Stretch {
  from: number;
  to: number;
}

/** Zooming in stops at this width: finer than any time the transcript records. */
export const MIN_WIDTH = 20;

function endOf(step: Step, now: number): number {
  return Math.max(step.start, step.end ?? now);
}

/** From the first step's start to the last end (`now` for a step that goes on). */
export function wholeRun(steps: readonly Step[], now: number): Stretch {
  if (steps.length === 0) return { from: 0, to: MIN_WIDTH };
  const from = steps[0]!.start;
  let to = from;
  for (const step of steps) to = Math.max(to, endOf(step, now));
  return { from, to: Math.max(to, from + 1) };
}

/** `stretch` moved and trimmed to lie within `whole`, keeping its width where it can. */
function within(stretch: Stretch, whole: Stretch): Stretch {
  const width = Math.min(Math.max(stretch.to - stretch.from, Math.min(MIN_WIDTH, whole.to - whole.from)), whole.to - whole.from);
  const from = Math.max(whole.from, Math.min(stretch.from, whole.to - width));
  return { from, to: from + width };
}

/** `view` scaled by `factor` (below 1 zooms in) about `anchor` (its middle by default). */
export function zoom(view: Stretch, whole: Stretch, factor: number, anchor = (view.from + view.to) / 2): Stretch {
  const from = anchor - (anchor - view.from) * factor;
  const to = anchor + (view.to - anchor) * factor;
  return within({ from, to }, whole);
}

/** `view` moved by `fraction` of its width (negative: earlier). */
export function pan(view: Stretch, whole: Stretch, fraction: number): Stretch {
  const by = (view.to - view.from) * fraction;
  return within({ from: view.from + by, to: view.to + by }, whole);
}

/** Whether `view` shows all of `whole`. */
export function isWhole(view: Stretch, whole: Stretch): boolean {
  return view.from <= whole.from && view.to >= whole.to;
}

/** The stretch around `steps[index]` and `neighbours` steps either side of it, with a
 * margin that stops short of the steps beyond them. */
export function around(steps: readonly Step[], index: number, now: number, whole: Stretch, neighbours = 10): Stretch {
  const lo = Math.max(0, index - neighbours);
  const hi = Math.min(steps.length - 1, index + neighbours);
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (let i = lo; i <= hi; i += 1) {
    from = Math.min(from, steps[i]!.start);
    to = Math.max(to, endOf(steps[i]!, now));
  }
  to = Math.max(to, from + MIN_WIDTH);
  const margin = (to - from) * 0.02;
  const before = steps[lo - 1];
  const after = steps[hi + 1];
  const start = before ? Math.min(from, Math.max(from - margin, (endOf(before, now) + from) / 2)) : from - margin;
  const end = after ? Math.max(to, Math.min(to + margin, (after.start + to) / 2)) : to + margin;
  return within({ from: start, to: end }, whole);
}

// -- words for times ------------------------------------------------------------------

function trim(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** How long a step took: "420 µs", "12 ms", "1.50 s", "2 min 5 s", "1 h 3 min". */
export function took(us: number): string {
  const t = Math.max(0, us);
  if (t < 1000) return `${Math.round(t)} µs`;
  if (t < 1_000_000) return `${trim((t / 1000).toFixed(t < 10_000 ? 1 : 0))} ms`;
  if (t < 60_000_000) return `${(t / 1_000_000).toFixed(2)} s`;
  if (t < 3_600_000_000) return `${Math.floor(t / 60_000_000)} min ${Math.round((t % 60_000_000) / 1_000_000)} s`;
  return `${Math.floor(t / 3_600_000_000)} h ${Math.round((t % 3_600_000_000) / 60_000_000)} min`;
}

const SECOND = 1_000_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Tick spacings an axis may use: 1, 2, 5 from a microsecond up to half a second, then
 * spacings a clock reads well. */
const SPACINGS: readonly number[] = [
  ...[1, 10, 100, 1000, 10_000, 100_000].flatMap((p) => [p, 2 * p, 5 * p]),
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
];

/** The smallest spacing that puts at most `most` spacings over `width`, or the largest
 * that fits in it when that one would leave a stretch with no tick. */
export function tickSpacing(width: number, most: number): number {
  const wanted = width / Math.max(1, most);
  const spacing = SPACINGS.find((s) => s >= wanted) ?? Math.ceil(wanted / (24 * HOUR)) * 24 * HOUR;
  const fitting = SPACINGS.filter((s) => s <= width);
  return spacing <= width ? spacing : (fitting[fitting.length - 1] ?? spacing);
}

function decimals(spacing: number, unit: number): number {
  return Math.max(0, Math.ceil(-Math.log10(spacing / unit) - 1e-9));
}

/** A time since the run began, as a tick `spacing` apart from the next reads it:
 * "0 s", "250 ms", "1.25 s", "2 min 30 s", "1 h 15 min". */
export function tickLabel(t: number, spacing: number): string {
  if (t === 0) return spacing < SECOND ? "0 ms" : "0 s";
  if (t < SECOND) return `${(t / 1000).toFixed(decimals(spacing, 1000))} ms`;
  if (t < MINUTE) return `${(t / SECOND).toFixed(decimals(spacing, SECOND))} s`;
  if (t < HOUR) {
    const minutes = Math.floor(t / MINUTE);
    const rest = t - minutes * MINUTE;
    if (rest === 0) return `${minutes} min`;
    return `${minutes} min ${(rest / SECOND).toFixed(decimals(spacing, SECOND))} s`;
  }
  const hours = Math.floor(t / HOUR);
  const minutes = Math.round((t - hours * HOUR) / MINUTE);
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
}

export interface Tick {
  /** Microseconds since the run began. */
  at: number;
  /** Where it is drawn, 0 to 1 across the view. */
  x: number;
  label: string;
}

/** Ticks over `view` at round times since the run began (`origin`), `most` spacings at
 * most (so `most` + 1 ticks when both ends fall on one). */
export function axisTicks(view: Stretch, origin: number, most = 8): Tick[] {
  const width = view.to - view.from;
  if (!(width > 0)) return [];
  const spacing = tickSpacing(width, most);
  const ticks: Tick[] = [];
  for (let k = Math.ceil((view.from - origin) / spacing); origin + k * spacing <= view.to; k += 1) {
    const at = k * spacing;
    ticks.push({ at, x: (origin + at - view.from) / width, label: tickLabel(at, spacing) });
  }
  return ticks;
}

// -- what a view shows ------------------------------------------------------------------

export type PerKind = Record<StepKind, number>;

function perKind(): PerKind {
  return { model: 0, action: 0, wait: 0, breakpoint: 0 };
}

export interface Bin {
  from: number;
  to: number;
  /** Microseconds spent in each kind of step within the bin. */
  time: PerKind;
  /** Steps of each kind that begin in the bin. */
  count: PerKind;
  /** The first and last index of the steps that begin in the bin (-1 when none does). */
  first: number;
  last: number;
}

/** `view` cut into `bins` equal bins, each with the time its steps took in it, by kind
 * (a step across bins is shared out by its overlap with each), and the steps that begin
 * in it. The times add up to the steps' time within `view`. */
export function binSteps(steps: readonly Step[], view: Stretch, bins: number, now: number): Bin[] {
  const n = Math.max(1, Math.floor(bins));
  const width = (view.to - view.from) / n;
  const out: Bin[] = Array.from({ length: n }, (_, i) => ({
    from: view.from + i * width,
    to: i === n - 1 ? view.to : view.from + (i + 1) * width,
    time: perKind(),
    count: perKind(),
    first: -1,
    last: -1,
  }));
  steps.forEach((step, index) => {
    const start = Math.max(step.start, view.from);
    const end = Math.min(endOf(step, now), view.to);
    if (step.start >= view.from && step.start <= view.to) {
      const bin = out[Math.min(n - 1, Math.floor((step.start - view.from) / width))]!;
      bin.count[step.kind] += 1;
      if (bin.first < 0) bin.first = index;
      bin.last = index;
    }
    if (end <= start) return;
    const lo = Math.min(n - 1, Math.floor((start - view.from) / width));
    const hi = Math.min(n - 1, Math.floor((end - view.from) / width));
    for (let i = lo; i <= hi; i += 1) {
      const bin = out[i]!;
      const overlap = Math.min(end, bin.to) - Math.max(start, bin.from);
      if (overlap > 0) bin.time[step.kind] += overlap;
    }
  });
  return out;
}

export interface Shown {
  /** Indices of the steps that overlap the view, in order (only when `detail` or fewer). */
  indices: number[] | null;
  count: number;
  first: number;
  last: number;
  /** The longest steps that overlap the view, longest first. */
  longest: number[];
}

/** The steps that overlap `view`: how many, the first and last, the `top` longest, and
 * their indices when there are at most `detail` of them. */
export function shownSteps(steps: readonly Step[], view: Stretch, now: number, detail: number, top = 5): Shown {
  const indices: number[] = [];
  const longest: Array<[number, number]> = [];
  let count = 0;
  let first = -1;
  let last = -1;
  steps.forEach((step, index) => {
    if (step.start > view.to || endOf(step, now) < view.from) return;
    count += 1;
    if (first < 0) first = index;
    last = index;
    if (count <= detail) indices.push(index);
    const length = endOf(step, now) - step.start;
    if (longest.length < top || length > longest[longest.length - 1]![1]) {
      let at = longest.findIndex(([, other]) => length > other);
      if (at < 0) at = longest.length;
      longest.splice(at, 0, [index, length]);
      if (longest.length > top) longest.pop();
    }
  });
  return { indices: count <= detail ? indices : null, count, first, last, longest: longest.map(([index]) => index) };
}

// -- words on steps ----------------------------------------------------------------------

/** A model turn's token usage by the time it began, from the transcript. */
export interface Usage {
  total: number | null;
  words: string;
}

function usageOf(usage: Record<string, number> | null | undefined): Usage | null {
  if (!usage) return null;
  const entries = Object.entries(usage).filter(([, v]) => typeof v === "number" && Number.isFinite(v));
  if (entries.length === 0) return null;
  const get = (key: string) => (typeof usage[key] === "number" && Number.isFinite(usage[key]) ? usage[key] : null);
  const total =
    get("total_tokens") ?? (get("input_tokens") !== null || get("output_tokens") !== null ? (get("input_tokens") ?? 0) + (get("output_tokens") ?? 0) : null);
  return { total, words: entries.map(([k, v]) => `${k} ${v}`).join(", ") };
}

/** Each turn's usage, by its item, while the item object lives (read again each frame). */
const usageByItem = new WeakMap<Item, Usage | null>();

/** Each model turn's usage, keyed by `usageKey` of its step. */
export function usageByTurn(items: readonly Item[]): Map<string, Usage> {
  const found = new Map<string, Usage>();
  for (const item of items) {
    if (item.type !== "assistant" || !item.call) continue;
    let usage = usageByItem.get(item);
    if (usage === undefined) {
      usage = usageOf(item.call.usage);
      usageByItem.set(item, usage);
    }
    const start = instant(item.call.started_at);
    if (usage && Number.isFinite(start)) found.set(usageKey(start, item.call.model), usage);
  }
  return found;
}

export function usageKey(start: number, model: string): string {
  return `${start}|${model}`;
}

const count = (n: number) => n.toLocaleString("en-US");

/** The short words drawn on a step: "gpt-x · 1,234 tokens · 1.50 s", "refund · 12 ms",
 * "waiting for a person · refund · 2 min 5 s", "breakpoint · lookup · 3.00 s". */
export function stepLabel(step: Step, now: number, usage: Usage | null = null): string {
  const time = took(endOf(step, now) - step.start) + (step.end === null ? " so far" : "");
  if (step.kind === "model") return [step.label, usage?.total != null ? `${count(usage.total)} tokens` : null, time].filter(Boolean).join(" · ");
  if (step.kind === "action") return `${step.label} · ${time}`;
  return `${KIND_WORDS[step.kind]} · ${step.label} · ${time}`;
}

/** The whole of it, for hover and focus: "Step 3 of 40, model turn: gpt-x · 10 tokens ·
 * 1.50 s, began 250 ms into the run (input_tokens 7, output_tokens 3)". */
export function stepDescription(step: Step, index: number, total: number, origin: number, now: number, usage: Usage | null = null): string {
  const began = step.start > origin ? `began ${took(step.start - origin)} into the run` : "began as the run did";
  const extra = usage ? ` (${usage.words})` : "";
  return `Step ${count(index + 1)} of ${count(total)}, ${KIND_WORDS[step.kind]}: ${stepLabel(step, now, usage)}, ${began}${extra}`;
}

/** Where a step's words go: inside its bar, after it, before it, or nowhere when none of
 * those has room (`x0`, `x1` and `width` in pixels; `charWidth` an average letter). */
export function labelPlace(chars: number, x0: number, x1: number, width: number, charWidth = 6.5, pad = 4): "inside" | "after" | "before" | null {
  const needed = chars * charWidth + 2 * pad;
  if (x1 - x0 >= needed) return "inside";
  if (width - x1 >= needed) return "after";
  if (x0 >= needed) return "before";
  return null;
}
