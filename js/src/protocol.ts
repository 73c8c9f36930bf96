/**
 * Requests from a view to the kernel and the kernel's answers. The view makes up a
 * request id, keeps a resolver for it, and the kernel answers each id exactly once with a
 * `response` message, which `initialize`'s message handler hands to `dispatchResponse`.
 */
import { jsonPathKeys, pathOf, pointerKeys } from "./field-path";
import type { Json, Model, Response, ResponseError } from "./types";

export const REQUEST_TIMEOUT_MS = 60_000;

export type Outcome = { ok: true; value?: Json } | { ok: false; error: ResponseError };

interface Waiting {
  settle(outcome: Outcome): void;
}

// Request ids are unique across models, so one table serves every widget on the page;
// anywidget hands `initialize` and `render` different model proxies, so a per-model table
// would need a key that the proxies do not share.
const waiting = new Map<string, Waiting>();

let counter = 0;

function newRequestId(): string {
  counter += 1;
  const random =
    typeof crypto !== "undefined" && typeof crypto.randomUUID === "function"
      ? crypto.randomUUID()
      : Math.random().toString(36).slice(2);
  return `pp-${counter}-${random}`;
}

export function dispatchResponse(message: Response): void {
  const entry = waiting.get(message.requestId);
  if (!entry) return;
  if (message.ok) entry.settle(message.value === undefined ? { ok: true } : { ok: true, value: message.value });
  else {
    const error = message.error ?? { name: "Error", message: "The kernel refused the answer." };
    entry.settle({ ok: false, error });
  }
}

export function pendingRequestCount(): number {
  return waiting.size;
}

function request(model: Model, content: Record<string, Json>, timeoutMs: number): Promise<Outcome> {
  const requestId = newRequestId();
  return new Promise<Outcome>((resolve) => {
    const timer = setTimeout(() => {
      entry.settle({
        ok: false,
        error: {
          name: "TimeoutError",
          message: `The kernel did not answer within ${Math.round(timeoutMs / 1000)} s. Is it still running? Check the kernel, then try again.`,
        },
      });
    }, timeoutMs);
    const entry: Waiting = {
      settle(outcome) {
        clearTimeout(timer);
        waiting.delete(requestId);
        resolve(outcome);
      },
    };
    waiting.set(requestId, entry);
    try {
      model.send({ ...content, requestId });
    } catch (err) {
      entry.settle({
        ok: false,
        error: { name: "SendError", message: `Could not reach the kernel: ${String(err)}` },
      });
    }
  });
}

/** What an answer goes to: an interrupt id, or a card (whose `runId`, in an inbox listing
 * several runs, names the run: a fork waits on the same interrupt id as its parent). */
export type AnswerTarget = string | { id: string; runId?: string };

function target(to: AnswerTarget): Record<string, Json> {
  if (typeof to === "string") return { interrupt: to };
  return to.runId ? { interrupt: to.id, run: to.runId } : { interrupt: to.id };
}

export function resume(model: Model, to: AnswerTarget, data: Json, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Outcome> {
  return request(model, { type: "resume", ...target(to), data }, timeoutMs);
}

export function reject(
  model: Model,
  to: AnswerTarget,
  reason: string | null,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<Outcome> {
  return request(model, { type: "reject", ...target(to), reason }, timeoutMs);
}

/** Goes on from a stepping run's pause before a model request ("step" or "continue"). */
export function goOn(model: Model, action: "step" | "continue", timeoutMs = REQUEST_TIMEOUT_MS): Promise<Outcome> {
  return request(model, { type: "debug", action }, timeoutMs);
}

/** What the model was sent for assistant turn `turn`, rebuilt by the kernel. */
export function modelRequest(model: Model, turn: number, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Outcome> {
  return request(model, { type: "model_request", turn }, timeoutMs);
}

/** A new run forked from this one at an answered interrupt (the pause open again). */
export function fork(model: Model, interrupt: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Outcome> {
  return request(model, { type: "fork", interrupt }, timeoutMs);
}

/** The whole value behind a preview's reference (a large value the view got cut short). */
export function fullValue(model: Model, ref: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Outcome> {
  return request(model, { type: "value", ref }, timeoutMs);
}

/** This run and its fork `forkRunId` from the fork point on: each one's answer there,
 * status and the items that followed (`BranchesValue`). */
export function branches(model: Model, forkRunId: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Outcome> {
  return request(model, { type: "branches", fork: forkRunId }, timeoutMs);
}

/** Asks the kernel to stop the run; answered once it has stopped. */
export function cancel(model: Model, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Outcome> {
  return request(model, { type: "cancel" }, timeoutMs);
}

/** Errors after which the card can never be answered: its controls stay off. */
const FINAL_ERRORS = new Set([
  "InterruptAlreadyResolvedError",
  "InterruptExpiredError",
  "UnknownInterruptError",
  "NoPendingInterruptError",
]);

export function isFinalError(error: ResponseError): boolean {
  return FINAL_ERRORS.has(error.name);
}

/**
 * A problem's path as a field path (see field-path.ts). The contract leaves the format
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
