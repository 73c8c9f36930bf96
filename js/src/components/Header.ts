import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { fullValue } from "../kernel/protocol";
import { useKernel } from "../kernel/requests";
import { formatDuration, useNow } from "../lib/hooks";
import type { ErrorInfo, Item, RunStatus } from "../types";
import { PREVIEW_KEY } from "./Preview";
import { StopButton } from "./StopButton";

export interface HeaderProps {
  status: RunStatus;
  runId: string;
  startedAt: number | null;
  pendingCount: number;
  error: ErrorInfo | null;
  meta: Record<string, unknown> | null;
  items: Item[];
  /** The view's kernel is gone: the header says what the run was doing, in neutral. */
  gone?: boolean;
}

/** What a run whose kernel went away was doing; its other statuses read as they are. */
function goneLabel(status: RunStatus, error: ErrorInfo | null): string {
  switch (status) {
    case "running":
      return "Was running when its kernel stopped";
    case "interrupted":
      return "Was waiting for an answer when its kernel stopped";
    case "paused":
      return "Was paused before a model request when its kernel stopped";
    default:
      return statusLabel(status, error);
  }
}

function statusLabel(status: RunStatus, error: ErrorInfo | null): string {
  switch (status) {
    case "running":
      return "Running";
    case "interrupted":
      // How many is on the button beside it, which leads to the first card.
      return "Waiting for an answer";
    case "paused":
      return "Paused before the model request";
    case "completed":
      return "Completed";
    case "cancelled":
      return "Cancelled";
    case "failed":
      return error ? `Failed: ${error.name}: ${error.message}` : "Failed";
    default:
      return "Idle";
  }
}

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Denied or unavailable (no secure context): fall through to the selection copy.
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/** Scrolls the view's first answerable card into sight and focuses its first control. */
function goToFirstCard(event: Event) {
  const root = (event.currentTarget as HTMLElement).closest(".pp-root");
  const card = root?.querySelector<HTMLElement>('[data-testid="pp-card"]');
  if (!card) return;
  card.scrollIntoView?.({ block: "center" });
  card.querySelector<HTMLElement>("button:not(:disabled), input:not(:disabled), textarea:not(:disabled), select:not(:disabled)")?.focus();
}

export function Header({ status, runId, startedAt, pendingCount, error, meta, items, gone = false }: HeaderProps) {
  const kernel = useKernel();
  const running = status === "running" && !gone;
  const now = useNow(running && typeof startedAt === "number");
  const [copied, setCopied] = useState<"idle" | "copied" | "failed" | "id" | "id-failed">("idle");
  const resetTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(resetTimer.current), []);

  const copyAndSay = async (what: "copied" | "id", text: string) => {
    const ok = await copyText(text);
    setCopied(ok ? what : what === "id" ? "id-failed" : "failed");
    clearTimeout(resetTimer.current);
    resetTimer.current = setTimeout(() => setCopied("idle"), 2000);
  };

  const onCopy = async () => {
    let text = JSON.stringify({ ...(meta ?? {}), items }, null, 2);
    if (kernel && text.includes(`"${PREVIEW_KEY}"`)) {
      // Large values are previews here: the kernel has the whole transcript.
      const whole = await fullValue(kernel, "prompt/json");
      if (whole.ok) text = JSON.stringify(whole.value, null, 2);
    }
    await copyAndSay("copied", text);
  };

  const elapsed = running && typeof startedAt === "number" ? formatDuration(now - startedAt) : null;
  return html`<header class="pp-header">
    <div class=${`pp-status pp-status-${gone ? "gone" : status}`} data-testid="pp-status" data-status=${status} data-gone=${gone ? "true" : undefined}
      role="status" aria-live="polite">
      ${running ? html`<span class="pp-spinner" aria-hidden="true"></span>` : null}
      <span class="pp-status-label">${gone ? goneLabel(status, error) : statusLabel(status, error)}</span>
      ${elapsed !== null ? html`<span class="pp-elapsed" data-testid="pp-elapsed" aria-hidden="true">${elapsed}</span>` : null}
    </div>
    ${
      pendingCount > 0 && !gone
        ? html`<button type="button" class="pp-button pp-button-quiet pp-pending-jump" data-testid="pp-pending-jump" onClick=${goToFirstCard}>
          ${pendingCount} pending ↓
        </button>`
        : null
    }
    <div class="pp-header-right">
      ${running && kernel ? html`<${StopButton} />` : null}
      <details class="pp-copy-menu" data-testid="pp-copy-menu">
        <summary class="pp-button pp-button-quiet" title=${runId ? `Run ${runId}` : undefined}>Copy</summary>
        <div class="pp-copy-items">
          <button type="button" class="pp-button pp-button-quiet" data-testid="pp-copy-run-id" aria-label=${`Copy the run id ${runId}`}
            onClick=${() => void copyAndSay("id", runId)}>
            ${copied === "id" ? "Copied" : copied === "id-failed" ? "Copy failed" : "Copy the run id"} <code class="pp-run-id" data-testid="pp-run-id">${runId}</code>
          </button>
          <button type="button" class="pp-button pp-button-quiet" data-testid="pp-copy" aria-label="Copy JSON of the prompt" onClick=${onCopy}>
            ${copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy JSON of the prompt"}
          </button>
        </div>
      </details>
    </div>
  </header>`;
}
