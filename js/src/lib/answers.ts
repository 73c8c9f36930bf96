/**
 * What a recorded answer means, read in one place: the front end's twin of the kernel's
 * `pausepoint.transcript.decisions`. Both are tested against one table of cases
 * (tests/fixtures/decisions.json), so the thread, the history, Compare and the past
 * cards say what the kernel says.
 */
import type { ErrorInfo, InterruptEntry, Item, Json, JsonObject, ToolItem } from "../types";

export type DecisionKind =
  | "approved"
  | "approved-with-changes"
  | "declined"
  | "responded"
  | "expired"
  | "answered"
  | "continued"
  | "stepped"
  | "skipped"
  | "edited";

/** One argument a person changed; `old` is absent for an added one, `new` for a removed one. */
export interface Change {
  name: string;
  old?: Json;
  new?: Json;
}

export interface Decision {
  kind: DecisionKind;
  at: string | null;
  /** Who answered: "code", "view", "inbox", "policy" or "agui" (null when not recorded). */
  by: string | null;
  /** Why a pause was declined or expired (null when a person gave no reason). */
  reason: ErrorInfo | null;
  /** A question's answer, or an approval's payload. */
  value: Json | undefined;
  /** The arguments the action runs with after this answer, when it replaced them. */
  args: JsonObject | null;
  changes: Change[];
}

/** Where a response's words travel in a tool approval's answer (as the kernel's
 * `pausepoint.transcript.decisions.RESPONSE_KEY`). */
export const RESPONSE_KEY = "response";

/** The approval answer that responds with `words` instead of running the action. */
export function respondAnswer(words: string): JsonObject {
  return { approved: false, payload: { [RESPONSE_KEY]: words } };
}

const QUIET_REASONS = new Set(["The user declined.", "The user cancelled this interrupt."]);
const SHOWN_VALUE = 80;

function objectOf(value: Json | undefined): JsonObject | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
}

function has(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** A value for people: words as words, a form's answer as its fields ("speed: fast,
 * days: 2"), anything else as short JSON (as the kernel's `decisions._plain`). */
function plain(value: Json): string {
  if (typeof value === "string") return value;
  const fields = objectOf(value);
  if (fields && Object.keys(fields).length > 0) {
    return Object.entries(fields)
      .map(([key, item]) => `${key}: ${typeof item === "string" ? item : shown(item)}`)
      .join(", ");
  }
  return shown(value);
}

function cut(text: string): string {
  return text.length <= SHOWN_VALUE ? text : `${text.slice(0, SHOWN_VALUE - 1)}…`;
}

/** A short JSON rendering, as the kernel writes it in a decision's words. */
export function shown(value: Json | undefined): string {
  if (value === undefined) return "(none)";
  const text = JSON.stringify(value);
  return text.length <= SHOWN_VALUE ? text : `${text.slice(0, SHOWN_VALUE - 1)}…`;
}

/** JSON equality: key order does not matter, and 30 is 30.0 (JSON cannot tell them apart). */
function same(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]));
  }
  const x = objectOf(a);
  const y = objectOf(b);
  if (!x || !y) return false;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((key) => has(y, key) && same(x[key], y[key]));
}

function changesOf(before: JsonObject | null, after: JsonObject): Change[] {
  if (!before) return [];
  const names = [...Object.keys(before), ...Object.keys(after).filter((name) => !has(before, name))];
  const changes: Change[] = [];
  for (const name of names) {
    const inBefore = has(before, name);
    const inAfter = has(after, name);
    if (inBefore && inAfter && same(before[name], after[name])) continue;
    const change: Change = { name };
    if (inBefore) change.old = before[name];
    if (inAfter) change.new = after[name];
    changes.push(change);
  }
  return changes;
}

function make(kind: DecisionKind, at: string | null, extra: Partial<Decision> = {}): Decision {
  return { kind, at, by: null, reason: null, value: undefined, args: null, changes: [], ...extra };
}

/**
 * What the answer to `entry` decided (null while it waits). `before` is the input the
 * action had before this answer, to list what an edit changed. An answer the kernel
 * would refuse (it never sends one: loading checks them) reads as answered with its value.
 */
