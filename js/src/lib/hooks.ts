import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Model, Traits } from "../types";

/** A model attribute, re-read on each of its `change:` events; unsubscribed on unmount. */
export function useModelValue<K extends keyof Traits>(model: Model, key: K): Traits[K] {
  const [value, setValue] = useState<{ v: Traits[K] }>(() => ({ v: model.get(key) }));
  useLayoutEffect(() => {
    const onChange = () => setValue({ v: model.get(key) });
    model.on(`change:${key}`, onChange);
    onChange();
    return () => model.off(`change:${key}`, onChange);
  }, [model, key]);
  return value.v;
}

/** `Date.now()`, refreshed every `intervalMs` while `active`. */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}

/** `m:ss`, or `h:mm:ss` from an hour on. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

let nextId = 0;

/** A document-unique id prefix for one component instance (labels need ids). */
export function useUniqueId(prefix: string): string {
  const [id] = useState(() => {
    nextId += 1;
    return `${prefix}-${nextId}`;
  });
  return id;
}

// -- one render per animation frame --------------------------------------------------

const queued = new Set<() => void>();
let frameHandle: { cancel(): void } | null = null;

/** Runs every callback queued for the next frame now (tests, and before a synchronous read). */
export function flushFrame(): void {
  frameHandle?.cancel();
  frameHandle = null;
  const callbacks = [...queued];
  queued.clear();
  for (const callback of callbacks) callback();
}

/**
 * Runs `callback` once at the next animation frame, however often it is queued before
 * then. A hidden tab gets no frames, so a timer stands in after 100 ms.
 */
export function onNextFrame(callback: () => void): void {
  queued.add(callback);
  if (frameHandle) return;
  const raf = typeof requestAnimationFrame === "function" ? requestAnimationFrame(flushFrame) : 0;
  const timer = setTimeout(flushFrame, 100);
  frameHandle = {
    cancel() {
      if (raf && typeof cancelAnimationFrame === "function") cancelAnimationFrame(raf);
      clearTimeout(timer);
    },
  };
}

/**
 * `useModelValue`, re-read at most once per animation frame: a burst of kernel messages
 * (a long run's transcript) costs one render per frame, not one per message.
 */
export function useFrameModelValue<K extends keyof Traits>(model: Model, key: K): Traits[K] {
  const [value, setValue] = useState<{ v: Traits[K] }>(() => ({ v: model.get(key) }));
  useLayoutEffect(() => {
    let live = true;
    const read = () => {
      if (live) setValue({ v: model.get(key) });
    };
    const onChange = () => onNextFrame(read);
    model.on(`change:${key}`, onChange);
    read();
    return () => {
      live = false;
      queued.delete(read);
      model.off(`change:${key}`, onChange);
    };
  }, [model, key]);
  return value.v;
}

/**
 * `value`, passed on at most once every `everyMs`: a change after a quiet spell at once,
 * one that comes sooner when its time comes (the latest value then). For parts of a view
 * that need not follow a live run at every frame.
 */
export function usePaced<T>(value: T, everyMs: number): T {
  const paced = useRef({ shown: value, at: Number.NEGATIVE_INFINITY });
  const [woken, wake] = useState(0);
  const now = Date.now();
  if (value !== paced.current.shown && now - paced.current.at >= everyMs) paced.current = { shown: value, at: now };
  const waiting = value !== paced.current.shown;
  useEffect(() => {
    if (!waiting) return undefined;
    const timer = setTimeout(() => wake((n) => n + 1), Math.max(0, paced.current.at + everyMs - Date.now()));
    return () => clearTimeout(timer);
  }, [value, waiting, everyMs, woken]);
  return paced.current.shown;
}
