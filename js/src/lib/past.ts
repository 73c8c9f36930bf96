/**
 * A run's steps and the run as it was when one of them began, derived from the
 * transcript's times alone (pure: items in, values out).
 *
 * A step is a model request, an action's execution, a wait for a person or a breakpoint,
 * as the timeline draws them. "As it was at step k" is the moment step k began: the
 * items that had appeared by then, each tool call in the state it was in, and the pauses
 * that were waiting for an answer.
 */

import type { InterruptEntry, Item, PendingCard, ToolItem, ToolStatus } from "../types";
import { effectiveInput } from "./answers";

export type StepKind = "model" | "action" | "wait" | "breakpoint";

export interface Step {
  kind: StepKind;
  /** The model's name, or the action's. */
  label: string;
  /** Microseconds since the epoch; `end` is null while the step goes on. */
  start: number;
  end: number | null;
}

export interface PastState {
  step: Step;
  /** "interrupted" while a pause waited for an answer at that moment, else "running". */
  status: "interrupted" | "running";
  items: Item[];
  /** The pauses waiting at that moment, oldest first; never answerable. */
  cards: PendingCard[];
}

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$/;

/** Times read so far by the general path, by their text. */
const readTimes = new Map<string, number>();
/** Past this many, the times read are forgotten and read again as they come. */
const READ_TIMES_KEPT = 200_000;

/**
 * An ISO time in microseconds since the epoch (NaN when absent or unreadable). The kernel
 * records microseconds; `Date.parse` keeps only milliseconds, which would tie events that
 * happened within one millisecond. The kernel's own form (`2026-12-02T07:10:09.696702Z`,
 * or with an offset) is read digit by digit: opening the Debug panel of a run of 10,000
 * calls reads some 40,000 of them at once.
 */
export function instant(text: string | null | undefined): number {
  if (!text) return Number.NaN;
  const quick = kernelTime(text);
  if (quick !== null) return quick;
  const known = readTimes.get(text);
  if (known !== undefined) return known;
  const match = STAMP.exec(text);
  let us: number;
  if (!match) us = Date.parse(text) * 1000;
  else {
    const seconds = Date.parse(`${match[1]}${match[3] ?? "Z"}`);
    const fraction = (match[2] ?? "").padEnd(6, "0").slice(0, 6);
    us = seconds * 1000 + Number(fraction);
  }
  if (readTimes.size >= READ_TIMES_KEPT) readTimes.clear();
  readTimes.set(text, us);
  return us;
}

/** The number written by the `count` digits of `text` from `from`; -1 if one is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]` in microseconds, or null for any other text
 * (left to the general path). */
function kernelTime(text: string): number | null {
  const end = text.length;
  if (end < 19 || text[4] !== "-" || text[7] !== "-" || text[10] !== "T" || text[13] !== ":" || text[16] !== ":") return null;
  const parts = [digitsAt(text, 0, 4), digitsAt(text, 5, 2), digitsAt(text, 8, 2), digitsAt(text, 11, 2), digitsAt(text, 14, 2), digitsAt(text, 17, 2)];
  const [year, month, day, hour, minute, second] = parts as [number, number, number, number, number, number];
  if (parts.some((part) => part < 0) || year < 1000 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  let at = 19;
  let micros = 0;
  if (text[at] === ".") {
    at += 1;
    let read = 0;
    for (; at < end; at++) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) break;
      if (read < 6) {
        micros = micros * 10 + digit;
        read += 1;
      }
    }
    if (read === 0) return null;
    micros *= 10 ** (6 - read);
  }
  let offsetMs = 0;
  if (at === end || (text[at] === "Z" && at + 1 === end)) offsetMs = 0;
  else if (at + 6 === end && (text[at] === "+" || text[at] === "-") && text[at + 3] === ":") {
    const hours = digitsAt(text, at + 1, 2);
    const minutes = digitsAt(text, at + 4, 2);
    if (hours < 0 || minutes < 0) return null;
    offsetMs = (text[at] === "+" ? 1 : -1) * (hours * 60 + minutes) * 60_000;
  } else return null;
  return (Date.UTC(year, month - 1, day, hour, minute, second) - offsetMs) * 1000 + micros;
}

