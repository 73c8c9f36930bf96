/**
 * One way for every control that asks the kernel to do something (answer a card, step
 * on, stop, refresh): send one request at a time, say "Sending…", show the kernel's error
 * with its problems beside the fields they name, and let the controls be used again
 * unless the error is final.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { own, record } from "../lib/own";
import type { ResponseError } from "../types";
import { isFinalError, problemPath } from "./protocol";
import { type Kernel, type Outcome, useKernel } from "./requests";

/** `sent`: the kernel took the request and will replace what was answered; `closed`: an
 * error after which it can never be answered. Both keep the controls off. */
export type AnswerPhase = "idle" | "sending" | "sent" | "closed";

export interface AnswerOptions {
  /** What an accepted request leaves: `sent` (a card, a stop: the kernel replaces them)
   * or `idle` (a step, a refresh: the same controls serve again). */
  afterOk?: "sent" | "idle";
  /** The part of the answer a form edits (`editedArgs`, `args`), so that a problem at
   * `$.args.cents` belongs to the form's field `cents`. */
  within?: string;
}

export interface Answer {
  phase: AnswerPhase;
  error: ResponseError | null;
  /** The kernel's problems by field path, relative to `within`. */
  fieldErrors: Record<string, string[]> | undefined;
  /** False where the view has no kernel to send to (a saved page). */
  connected: boolean;
  /** Whether a request may go out now: none is out, none was taken, none failed for good. */
  ready(): boolean;
  /** Sends one request and settles the phase by its outcome; null when nothing was sent. */
  send(request: (kernel: Kernel) => Promise<Outcome>): Promise<Outcome | null>;
}

/** The kernel's problems by field path; a path inside `within` loses that prefix. */
export function problemsByField(error: ResponseError | null, within = ""): Record<string, string[]> | undefined {
  if (!error || !Array.isArray(error.problems)) return undefined;
  const byPath = record<string[]>();
  for (const problem of error.problems) {
    let path = problemPath(problem.path);
    if (within && (path === within || path.startsWith(`${within}.`))) path = path.slice(within.length + 1);
    const list = own(byPath, path) ?? [];
    byPath[path] = list;
    list.push(String(problem.message));
  }
  return byPath;
}

export function useAnswer({ afterOk = "sent", within = "" }: AnswerOptions = {}): Answer {
  const kernel = useKernel();
  const [phase, setPhase] = useState<AnswerPhase>("idle");
  const [error, setError] = useState<ResponseError | null>(null);
  // State updates land after a re-render; a second click before that must still send nothing.
  const busy = useRef(false);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const send = async (request: (kernel: Kernel) => Promise<Outcome>): Promise<Outcome | null> => {
    if (busy.current || !kernel) return null;
    busy.current = true;
    setPhase("sending");
    setError(null);
    // Every send ends in an outcome: a request the kernel never answers times out
    // (requests.ts), and an answer that cannot be built or sent is an error here.
    let outcome: Outcome;
    try {
      outcome = await request(kernel);
    } catch (err) {
      const message = `The answer could not be sent: ${err instanceof Error ? err.message : String(err)}`;
      outcome = { ok: false, error: { name: "AnswerError", message } };
    }
    if (!mounted.current) return outcome;
    if (outcome.ok) {
      if (afterOk === "idle") busy.current = false;
      setPhase(afterOk);
    } else {
      setError(outcome.error);
      const final = isFinalError(outcome.error);
      if (!final) busy.current = false;
      setPhase(final ? "closed" : "idle");
    }
    return outcome;
  };

  return {
    phase,
    error,
    fieldErrors: problemsByField(error, within),
    connected: kernel !== null,
    ready: () => !busy.current && kernel !== null,
    send,
  };
}
