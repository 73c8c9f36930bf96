import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useNow } from "../lib/hooks";
import type { Step } from "../lib/past";
import { revealText } from "../lib/unicode";
import {
  around,
  axisTicks,
  type Bin,
  binSteps,
  isWhole,
  KIND_WORDS,
  KINDS,
  labelPlace,
  pan,
  type Stretch,
  shownSteps,
  stepDescription,
  stepLabel,
  took,
  type Usage,
  usageByTurn,
  usageKey,
  wholeRun,
  zoom,
} from "../lib/waterfall";
import type { Item } from "../types";
import "./waterfall.css";

/** A stretch with at most this many steps draws a row for each; a longer one, bands. */
export const DETAIL_STEPS = 40;
/** Bands are summed into at most this many bins, whatever the run's length. */
export const MAX_BINS = 200;
/** The longest steps called out under the plot. */
export const LONGEST = 5;
/** The plot's width before it is measured (and where nothing measures it). */
const DEFAULT_WIDTH = 600;

const count = (n: number) => n.toLocaleString("en-US");
const percent = (x: number) => `${(Math.max(0, Math.min(1, x)) * 100).toFixed(3)}%`;

/** The plot's width in pixels, followed as the notebook's column changes. */
function useWidth(active: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(DEFAULT_WIDTH);
  useEffect(() => {
    const el = ref.current;
    if (!active || !el || typeof ResizeObserver !== "function") return undefined;
    const observer = new ResizeObserver((entries) => {
      const measured = Math.round(entries[0]?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [active]);
  return { ref, width };
}

/** "model turn 1.20 s · 1,000" for each kind a stretch has, from its bins. */
function totals(bins: readonly Bin[]) {
  return KINDS.map((kind) => ({
    kind,
    time: bins.reduce((sum, bin) => sum + bin.time[kind], 0),
    steps: bins.reduce((sum, bin) => sum + bin.count[kind], 0),
  }));
}

/** The SVG path of one kind's share of each bin, stacked from the bottom (100 high). */
function bandPaths(bins: readonly Bin[]): Record<string, string> {
  const paths: Record<string, string[]> = { model: [], action: [], wait: [], breakpoint: [] };
  bins.forEach((bin, i) => {
    const busy = KINDS.reduce((sum, kind) => sum + bin.time[kind], 0);
    const room = Math.max(bin.to - bin.from, busy);
    if (!(room > 0) || busy === 0) return;
    let y = 100;
    for (const kind of KINDS) {
      const h = (bin.time[kind] / room) * 100;
      if (h <= 0) continue;
      y -= h;
      paths[kind]!.push(`M${i} ${y.toFixed(2)}h1v${h.toFixed(2)}h-1z`);
    }
  });
  return Object.fromEntries(Object.entries(paths).map(([kind, parts]) => [kind, parts.join("")]));
}

function binWords(bin: Bin, origin: number): string {
  const steps =
    bin.first < 0 ? "no step begins here" : bin.first === bin.last ? `step ${count(bin.first + 1)}` : `steps ${count(bin.first + 1)}–${count(bin.last + 1)}`;
  const parts = KINDS.filter((kind) => bin.time[kind] > 0 || bin.count[kind] > 0).map(
    (kind) => `${KIND_WORDS[kind]} ${took(bin.time[kind])}${bin.count[kind] ? ` (${count(bin.count[kind])})` : ""}`,
  );
  return `${took(bin.from - origin)} to ${took(bin.to - origin)}: ${steps}${parts.length ? ` · ${parts.join(" · ")}` : ""}`;
}

interface WaterfallProps {
  steps: readonly Step[];
  current?: number | null;
  items?: readonly Item[];
  onPick?: (index: number) => void;
}

/**
 * The run's steps against a time axis: a row a step, with its words where they fit, for a
 * stretch of up to DETAIL_STEPS steps; for a longer one, bands that sum each bin's time
 * by kind, with the longest steps called out. Zoom and pan with the buttons, or with
 * + − ← → and 0 on the plot. `onPick(i)` takes the step slider to step `i`.
 */
export function Waterfall({ steps, current = null, items, onPick }: WaterfallProps) {
  const live = steps.some((step) => step.end === null);
  const now = useNow(live) * 1000;
  const [chosen, setChosen] = useState<Stretch | null>(null);
  const [hovered, setHovered] = useState<number | null>(null);
  const { ref, width } = useWidth(steps.length > 0);
  const usages = useMemo(() => (items ? usageByTurn(items) : new Map<string, Usage>()), [items]);
  const whole = wholeRun(steps, now);
  const view = chosen ? zoom(chosen, whole, 1) : whole;
  const fitted = isWhole(view, whole);

  // The slider taken to a step out of sight brings the stretch along.
  useEffect(() => {
    const step = current === null ? undefined : steps[current];
    if (!step || !chosen) return;
    if (step.start < chosen.from || step.start > chosen.to) {
      const half = (chosen.to - chosen.from) / 2;
      setChosen(zoom({ from: step.start - half, to: step.start + half }, wholeRun(steps, Date.now() * 1000), 1));
    }
  }, [current]);

  if (steps.length === 0) return null;

  const span = view.to - view.from;
  const bins = Math.max(10, Math.min(MAX_BINS, Math.floor(width / 3)));
  const shown = shownSteps(steps, view, now, DETAIL_STEPS, LONGEST);
  const binned = binSteps(steps, view, bins, now);
  const sums = totals(binned);
  const ticks = axisTicks(view, whole.from, Math.max(2, Math.min(10, Math.floor(width / 90))));
  const x = (t: number) => (t - view.from) / span;
  const usageOf = (step: Step) => (step.kind === "model" ? (usages.get(usageKey(step.start, step.label)) ?? null) : null);
  const describe = (index: number) => {
    const step = steps[index]!;
    return revealText(stepDescription(step, index, steps.length, whole.from, now, usageOf(step)));
  };
  const set = (next: Stretch) => {
    setHovered(null);
    setChosen(isWhole(next, whole) ? null : next);
  };
  const zoomBy = (factor: number, anchor?: number) => set(zoom(view, whole, factor, anchor));
  const panBy = (fraction: number) => set(pan(view, whole, fraction));
  const pick = (index: number) => {
    set(around(steps, index, now, whole));
    onPick?.(index);
  };
  const onKey = (e: KeyboardEvent) => {
    const actions: Record<string, () => void> = {
      "+": () => zoomBy(0.5),
      "=": () => zoomBy(0.5),
      "-": () => zoomBy(2),
      ArrowLeft: () => panBy(-0.25),
      ArrowRight: () => panBy(0.25),
      "0": () => set(whole),
    };
    const act = actions[e.key];
    if (!act || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    act();
  };
  const binAt = (e: MouseEvent) => {
    const box = (e.currentTarget as Element).getBoundingClientRect();
    return box.width > 0 ? Math.max(0, Math.min(bins - 1, Math.floor(((e.clientX - box.left) / box.width) * bins))) : null;
  };

  const range =
    shown.count === 0
      ? "No step in this stretch"
      : `Steps ${count(shown.first + 1)}–${count(shown.last + 1)} of ${count(steps.length)}${shown.count !== shown.last - shown.first + 1 ? ` (${count(shown.count)} in view)` : ""}`;
  const currentStep = current === null ? undefined : steps[current];
  const paths = shown.indices ? null : bandPaths(binned);

  return (
    <section class="pp-wf" data-testid="pp-waterfall" data-mode={shown.indices ? "rows" : "bands"} aria-label="Waterfall of the run's steps">
      <div class="pp-wf-head">
        <ul class="pp-wf-legend" data-testid="pp-waterfall-legend" aria-label="Legend, with the time in view">
          {sums.map(({ kind, time, steps: n }) => (
            <li class={`pp-wf-key pp-wf-${kind}`} data-testid="pp-waterfall-key" data-kind={kind}>
              <span class="pp-wf-swatch" aria-hidden="true" />
              {KIND_WORDS[kind]}
              <span class="pp-wf-key-sum">
                {took(time)} · {count(n)}
              </span>
            </li>
          ))}
        </ul>
        <div class="pp-wf-tools" role="toolbar" aria-label="Zoom and pan">
          <button
            type="button"
            class="pp-button pp-button-quiet"
            data-testid="pp-waterfall-earlier"
            aria-label="Earlier"
            title="Earlier (←)"
            disabled={view.from <= whole.from}
            onClick={() => panBy(-0.5)}
          >
            ◀
          </button>
          <button
            type="button"
            class="pp-button pp-button-quiet"
            data-testid="pp-waterfall-zoom-out"
            aria-label="Zoom out"
            title="Zoom out (−)"
            disabled={fitted}
            onClick={() => zoomBy(2)}
          >
            −
          </button>
          <button
            type="button"
            class="pp-button pp-button-quiet"
            data-testid="pp-waterfall-zoom-in"
            aria-label="Zoom in"
            title="Zoom in (+)"
            disabled={span <= 20}
            onClick={() => zoomBy(0.5)}
          >
            +
          </button>
          <button
            type="button"
            class="pp-button pp-button-quiet"
            data-testid="pp-waterfall-later"
            aria-label="Later"
            title="Later (→)"
            disabled={view.to >= whole.to}
            onClick={() => panBy(0.5)}
          >
            ▶
          </button>
          <button
            type="button"
            class="pp-button pp-button-quiet"
            data-testid="pp-waterfall-fit"
            title="The whole run (0)"
            disabled={fitted}
            onClick={() => set(whole)}
          >
            Fit
          </button>
        </div>
      </div>
      <p class="pp-muted pp-wf-range" data-testid="pp-waterfall-range">
        {range} · {took(view.from - whole.from)} to {took(view.to - whole.from)}
        {fitted ? "" : ` · zoomed ×${count(Math.round((whole.to - whole.from) / span))}`}
      </p>
      <div
        class={`pp-wf-plot${shown.indices ? "" : " pp-wf-plot-bands"}`}
        ref={ref}
        tabindex={0}
        role="group"
        onKeyDown={onKey}
        aria-label={`${range}. Plus and minus zoom, the arrow keys pan, 0 shows the whole run.`}
        aria-keyshortcuts="+ - ArrowLeft ArrowRight 0"
      >
        <div class="pp-wf-axis" data-testid="pp-waterfall-axis" aria-hidden="true">
          {ticks.map((tick) => (
            <span class="pp-wf-tick" data-testid="pp-waterfall-tick" style={{ left: percent(tick.x) }}>
              {tick.label}
            </span>
          ))}
        </div>
        {shown.indices ? (
          <div class="pp-wf-rows" role="list" aria-label="Steps in view">
            {shown.indices.map((index) => {
              const step = steps[index]!;
              const x0 = x(step.start);
              const x1 = x(Math.max(step.start, step.end ?? now));
              const text = revealText(stepLabel(step, now, usageOf(step)));
              const place = labelPlace(text.length, Math.max(0, x0) * width, Math.min(1, x1) * width, width);
              const here = index === current;
              const labelStyle =
                place === "inside"
                  ? { left: percent(x0) }
                  : place === "after"
                    ? { left: `calc(${percent(x1)} + 4px)` }
                    : { right: `calc(${percent(1 - x0)} + 4px)` };
              return (
                <div role="listitem" class="pp-wf-item">
                  <button
                    type="button"
                    class={`pp-wf-row pp-wf-${step.kind}${here ? " pp-wf-current" : ""}`}
                    data-testid="pp-waterfall-row"
                    data-kind={step.kind}
                    data-step={index}
                    title={describe(index)}
                    aria-label={describe(index)}
                    aria-current={here ? "step" : undefined}
                    onClick={() => onPick?.(index)}
                  >
                    <span class="pp-wf-bar" style={{ left: percent(x0), width: `max(2px, ${percent(x1 - Math.max(0, x0))})` }} />
                    {place ? (
                      <span class={`pp-wf-label pp-wf-label-${place}`} data-testid="pp-waterfall-label" style={labelStyle}>
                        {text}
                      </span>
                    ) : null}
                  </button>
                </div>
              );
            })}
          </div>
        ) : (
          <>
            <svg
              class="pp-wf-bands"
              data-testid="pp-waterfall-bands"
              viewBox={`0 0 ${bins} 100`}
              preserveAspectRatio="none"
              aria-hidden="true"
              onMouseMove={(e: MouseEvent) => setHovered(binAt(e))}
              onMouseLeave={() => setHovered(null)}
              onClick={(e: MouseEvent) => {
                const bin = binAt(e);
                if (bin !== null) zoomBy(0.25, (binned[bin]!.from + binned[bin]!.to) / 2);
              }}
            >
              {KINDS.map((kind) =>
                paths![kind] ? <path class={`pp-wf-band pp-wf-${kind}`} data-testid="pp-waterfall-band" data-kind={kind} d={paths![kind]} /> : null,
              )}
              {hovered !== null ? <rect class="pp-wf-hover" x={hovered} y="0" width="1" height="100" /> : null}
              {currentStep && currentStep.start >= view.from && currentStep.start <= view.to ? (
                <line class="pp-wf-now" data-testid="pp-waterfall-current" x1={x(currentStep.start) * bins} x2={x(currentStep.start) * bins} y1="0" y2="100" />
              ) : null}
            </svg>
            <div class="pp-wf-markers" aria-hidden="true">
              {shown.longest.map((index, rank) => (
                <span
                  class={`pp-wf-marker pp-wf-${steps[index]!.kind}`}
                  data-testid="pp-waterfall-marker"
                  title={describe(index)}
                  style={{ left: percent(x(steps[index]!.start)) }}
                >
                  {rank + 1}
                </span>
              ))}
            </div>
          </>
        )}
      </div>
      {paths ? (
        <p class="pp-muted pp-wf-readout" data-testid="pp-waterfall-readout">
          {hovered !== null && binned[hovered] ? binWords(binned[hovered]!, whole.from) : "Point at the bands to read a stretch; click to zoom in there."}
        </p>
      ) : null}
      {shown.longest.length > 0 ? (
        <div class="pp-wf-costs">
          <span class="pp-block-label">Longest steps in view</span>
          <ol data-testid="pp-waterfall-costs" aria-label="Longest steps in view">
            {shown.longest.map((index) => {
              const step = steps[index]!;
              return (
                <li>
                  <button
                    type="button"
                    class={`pp-button pp-button-quiet pp-wf-cost pp-wf-${step.kind}`}
                    data-testid="pp-waterfall-cost"
                    data-step={index}
                    data-kind={step.kind}
                    title={describe(index)}
                    onClick={() => pick(index)}
                  >
                    <span class="pp-wf-swatch" aria-hidden="true" />
                    <strong>{took(Math.max(step.start, step.end ?? now) - step.start)}</strong> {revealText(`${KIND_WORDS[step.kind]} · ${step.label}`)}{" "}
                    <span class="pp-muted">step {count(index + 1)}</span>
                  </button>
                </li>
              );
            })}
          </ol>
        </div>
      ) : null}
    </section>
  );
}
