import { html } from "htm/preact";
import { useNow } from "../hooks";
import { type Step, type StepKind } from "../past";

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

/** One bar per step (model request, action execution, wait for a person, breakpoint),
 * placed by the times the transcript records; `current` marks the step the scrubber shows. */
export function Timeline({ steps, current = null }: { steps: readonly Step[]; current?: number | null }) {
  const open = steps.some((step) => step.end === null);
  const now = useNow(open) * 1000;
  if (steps.length === 0) return null;
  const first = steps[0]!.start;
  const last = Math.max(...steps.map((step) => step.end ?? now), first + 1);
  const span = last - first;
  return html`<div class="pp-timeline" data-testid="pp-timeline" role="list" aria-label="Timeline">
    ${steps.map((step, index) => {
      const end = step.end ?? now;
      const took = duration(Math.max(0, end - step.start) / 1000);
      const title = `${KIND_WORDS[step.kind]} · ${step.label} · ${step.end === null ? `${took} so far` : took}`;
      return html`<div class=${`pp-timeline-row${index === current ? " pp-timeline-current" : ""}`} role="listitem"
        data-testid="pp-timeline-bar" data-kind=${step.kind} title=${title} aria-current=${index === current ? "step" : undefined}>
        <span class=${`pp-timeline-bar pp-timeline-${step.kind}`}
          style=${{ left: `${((step.start - first) / span) * 100}%`, width: `max(2px, ${((end - step.start) / span) * 100}%)` }}></span>
      </div>`;
    })}
  </div>`;
}
