/**
 * Whether the kernel behind a view is still there. A view can outlive its kernel: the
 * notebook was reopened and the view drawn from saved widget state, or the kernel was
 * restarted or shut down while the page stayed open. Such a view must say so before anyone
 * clicks, since nothing it sends can arrive.
 *
 * Three signals, each cheap and none needing a message to the kernel (a ping would take a
 * busy kernel for a dead one):
 * - ipywidgets marks a view whose model has no live comm with the class
 *   `jupyter-widgets-disconnected` on the view's element (models restored from saved state,
 *   and every model once the kernel restarts); it fires `comm_live_update` on the model.
 * - JupyterLab and Notebook 7 expose the notebook's session on the widget manager; its
 *   status (restarting, dead, ...) and a change of kernel (shut down, or another one picked)
 *   mean this model's kernel is gone for good.
 */
import { useEffect, useState } from "preact/hooks";
import type { Model } from "../types";

export const DISCONNECTED_CLASS = "jupyter-widgets-disconnected";
export const GONE_STATUSES: ReadonlySet<string> = new Set(["restarting", "autorestarting", "terminating", "dead"]);

type Slot<A> = (sender: unknown, args: A) => void;

/** The part of a Lumino signal used here. */
interface Signal<A> {
  connect(slot: Slot<A>): unknown;
  disconnect(slot: Slot<A>): unknown;
}

/** The part of JupyterLab's session context used here. */
export interface SessionLike {
  statusChanged: Signal<string>;
  kernelChanged?: Signal<{ oldValue: unknown; newValue: unknown }>;
}

function isSignal(value: unknown): value is Signal<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Signal<unknown>).connect === "function" &&
    typeof (value as Signal<unknown>).disconnect === "function"
  );
}

/** The notebook session behind the model's widget manager, where the host exposes one. */
export function sessionOf(model: Model): SessionLike | null {
  try {
    const manager = (model as { widget_manager?: { context?: { sessionContext?: unknown } } }).widget_manager;
    const session = manager?.context?.sessionContext as Partial<SessionLike> | undefined;
    return session && isSignal(session.statusChanged) ? (session as SessionLike) : null;
  } catch {
    return null; // a host whose manager has no such getters
  }
}

/**
 * Calls `onChange(gone)` once now and again whenever that changes; returns the cleanup.
 * A lost session stays lost: a new kernel does not know this view's model.
 */
export function watchKernel(model: Model, host: HTMLElement, onChange: (gone: boolean) => void): () => void {
  let lost = false;
  let reported: boolean | null = null;
  const report = () => {
    const gone = lost || host.classList.contains(DISCONNECTED_CLASS);
    if (gone === reported) return;
    reported = gone;
    onChange(gone);
  };
  const observer = typeof MutationObserver === "undefined" ? null : new MutationObserver(report);
  observer?.observe(host, { attributes: true, attributeFilter: ["class"] });
  // The view's own listener sets the class; ours may run before it, so look again after.
  const onCommLive = () => {
    report();
    queueMicrotask(report);
  };
  model.on("comm_live_update", onCommLive);

  const session = sessionOf(model);
  const onStatus: Slot<string> = (_, status) => {
    if (GONE_STATUSES.has(status)) {
      lost = true;
      report();
    }
  };
  const onKernel: Slot<{ oldValue: unknown; newValue: unknown }> = (_, change) => {
    if (change?.oldValue) {
      lost = true;
      report();
    }
  };
  session?.statusChanged.connect(onStatus);
  session?.kernelChanged?.connect(onKernel);
  report();
  return () => {
    observer?.disconnect();
    model.off("comm_live_update", onCommLive);
    session?.statusChanged.disconnect(onStatus);
    session?.kernelChanged?.disconnect(onKernel);
  };
}

/** `true` once the view's kernel is gone (see `watchKernel`); `false` without a host element. */
export function useKernelGone(model: Model, host: HTMLElement | undefined): boolean {
  const [gone, setGone] = useState(() => host?.classList.contains(DISCONNECTED_CLASS) ?? false);
  useEffect(() => (host ? watchKernel(model, host, setGone) : undefined), [model, host]);
  return gone;
}
