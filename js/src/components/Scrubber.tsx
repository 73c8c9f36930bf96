import { useMemo } from "preact/hooks";
import type { ForkAt } from "../kernel/protocol";
import { useUniqueId } from "../lib/hooks";
import { callTitle, kindTitle } from "../lib/labels";
import { instant, type PastState, type Step, stateAt, stepTitle } from "../lib/past";
import { revealText } from "../lib/unicode";
import type { Item, PendingCard } from "../types";
import { JsonBlock } from "./JsonBlock";
import { cardHasHidden, HiddenWarning, Revealed } from "./Revealed";
import { Transcript } from "./Transcript";
import { When } from "./When";

const SLIDER_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"]);

/** The keys that move the slider stay with it: JupyterLab's notebook would otherwise take
 * them as its own shortcuts and cancel the move. */
function keepKeys(event: KeyboardEvent): void {
  if (SLIDER_KEYS.has(event.key)) event.stopPropagation();
}

/** When a step began, as an ISO time (steps count microseconds). */
function stepTime(step: Step): string {
  return new Date(step.start / 1000).toISOString();
}

/** Where "Go back here" at `step` makes a fork: before its model turn (a model request),
 * before its tool call runs again (an action), or at its pause, open again (a wait for a
 * person or a breakpoint); null when the transcript no longer holds it. */
export function forkAtStep(items: readonly Item[], step: Step): Exclude<ForkAt, string> | null {
  let turn = 0;
  for (const item of items) {
    if (item.type === "assistant") {
      if (step.kind === "model" && item.call && instant(item.call.started_at) === step.start) return { turn };
      turn += 1;
    } else if (item.type === "tool" && item.name === step.label) {
      if (step.kind === "action" && instant(item.started_at) === step.start) return { call: item.id };
      if (step.kind === "wait" || step.kind === "breakpoint") {
        const entry = (item.interrupts ?? []).find((e) => instant(e.created_at) === step.start);
        if (entry) return { interrupt: entry.id };
      }
    }
  }
  return null;
}

interface PastCardProps {
  card: PendingCard;
}

/** A pause as it stood then: what it asked, never answerable here. */
function PastCard({ card }: PastCardProps) {
  const title = card.kind === "breakpoint" ? "Breakpoint" : kindTitle(card.kind);
  return (
    <article
      class="pp-card pp-card-readonly pp-past-card"
      data-testid="pp-past-card"
      data-kind={card.kind}
      data-interrupt-id={revealText(card.id)}
      aria-label={revealText(`${title}: ${card.message}`)}
    >
      <div class="pp-card-head">
        <span class={`pp-badge pp-badge-${card.kind}`}>{title}</span>
        {card.toolName ? (
          <span class="pp-card-title">
            <Revealed text={callTitle(card.toolName, card.args ?? undefined)} />
          </span>
        ) : null}
        <span class="pp-muted">Waiting for an answer then</span>
      </div>
      {cardHasHidden(card) ? <HiddenWarning what="card" /> : null}
      <p class="pp-card-message">
        <Revealed text={card.message} />
      </p>
      {card.args ? <JsonBlock label="Arguments" value={card.args} testid="pp-past-args" /> : null}
    </article>
  );
}

interface PastProps {
  past: PastState;
  index: number;
  total: number;
}

function Past({ past, index, total }: PastProps) {
  const waiting = past.cards.length;
  const label = past.status !== "interrupted" ? "Running" : waiting > 1 ? `Waiting for ${waiting} answers` : "Waiting for an answer";
  return (
    <section class="pp-past" data-testid="pp-past" aria-label={`The run as it was at step ${index + 1} of ${total}`}>
      <p class="pp-past-head">
        <span class={`pp-status pp-status-${past.status}`} data-testid="pp-past-status" data-status={past.status}>
          {label}
        </span>
        <span class="pp-muted">
          As it was <When at={stepTime(past.step)} /> · read-only
        </span>
      </p>
      {past.cards.map((card) => (
        <PastCard key={card.id} card={card} />
      ))}
      <Transcript items={past.items} streaming="" />
    </section>
  );
}

interface ScrubberProps {
  items: Item[];
  steps: readonly Step[];
  /** The step shown, or null to follow the run live. */
  at: number | null;
  onMove(at: number | null): void;
  /** Makes a fork that goes back to the step shown (absent: read-only). */
  onGoBack?: (at: Exclude<ForkAt, string>) => void;
  busy?: boolean;
}

/**
 * A slider over the run's steps. At its right end it follows the run live; moved to step
 * k it shows the run as it was when that step began: its status, the pauses waiting then
 * and the transcript so far, read-only, and "Go back here", which makes a fork from that
 * step. Only that one state is drawn, however many steps the run has.
 */
export function Scrubber({ items, steps, at, onMove, onGoBack, busy = false }: ScrubberProps) {
  const id = useUniqueId("pp-scrubber");
  const total = steps.length;
  const index = at === null ? null : Math.min(at, total - 1);
  const past = useMemo(() => (index === null || total === 0 ? null : stateAt(items, steps, index)), [items, steps, index, total]);
  if (total === 0) return null;
  const where = index === null ? "Now (live)" : `Step ${index + 1} of ${total}: ${stepTitle(steps[index]!)}`;
  const target = index === null || !onGoBack ? null : forkAtStep(items, steps[index]!);
  return (
    <div class="pp-scrubber" data-testid="pp-scrubber">
      <div class="pp-scrubber-bar">
        <label for={id} class="pp-scrubber-label">
          Go back to a step
        </label>
        <input
          type="range"
          id={id}
          class="pp-scrubber-range"
          data-testid="pp-scrubber-range"
          min="0"
          max={total}
          step="1"
          value={index ?? total}
          aria-valuetext={revealText(where)}
          onKeyDown={keepKeys}
          onInput={(e: Event) => {
            const value = Number((e.currentTarget as HTMLInputElement).value);
            onMove(value >= total ? null : value);
          }}
        />
        <span class="pp-scrubber-where" data-testid="pp-scrubber-where" aria-live="polite">
          <Revealed text={where} />
        </span>
        {index !== null ? (
          <button type="button" class="pp-button" data-testid="pp-scrubber-live" onClick={() => onMove(null)}>
            Back to live
          </button>
        ) : null}
        {target && onGoBack ? (
          <button
            type="button"
            class="pp-button"
            data-testid="pp-go-back-step"
            disabled={busy}
            title="A new run from this step, shown below: change something here and go on from it"
            onClick={() => onGoBack(target)}
          >
            Go back here
          </button>
        ) : null}
      </div>
      {past && index !== null ? <Past past={past} index={index} total={total} /> : null}
    </div>
  );
}
