import { html } from "htm/preact";
import { formatTime } from "../hooks";
import type { InterruptEntry, ToolItem } from "../types";
import { JsonBlock } from "./JsonBlock";

const STATUS_TEXT: Record<string, string> = {
  pending: "pending",
  running: "running",
  interrupted: "waiting for you",
  succeeded: "succeeded",
  failed: "failed",
  rejected: "rejected",
  cancelled: "cancelled",
};

function Resolution({ entry }: { entry: InterruptEntry }) {
  const r = entry.resolution;
  if (!r) return html`<p class="pp-resolution pp-resolution-pending" data-testid="pp-resolution" data-type="pending">Waiting for an answer</p>`;
  const at = r.at ? ` at ${formatTime(r.at)}` : "";
  if (r.type === "reject") {
    const error = r.error ? `${r.error.name}: ${r.error.message}` : "no reason given";
    return html`<div class="pp-resolution pp-resolution-reject" data-testid="pp-resolution" data-type="reject">
      <p>Rejected${at}: ${error}</p>
    </div>`;
  }
  return html`<div class="pp-resolution pp-resolution-resume" data-testid="pp-resolution" data-type="resume">
    <p>Resumed${at}</p>
    <${JsonBlock} label="Resume data" value=${r.data ?? null} />
  </div>`;
}

function HistoryEntry({ entry, index }: { entry: InterruptEntry; index: number }) {
  return html`<li class="pp-history-entry" data-testid="pp-interrupt-entry" data-interrupt-id=${entry.id}>
    <div class="pp-history-head">
      <span class="pp-badge">${entry.kind}</span>
      <span class="pp-history-index">#${index + 1}</span>
      ${entry.created_at ? html`<span class="pp-muted">${formatTime(entry.created_at)}</span>` : null}
    </div>
    <p class="pp-history-message">${entry.message}</p>
    ${entry.data !== null && entry.data !== undefined ? html`<${JsonBlock} label="Data" value=${entry.data} />` : null}
    ${entry.state !== null && entry.state !== undefined ? html`<${JsonBlock} label="Checkpoint (state)" value=${entry.state} />` : null}
    <${Resolution} entry=${entry} />
  </li>`;
}

export function ToolCall({ call }: { call: ToolItem }) {
  const interrupts = call.interrupts ?? [];
  const open = call.status === "interrupted";
  return html`<details class=${`pp-item pp-tool pp-tool-${call.status}`} data-testid="pp-tool-call" data-type="tool" data-status=${call.status} data-name=${call.name} data-tool-call-id=${call.id} open=${open}>
    <summary class="pp-tool-summary">
      <span class="pp-tool-icon" aria-hidden="true">⚙</span>
      <code class="pp-tool-name">${call.name}</code>
      <span class=${`pp-badge pp-badge-${call.status}`} data-testid="pp-tool-status">${STATUS_TEXT[call.status] ?? call.status}</span>
      ${interrupts.length > 0 ? html`<span class="pp-muted">${interrupts.length} ${interrupts.length === 1 ? "interrupt" : "interrupts"}</span>` : null}
    </summary>
    <div class="pp-tool-body">
      <${JsonBlock} label="Input" value=${call.input} testid="pp-tool-input" />
      ${call.status === "succeeded" || (call.result !== undefined && call.result !== null)
        ? html`<${JsonBlock} label="Result" value=${call.result ?? null} testid="pp-tool-result" />`
        : null}
      ${call.error
        ? html`<div class="pp-block pp-tool-error" data-testid="pp-tool-error">
            <div class="pp-block-label">Error</div>
            <p><strong>${call.error.name}</strong>: ${call.error.message}</p>
          </div>`
        : null}
      ${interrupts.length > 0
        ? html`<div class="pp-block">
            <div class="pp-block-label">Interrupt history</div>
            <ol class="pp-history">${interrupts.map((entry, i) => html`<${HistoryEntry} key=${entry.id} entry=${entry} index=${i} />`)}</ol>
          </div>`
        : null}
    </div>
  </details>`;
}
