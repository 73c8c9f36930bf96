import { html } from "htm/preact";
import { useNow } from "../lib/hooks";
import type { Step, StepKind } from "../lib/past";
import { revealText } from "../lib/unicode";

const KIND_WORDS: Record<StepKind, string> = {
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

/** Bars drawn at most: a long run shows the stretch around the step the slider is at. */
export const TIMELINE_BARS = 200;

/** The `[from, to)` range of steps drawn: the last ones, or those around `current`. */
export function timelineWindow(total: number, current: number | null, size = TIMELINE_BARS): [number, number] {
  if (total <= size) return [0, total];
  const from = current === null ? total - size : Math.max(0, Math.min(current - Math.floor(size / 2), total - size));
  return [from, from + size];
}

/** One bar per step (model request, action execution, wait for a person, breakpoint),
 * placed by the times the transcript records; `current` marks the step the scrubber shows. */
export function Timeline({ steps, current = null }: { steps: readonly Step[]; current?: number | null }) {
  const [from, to] = timelineWindow(steps.length, current);
  const shown = steps.slice(from, to);
  const open = shown.some((step) => step.end === null);
  const now = useNow(open) * 1000;
  if (shown.length === 0) return null;
  const first = shown[0]!.start;
  const last = Math.max(...shown.map((step) => step.end ?? now), first + 1);
  const span = last - first;
  const count = (n: number) => n.toLocaleString("en-US");
  return html`${
    shown.length < steps.length
      ? html`<p class="pp-muted pp-timeline-range" data-testid="pp-timeline-range">Timeline of steps ${count(from + 1)}–${count(to)} of ${count(steps.length)}</p>`
      : null
  }
    <div class="pp-timeline" data-testid="pp-timeline" role="list" aria-label="Timeline">
    ${shown.map((step, offset) => {
      const index = from + offset;
      const end = step.end ?? now;
      const took = duration(Math.max(0, end - step.start) / 1000);
      const title = `${KIND_WORDS[step.kind]} · ${step.label} · ${step.end === null ? `${took} so far` : took}`;
      return html`<div class=${`pp-timeline-row${index === current ? " pp-timeline-current" : ""}`} role="listitem"
        data-testid="pp-timeline-bar" data-kind=${step.kind} title=${revealText(title)} aria-current=${index === current ? "step" : undefined}>
        <span class=${`pp-timeline-bar pp-timeline-${step.kind}`}
          style=${{ left: `${((step.start - first) / span) * 100}%`, width: `max(2px, ${((end - step.start) / span) * 100}%)` }}></span>
      </div>`;
    })}
  </div>`;
}
