import { html } from "htm/preact";
import { useNow } from "../hooks";
import type { Item } from "../types";

export type BarKind = "model" | "action" | "wait" | "breakpoint";

export interface Bar {
  kind: BarKind;
  label: string;
  start: number;
  end: number | null; // null: still going
}

const KIND_WORDS: Record<BarKind, string> = {
  model: "model request",
  action: "action",
  wait: "waiting for a person",
  breakpoint: "breakpoint",
};

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** One bar per model request, action execution, wait for a person and breakpoint, from
 * the times the transcript records. */
export function barsOf(items: Item[]): Bar[] {
  const bars: Bar[] = [];
  const time = (text: string | null | undefined) => (text ? Date.parse(text) : Number.NaN);
  for (const item of items) {
    if (item.type === "assistant" && item.call) {
      const start = time(item.call.started_at);
      if (Number.isFinite(start)) bars.push({ kind: "model", label: item.call.model, start, end: time(item.call.ended_at) });
    } else if (item.type === "tool") {
      const start = time(item.started_at);
      if (Number.isFinite(start)) {
        const end = time(item.ended_at);
        bars.push({ kind: "action", label: item.name, start, end: Number.isFinite(end) ? end : null });
      }
      for (const entry of item.interrupts ?? []) {
        const start = time(entry.created_at);
        if (!Number.isFinite(start)) continue;
        const end = entry.resolution ? time(entry.resolution.at) : Number.NaN;
        bars.push({
          kind: entry.kind === "breakpoint" ? "breakpoint" : "wait",
          label: item.name,
          start,
          end: Number.isFinite(end) ? end : null,
        });
      }
    }
  }
  return bars.sort((a, b) => a.start - b.start);
}

export function Timeline({ items }: { items: Item[] }) {
  const bars = barsOf(items);
  const open = bars.some((bar) => bar.end === null);
  const now = useNow(open);
  if (bars.length === 0) return null;
  const first = bars[0]!.start;
  const last = Math.max(...bars.map((bar) => bar.end ?? now), first + 1);
  const span = last - first;
  return html`<div class="pp-timeline" data-testid="pp-timeline" role="list" aria-label="Timeline">
    ${bars.map((bar) => {
      const end = bar.end ?? now;
      const took = duration(Math.max(0, end - bar.start));
      const title = `${KIND_WORDS[bar.kind]} · ${bar.label} · ${bar.end === null ? `${took} so far` : took}`;
      return html`<div class="pp-timeline-row" role="listitem" data-testid="pp-timeline-bar" data-kind=${bar.kind} title=${title}>
        <span class=${`pp-timeline-bar pp-timeline-${bar.kind}`}
          style=${{ left: `${((bar.start - first) / span) * 100}%`, width: `max(2px, ${((end - bar.start) / span) * 100}%)` }}></span>
      </div>`;
    })}
  </div>`;
}
