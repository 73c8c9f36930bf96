import { html } from "htm/preact";
import { useModelValue } from "../hooks";
import { STREAMING_KEY } from "../state";
import type { ErrorInfo, Item, Model, PendingCard, RunStatus } from "../types";
import { BreakpointCard } from "./BreakpointCard";
import { Card } from "./Card";
import { DebugPanel } from "./DebugPanel";
import { Header } from "./Header";
import { ModelPause } from "./ModelPause";
import { KernelGone } from "./KernelGone";
import { useKernelGone } from "../liveness";
import { Transcript } from "./Transcript";

export function App({ model, host }: { model: Model; host?: HTMLElement }) {
  const gone = useKernelGone(model, host);
  const status = useModelValue<RunStatus>(model, "status") ?? "idle";
  const runId = useModelValue<string>(model, "run_id") ?? "";
  const meta = useModelValue<Record<string, unknown> | null>(model, "meta");
  const error = useModelValue<ErrorInfo | null>(model, "error");
  const startedAt = useModelValue<number | null>(model, "started_at");
  const items = useModelValue<Item[]>(model, "items") ?? [];
  const pending = useModelValue<PendingCard[]>(model, "pending") ?? [];
  const streaming = useModelValue<string | undefined>(model, STREAMING_KEY) ?? "";

  return html`<div class="pp-root">
    <${Header} status=${status} runId=${runId} startedAt=${startedAt ?? null} pendingCount=${pending.length}
      error=${error ?? null} meta=${meta ?? null} items=${items} model=${model} />
    ${gone ? html`<${KernelGone} />` : null}
    <${Transcript} items=${items} streaming=${streaming} />
    ${status === "paused" ? html`<${ModelPause} model=${model} readOnly=${gone} />` : null}
    <${DebugPanel} model=${model} items=${items} readOnly=${gone} />
    ${pending.length > 0
      ? html`<section class="pp-cards" aria-label="Pending interrupts">
          ${pending.map((card) => html`<${card.kind === "breakpoint" ? BreakpointCard : Card} key=${card.id} card=${card} model=${model} readOnly=${gone} />`)}
        </section>`
      : null}
  </div>`;
}