function finite(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

/** Each item's own steps, in the order they began, kept while the item object lives: a
 * live run's items keep their objects until they change, so a frame reads only those. */
const stepsByItem = new WeakMap<Item, readonly Step[]>();

function itemSteps(item: Item): readonly Step[] {
  const known = stepsByItem.get(item);
  if (known) return known;
  const steps: Step[] = [];
  if (item.type === "assistant" && item.call) {
    const start = finite(instant(item.call.started_at));
    if (start !== null) steps.push({ kind: "model", label: item.call.model, start, end: finite(instant(item.call.ended_at)) });
  } else if (item.type === "tool") {
    const start = finite(instant(item.started_at));
    if (start !== null) steps.push({ kind: "action", label: item.name, start, end: finite(instant(item.ended_at)) });
    for (const entry of item.interrupts ?? []) {
      const begun = finite(instant(entry.created_at));
      if (begun === null) continue;
      steps.push({
        kind: entry.kind === "breakpoint" ? "breakpoint" : "wait",
        label: item.name,
        start: begun,
        end: entry.resolution ? finite(instant(entry.resolution.at)) : null,
      });
    }
  }
  steps.sort((a, b) => a.start - b.start);
  stepsByItem.set(item, steps);
  return steps;
}

/** The run's steps in the order they began (ties keep transcript order). */
export function stepsOf(items: readonly Item[]): Step[] {
  const steps: Step[] = [];
  let sorted = true;
  let last = Number.NEGATIVE_INFINITY;
  for (const item of items) {
    for (const step of itemSteps(item)) {
      if (step.start < last) sorted = false;
      last = step.start;
      steps.push(step);
    }
  }
  // Steps mostly come in the order they began: sorting is for those that do not.
  return sorted ? steps : steps.sort((a, b) => a.start - b.start);
}

const STEP_WORDS: Record<StepKind, (label: string) => string> = {
  model: (label) => `Asking the model (${label})`,
  action: (label) => `Running ${label}`,
  wait: (label) => `Waiting for a person: ${label}`,
  breakpoint: (label) => `Breakpoint before ${label}`,
};

/** "Waiting for a person: refund" */
export function stepTitle(step: Step): string {
  return STEP_WORDS[step.kind](step.label);
}

/** When an item entered the transcript (NaN when the transcript does not say). */
function appearedAt(item: Item): number {
  if (item.type === "assistant") return instant(item.call?.ended_at);
  if (item.type === "tool") {
    const times = [instant(item.started_at), ...(item.interrupts ?? []).map((e) => instant(e.created_at))].filter(Number.isFinite);
    return times.length > 0 ? Math.min(...times) : Number.NaN;
  }
  return Number.NaN;
}

const SETTLED: ReadonlySet<ToolStatus> = new Set(["succeeded", "failed", "rejected", "responded", "cancelled"]);

/** When a tool call settled: its end time, else its last answer's (a rejection ends a
 * call that never ran); null while it has not. */
function settledAt(item: ToolItem): number | null {
  if (!SETTLED.has(item.status)) return null;
  const ended = finite(instant(item.ended_at));
  if (ended !== null) return ended;
  const answers = (item.interrupts ?? []).map((e) => instant(e.resolution?.at)).filter(Number.isFinite);
  return answers.length > 0 ? Math.max(...answers) : null;
}

/** `item` as it was at time `t` (it had appeared by then). */
function toolAt(item: ToolItem, t: number, appeared: number): ToolItem {
  const interrupts: InterruptEntry[] = [];
  for (const entry of item.interrupts ?? []) {
    const created = finite(instant(entry.created_at)) ?? appeared;
    if (created > t) continue;
    const answered = entry.resolution && !((finite(instant(entry.resolution.at)) ?? created) > t);
    interrupts.push(answered ? entry : { ...entry, resolution: null });
  }
  const settled = settledAt(item);
  if (settled !== null && settled <= t && interrupts.every((e) => e.resolution)) {
    return interrupts.length === (item.interrupts ?? []).length ? item : { ...item, interrupts };
  }
  const waiting = interrupts.some((e) => !e.resolution);
  const started = instant(item.started_at);
  const status: ToolStatus = waiting ? "interrupted" : started <= t ? "running" : "pending";
  return { ...item, status, result: undefined, error: null, cancellation: null, ended_at: null, interrupts };
}

function cardKind(kind: string): PendingCard["kind"] {
  return kind === "tool-approval" || kind === "generic" || kind === "breakpoint" ? kind : "unbound";
}

function cardOf(item: ToolItem, entry: InterruptEntry): PendingCard {
  const args = effectiveInput(item);
  return {
    id: entry.id,
    kind: cardKind(entry.kind),
    canResolve: false,
    message: entry.message,
    readOnlyReason: null,
    data: entry.data,
    toolCallId: item.id,
    toolName: item.name,
    args,
    inputSchema: null,
    responseSchema: entry.response_schema,
    createdAt: entry.created_at ?? "",
    expiresAt: entry.expires_at,
  };
}

/**
 * The run as it was when `steps[index]` began: the items that had appeared (an item the
 * transcript gives no time for appears with the one before it), tool calls in their state
 * then, and the pauses waiting then. `steps` is `stepsOf(items)`.
 */
export function stateAt(items: readonly Item[], steps: readonly Step[], index: number): PastState {
  const step = steps[Math.max(0, Math.min(index, steps.length - 1))];
  if (!step) throw new RangeError("This run has no steps to show.");
  const t = step.start;
  const shown: Item[] = [];
  const cards: PendingCard[] = [];
  let previous = Number.NEGATIVE_INFINITY;
  for (const item of items) {
    const own = appearedAt(item);
    const appeared = Number.isFinite(own) ? own : previous;
    previous = appeared;
    if (appeared > t) continue;
    if (item.type !== "tool") {
      shown.push(item);
      continue;
    }
    const then = toolAt(item, t, appeared);
    shown.push(then);
    for (const entry of then.interrupts ?? []) if (!entry.resolution) cards.push(cardOf(then, entry));
  }
  return { step, status: cards.length > 0 ? "interrupted" : "running", items: shown, cards };
}
