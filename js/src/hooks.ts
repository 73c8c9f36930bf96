import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import type { Model } from "./types";

/** A model attribute, re-read on each of its `change:` events; unsubscribed on unmount. */
export function useModelValue<T>(model: Model, key: string): T {
  const [value, setValue] = useState<{ v: T }>(() => ({ v: model.get(key) }));
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

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
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
