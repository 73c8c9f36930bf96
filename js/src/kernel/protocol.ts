/**
 * What a view asks of the kernel, one function per request type; each goes out on the
 * view's line to the kernel (requests.ts) and ends in one outcome.
 */

import type { BulkAnswer, FindFilter, ListFilter } from "../generated/protocol";
import { jsonPathKeys, pathOf, pointerKeys } from "../lib/field-path";
import type { Json, JumpTo, ResponseError, TriageFilter } from "../types";
import type { Kernel, Outcome } from "./requests";

export { type Outcome, REQUEST_TIMEOUT_MS } from "./requests";

/** What an answer goes to: an interrupt id, or a card (whose `runId`, in an inbox listing
 * several runs, names the run: a fork waits on the same interrupt id as its parent). */
export type AnswerTarget = string | { id: string; runId?: string | null };

function target(to: AnswerTarget): { interrupt: string; run?: string } {
  if (typeof to === "string") return { interrupt: to };
  return to.runId ? { interrupt: to.id, run: to.runId } : { interrupt: to.id };
}

export function resume(kernel: Kernel, to: AnswerTarget, data: Json, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "resume", ...target(to), data }, timeoutMs);
}

export function reject(kernel: Kernel, to: AnswerTarget, reason: string | null, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "reject", ...target(to), reason }, timeoutMs);
}

/** The next user message of a run that waits on nobody; `null` goes on from a stop or a
 * failure (Continue). */
export function say(kernel: Kernel, text: string | null, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "say", text }, timeoutMs);
}

/** Asks the model again without the turn that ended the run (Retry, after a stop or a
 * failure); that turn stays in the transcript, set aside. */
export function retry(kernel: Kernel, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "retry" }, timeoutMs);
}

/** Goes on from a stepping run's pause before a model request ("step" or "continue"). */
export function goOn(kernel: Kernel, action: "step" | "continue", timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "debug", action }, timeoutMs);
}

/** What the model was sent for assistant turn `turn`, rebuilt by the kernel. */
export function modelRequest(kernel: Kernel, turn: number, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "model_request", turn }, timeoutMs);
}

/** Where a fork goes back to: an interrupt (open again), a tool call (paused before it
 * runs again, its arguments editable) or a model turn (paused before the model is asked
 * again). A string is an interrupt's id. */
export type ForkAt = string | { interrupt: string } | { call: string } | { turn: number };

/** A new run forked from this one at `at`; with `open`, the kernel shows it in place below
 * this view (Go back here). */
export function fork(kernel: Kernel, at: ForkAt, open = false, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "fork", ...(typeof at === "string" ? { interrupt: at } : at), ...(open ? { open } : {}) }, timeoutMs);
}

/** What an edit changes: a user message's words, or the result the model reads of a call. */
export type ItemChange = { text: string } | { result: Json };

/** Edits item `position` of a fork made at a model turn, before it asks the model again. */
export function editItem(kernel: Kernel, position: number, change: ItemChange, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "edit_item", position, ...change }, timeoutMs);
}

/** Shows the fork `runId` in place below this view, as its own live view (null: none). */
export function showFork(kernel: Kernel, runId: string | null, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "show_fork", fork: runId }, timeoutMs);
}

/** The whole value behind a preview's reference (a large value the view got cut short). */
export function fullValue(kernel: Kernel, ref: string, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "value", ref }, timeoutMs);
}

/** This run and its fork `forkRunId` from the fork point on: each one's answer there,
 * status and the items that followed (`BranchesValue`). */
export function branches(kernel: Kernel, forkRunId: string, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "branches", fork: forkRunId }, timeoutMs);
}

/** Asks the kernel to stop the run; answered once it has stopped. */
export function cancel(kernel: Kernel, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "cancel" }, timeoutMs);
}

/** The steps that fit `filter`, found by the kernel: how many, and `count` of them from
 * the `from`-th (`FindValue`). */
export function find(kernel: Kernel, filter: FindFilter, from = 0, count?: number, timeoutMs?: number): Promise<Outcome> {
  const wanted: FindFilter = {};
  if (filter.tool) wanted.tool = filter.tool;
  if (filter.status) wanted.status = filter.status;
  if (filter.text) wanted.text = filter.text;
  return kernel.request({ type: "find", filter: wanted, from, ...(count ? { count } : {}) }, timeoutMs);
}

/** The page of the transcript around a call, the first pause or the last failure (`JumpValue`). */
export function jump(kernel: Kernel, to: JumpTo, count?: number, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "find", jump: to, ...(count ? { count } : {}) }, timeoutMs);
}

/** Asks an inbox to read its store again; answered once it has. */
export function refresh(kernel: Kernel, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "refresh" }, timeoutMs);
}

/** One page of an inbox's triage list (`TriagePage`): the runs that fit `filter`, sorted. */
export function listRuns(kernel: Kernel, filter: TriageFilter, sort: string, offset: number, limit: number, timeoutMs?: number): Promise<Outcome> {
  const wanted: ListFilter = {};
  for (const key of ["text", "agent", "kind", "status"] as const) if (filter[key]) wanted[key] = filter[key];
  if (filter.ignored !== undefined) wanted.ignored = filter.ignored;
  return kernel.request({ type: "list", filter: wanted, sort, offset, limit }, timeoutMs);
}

/** A listed run's cards and thread (`OpenedRun`); its cards are answerable from then on. */
export function openRun(kernel: Kernel, runId: string, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "open", run: runId }, timeoutMs);
}

/** One answer to many runs; the kernel reports each run's outcome in its `bulk` trait. */
export function answerRuns(kernel: Kernel, answer: BulkAnswer, runIds: string[], text: string | null, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: "bulk", answer, runs: runIds, text }, timeoutMs);
}

/** Hides a run from the list (`ignore`), or lists it again (`unignore`). */
export function ignoreRun(kernel: Kernel, runId: string, undo = false, timeoutMs?: number): Promise<Outcome> {
  return kernel.request({ type: undo ? "unignore" : "ignore", run: runId }, timeoutMs);
}

/** Errors after which the card can never be answered: its controls stay off. */
const FINAL_ERRORS = new Set(["InterruptAlreadyResolvedError", "InterruptExpiredError", "UnknownInterruptError", "NoPendingInterruptError"]);

export function isFinalError(error: ResponseError): boolean {
  return FINAL_ERRORS.has(error.name);
}

/**
 * A problem's path as a field path (see lib/field-path.ts). The contract leaves the format
 * open, so JSON pointers (`/a/b/0`), JSON paths (`$.a.b[0]`, `$["a.b"]`), dotted strings
 * and arrays of keys are all understood.
 */
export function problemPath(path: unknown): string {
  if (Array.isArray(path)) return pathOf(path.map((k) => (typeof k === "number" ? k : String(k))));
  if (typeof path !== "string") return "";
  const p = path.trim();
  if (p.startsWith("#") || p.startsWith("/")) return pathOf(pointerKeys(p));
  return pathOf(jsonPathKeys(p));
}