export function decisionOf(entry: InterruptEntry, before: JsonObject | null = null): Decision | null {
  const r = entry.resolution;
  if (!r) return null;
  const at = r.at ?? null;
  const by = r.by ?? null;
  if (r.type === "reject") {
    const error = r.error ?? { name: "Rejected", message: "" };
    if (error.name === "InterruptExpired") return make("expired", at, { by, reason: error });
    const quiet = !error.message || (typeof error.message === "string" && QUIET_REASONS.has(error.message));
    return make("declined", at, { by, reason: quiet ? null : error });
  }
  const data = r.data;
  const fields = objectOf(data);
  if (entry.kind === "tool-approval" && (typeof data === "boolean" || (fields && typeof fields.approved === "boolean"))) {
    const approved = typeof data === "boolean" ? data : fields?.approved === true;
    const payload = fields?.payload;
    const response = objectOf(payload);
    const words = response && Object.keys(response).length === 1 ? response[RESPONSE_KEY] : undefined;
    if (!approved && typeof words === "string" && words.trim()) return make("responded", at, { by, value: words });
    if (!approved) return make("declined", at, { by, value: payload });
    const edited = objectOf(fields?.editedArgs);
    if (!edited) return make("approved", at, { by, value: payload });
    const changes = changesOf(before, edited);
    return make(changes.length > 0 || !before ? "approved-with-changes" : "approved", at, { by, value: payload, args: edited, changes });
  }
  if (entry.kind === "breakpoint" && fields && typeof fields.action === "string") {
    const edited = objectOf(fields.args);
    if (fields.action === "edit" && edited) return make("edited", at, { by, args: edited, changes: changesOf(before, edited) });
    const kinds: Record<string, DecisionKind> = { continue: "continued", step: "stepped", skip: "skipped" };
    const kind = kinds[fields.action];
    if (kind) return make(kind, at, { by });
  }
  return make("answered", at, { by, value: data ?? null });
}

function changeWords(change: Change): string {
  return `${change.name} ${shown(change.old)} → ${shown(change.new)}`;
}

/** The decision as a person reads it: "Approved", "Declined: not today",
 * "Approved with changes: order_id 7 → 42", "Skipped". */
export function decisionWords(decision: Decision): string {
  const changed = decision.changes.map(changeWords).join(", ");
  switch (decision.kind) {
    case "approved":
      return "Approved";
    case "approved-with-changes":
      return changed ? `Approved with changes: ${changed}` : "Approved with changes";
    case "declined":
      return decision.reason ? `Declined: ${decision.reason.message}` : "Declined";
    case "responded":
      return `Responded: ${cut(String(decision.value))}`;
    case "expired":
      return "Expired: nobody answered in time";
    case "answered":
      if (decision.value === null || decision.value === undefined) return "Answered";
      return `Answered: ${cut(plain(decision.value))}`;
    case "edited":
      return changed ? `Ran with edited arguments: ${changed}` : "Ran with edited arguments";
    case "continued":
      return "Continued";
    case "stepped":
      return "Stepped";
    case "skipped":
      return "Skipped";
  }
}

/** True when the action runs (again) after this decision. */
export function runsAction(decision: Decision): boolean {
  return !["declined", "responded", "expired", "skipped"].includes(decision.kind);
}

/** The decision of each entry in the call's history, oldest first (null: waiting), each
 * edit compared with the arguments the action had just before it. */
export function decisionsOf(item: ToolItem): (Decision | null)[] {
  let args = objectOf(item.input);
  return (item.interrupts ?? []).map((entry) => {
    const decision = decisionOf(entry, args);
    if (decision?.args) args = decision.args;
    return decision;
  });
}

/** The arguments the action runs (or ran) with: the last ones a person edited, else the
 * model's input. */
export function effectiveInput(item: ToolItem): JsonObject | null {
  let args = objectOf(item.input);
  for (const decision of decisionsOf(item)) if (decision?.args) args = decision.args;
  return args;
}

/** A tool call's status in a person's words: a call that never ran because of a decision
 * says which ("declined", "skipped", "expired"), not "rejected". */
export function shownStatus(item: ToolItem): string {
  if (item.status === "interrupted") return "waiting for you";
  const interrupts = item.interrupts ?? [];
  const last = interrupts[interrupts.length - 1];
  if (item.status !== "rejected" || !last) return item.status;
  const decision = decisionOf(last);
  if (!decision) return item.status;
  return decision.kind === "skipped" || decision.kind === "expired" ? decision.kind : "declined";
}

/** The arguments the action had just before the answer to `interruptId` (null when no
 * tool call in `items` holds that pause): what an edit there is compared with. */
export function argsBefore(items: readonly Item[], interruptId: string): JsonObject | null {
  for (const item of items) {
    if (item.type !== "tool") continue;
    const index = (item.interrupts ?? []).findIndex((entry) => entry.id === interruptId);
    if (index < 0) continue;
    let args = objectOf(item.input);
    for (const entry of (item.interrupts ?? []).slice(0, index)) {
      const decision = decisionOf(entry, args);
      if (decision?.args) args = decision.args;
    }
    return args;
  }
  return null;
}
