/**
 * The requests one widget has out to the kernel. A view makes up a request id, keeps a
 * resolver for it, and the kernel answers each id exactly once with a `response` message,
 * which `initialize`'s message handler hands to `dispatch`.
 *
 * Each widget (one model, however many views show it) owns one table, made by the
 * module's default-export factory: anywidget calls the factory once per model, so the
 * model's `initialize` and every `render` of it share the closure, while anywidget hands
 * each of them a different model proxy that could not serve as a key.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { InboxRequest, Reply, ViewRequest } from "../generated/protocol";
import type { Json, Model, ResponseError } from "../types";

export const REQUEST_TIMEOUT_MS = 60_000;

export type Outcome = { ok: true; value?: Json } | { ok: false; error: ResponseError };

type WithoutId<R> = R extends unknown ? Omit<R, "requestId"> : never;

/** A request as a view makes it, before the line gives it its `requestId`. */
export type Outgoing = WithoutId<ViewRequest | InboxRequest>;

/** One view's line to the kernel: a request sent through the view's model, answered
 * through its widget's table. */
export interface Kernel {
  request(content: Outgoing, timeoutMs?: number): Promise<Outcome>;
}

export interface Requests {
  /** The line for a view that shows the widget through `model`. */
  kernel(model: Model): Kernel;
  /** Settles the request the kernel's `response` answers; a foreign id changes nothing. */
  dispatch(message: Reply): void;
  /** How many requests wait on the kernel. */
  size(): number;
  /** Settles every waiting request with an error and stops its timer: the widget is gone. */
  close(): void;
}

function randomPart(): string {
  return typeof crypto !== "undefined" && typeof crypto.randomUUID === "function" ? crypto.randomUUID() : Math.random().toString(36).slice(2);
}

export function createRequests(): Requests {
  const waiting = new Map<string, (outcome: Outcome) => void>();
  let counter = 0;

  const send = (model: Model, content: Outgoing, timeoutMs: number): Promise<Outcome> => {
    counter += 1;
    const requestId = `pp-${counter}-${randomPart()}`;
    return new Promise<Outcome>((resolve) => {
      const settle = (outcome: Outcome) => {
        clearTimeout(timer);
        waiting.delete(requestId);
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        settle({
          ok: false,
          error: {
            name: "TimeoutError",
            message: `The kernel did not answer within ${Math.round(timeoutMs / 1000)} s. Is it still running? Check the kernel, then try again.`,
          },
        });
      }, timeoutMs);
      waiting.set(requestId, settle);
      try {
        model.send({ ...content, requestId });
      } catch (err) {
        settle({ ok: false, error: { name: "SendError", message: `Could not reach the kernel: ${String(err)}` } });
      }
    });
  };

  return {
    kernel: (model) => ({ request: (content, timeoutMs = REQUEST_TIMEOUT_MS) => send(model, content, timeoutMs) }),
    dispatch(message) {
      const settle = message.requestId === null ? undefined : waiting.get(message.requestId);
      if (!settle) return;
      if (message.ok) settle(message.value === undefined ? { ok: true } : { ok: true, value: message.value });
      else settle({ ok: false, error: message.error ?? { name: "Error", message: "The kernel refused the answer." } });
    },
    size: () => waiting.size,
    close() {
      const error: ResponseError = { name: "ClosedError", message: "The widget was closed before the kernel answered." };
      for (const settle of [...waiting.values()]) settle({ ok: false, error });
    },
  };
}

/** The view's line to the kernel; null where no kernel was provided (a saved page). */
export const KernelContext = createContext<Kernel | null>(null);

export function useKernel(): Kernel | null {
  return useContext(KernelContext);
}
