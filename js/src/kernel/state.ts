/**
 * The model-wide half of the widget: applies the kernel's incremental messages to the
 * model's local state, once per model, so that every view of it follows.
 */

import type { Item, KernelMessage, Model, Traits } from "../types";
import type { Requests } from "./requests";

/**
 * Where the streamed assistant text lives. It is a model attribute that is no trait:
 * the kernel never sends it, and views of one model share it because they share the model.
 */
export const STREAMING_KEY = "_pp_streaming" satisfies keyof Traits;

export function streamingText(model: Model): string {
  const text = model.get(STREAMING_KEY);
  return typeof text === "string" ? text : "";
}

/** `items[start .. start + replacement.length)` replaced, appending past the end. One copy
 * of the array, whatever its length: a long run's messages leave little for the garbage
 * collector. */
export function spliceItems(current: readonly Item[], start: number, replacement: readonly Item[]): Item[] {
  const at = Math.max(0, Math.min(start, current.length));
  const next = current.slice();
  replacement.forEach((item, i) => {
    next[at + i] = item;
  });
  return next;
}

/** The request id of `follow`: its response settles nothing and nothing waits for it. */
export const FOLLOW_REQUEST_ID = "pp-follow";

const following = new WeakSet<Model>();

/** Tells the kernel, once per model, that this front end keeps the transcript from the
 * `items` messages: the end of a cell then does not send the whole transcript again (a
 * long run's is megabytes to parse and compare for what this model has already). */
function follow(model: Model): void {
  if (following.has(model)) return;
  following.add(model);
  try {
    model.send({ type: "follow", requestId: FOLLOW_REQUEST_ID });
  } catch {
    // No line to the kernel: the end of a cell sends the transcript as before.
  }
}

/** Applies one kernel message; a `response` settles a request of `requests`, the widget's own. */
export function applyMessage(model: Model, message: KernelMessage, requests?: Requests): void {
  if (!message || typeof message !== "object") return;
  switch (message.type) {
    case "items": {
      const items = model.get("items");
      const current: Item[] = Array.isArray(items) ? items : [];
      const start = Number.isInteger(message.start) ? message.start : current.length;
      const incoming = Array.isArray(message.items) ? message.items : [];
      model.set("items", spliceItems(current, start, incoming));
      const appendsAssistant = incoming.some((item, i) => item?.type === "assistant" && start + i >= current.length);
      if (appendsAssistant && streamingText(model) !== "") model.set(STREAMING_KEY, "");
      follow(model);
      break;
    }
    case "text":
      if (typeof message.delta === "string" && message.delta !== "") {
        model.set(STREAMING_KEY, streamingText(model) + message.delta);
      }
      break;
    case "response":
      requests?.dispatch(message);
      break;
  }
}

/** anywidget's `initialize`: returns the cleanup that undoes it. */
export function initializeModel(model: Model, requests: Requests): () => void {
  const onMessage = (message: KernelMessage) => applyMessage(model, message, requests);
  // A run that stops mid-stream (failure, cancellation) leaves no assistant message to clear it.
  const onStatus = () => {
    if (model.get("status") !== "running" && streamingText(model) !== "") model.set(STREAMING_KEY, "");
  };
  model.on("msg:custom", onMessage);
  model.on("change:status", onStatus);
  // At once, not only at the first transcript message: a host that gives a page opened
  // again the state it first saw (marimo) gets the current transcript in reply.
  if (model.get("run_id") !== undefined) follow(model);
  return () => {
    model.off("msg:custom", onMessage);
    model.off("change:status", onStatus);
  };
}
