import { useMemo } from "preact/hooks";
import { useKernelGone } from "../kernel/liveness";
import { STREAMING_KEY } from "../kernel/state";
import { cardKey } from "../lib/card-key";
import { GoneContext } from "../lib/gone";
import { useFrameModelValue, useModelValue, usePaced } from "../lib/hooks";
import { remoteOf } from "../lib/remote";
import type { Item, Model } from "../types";
import { Boundary } from "./Boundary";
import { BreakpointCard } from "./BreakpointCard";
import { Card } from "./Card";
import { DebugPanel } from "./DebugPanel";
import { Header } from "./Header";
import { KernelGone } from "./KernelGone";
import { ModelPause } from "./ModelPause";
import { cardsByCall, foreignPauses, Transcript } from "./Transcript";

/** How often the Debug panel follows a live run's transcript at most (ms). */
export const PANEL_EVERY_MS = 250;

const NO_IDS: ReadonlySet<string> = new Set();

/** The ids of every tool call the transcript shows a row for. */
function callIds(items: readonly Item[]): Set<string> {
  const ids = new Set<string>();
  for (const item of items) {
    if (item.type === "tool") ids.add(item.id);
    else if (item.type === "assistant") for (const call of item.tool_calls ?? []) ids.add(call.id);
  }
  return ids;
}

interface AppProps {
  model: Model;
  host?: HTMLElement;
}

export function App({ model, host }: AppProps) {
  const gone = useKernelGone(model, host);
  const status = useFrameModelValue(model, "status") ?? "idle";
  const runId = useModelValue(model, "run_id") ?? "";
  const meta = useModelValue(model, "meta");
  const error = useFrameModelValue(model, "error");
  const startedAt = useFrameModelValue(model, "started_at");
  // A live run changes many times a second: one render per frame, with the transcript,
  // its status and cards in step.
  const items = useFrameModelValue(model, "items") ?? [];
  const pending = useFrameModelValue(model, "pending") ?? [];
  const streaming = useFrameModelValue(model, STREAMING_KEY) ?? "";

  // The Debug panel (a waterfall and lists over every step) follows a live run a few
  // times a second, not at every frame.
  const panelItems = usePaced(items, PANEL_EVERY_MS);
  // Only cards need the calls' ids: without one, a long transcript's ids are not gathered
  // at every frame.
  const waiting = pending.length > 0;
  const ids = useMemo(() => (waiting ? callIds(items) : NO_IDS), [items, waiting]);
  // A card is drawn at its tool call; the others (another producer's, or one whose call
  // has not arrived yet) below the transcript.
  const placed = useMemo(() => cardsByCall(pending), [pending]);
  const inTranscript = useMemo(
    () => pending.filter((c) => c.kind !== "breakpoint" && ids.has(c.toolCallId ?? "") && placed.get(c.toolCallId ?? "") === c),
    [pending, ids, placed],
  );
  const apart = pending.filter((c) => !inTranscript.includes(c));
  const foreign = useMemo(() => foreignPauses(pending), [pending]);

  return (
    <GoneContext.Provider value={gone}>
      <div class="pp-root">
        <Boundary value={error ?? status} label="header">
          <Header
            status={status}
            runId={runId}
            startedAt={startedAt ?? null}
            pendingCount={pending.filter((c) => c.canResolve !== false).length}
            shownCount={pending.filter((c) => c.canResolve === false).length}
            error={error ?? null}
            meta={meta ?? null}
            items={items}
            gone={gone}
          />
        </Boundary>
        {gone ? <KernelGone model={model} /> : null}
        <Boundary value={items} label="transcript">
          <Transcript items={items} streaming={streaming} pending={inTranscript} foreign={foreign} model={model} readOnly={gone} />
        </Boundary>
        {status === "paused" ? <ModelPause readOnly={gone} /> : null}
        {remoteOf(meta) === null ? (
          <Boundary value={panelItems} label="debug panel">
            <DebugPanel model={model} items={panelItems} readOnly={gone} />
          </Boundary>
        ) : null}
        {apart.length > 0 ? (
          <section class="pp-cards" aria-label="Waiting for your answer">
            {apart.map((card) => (
              <Boundary key={cardKey(card)} value={card} label="card">
                {card.kind === "breakpoint" ? <BreakpointCard card={card} readOnly={gone} /> : <Card card={card} readOnly={gone} />}
              </Boundary>
            ))}
          </section>
        ) : null}
      </div>
    </GoneContext.Provider>
  );
}
