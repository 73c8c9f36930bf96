import { useKernel } from "../kernel/requests";
import { formatDuration, useNow } from "../lib/hooks";
import { hostedOf, hostOf, remoteOf } from "../lib/remote";
import { revealText } from "../lib/unicode";
import type { ErrorInfo, Item, RunStatus } from "../types";
import { CopyMenu } from "./CopyMenu";
import { Revealed } from "./Revealed";
import { StopButton } from "./StopButton";

export interface HeaderProps {
  status: RunStatus;
  runId: string;
  startedAt: number | null;
  pendingCount: number;
  /** Pauses shown but not answerable here (another producer's). */
  shownCount?: number;
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
      return "Stopped";
    case "failed":
      return error ? `Failed: ${error.name}: ${error.message}` : "Failed";
    default:
      return "Idle";
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

export function Header({ status, runId, startedAt, pendingCount, shownCount = 0, error, meta, items, gone = false }: HeaderProps) {
  const kernel = useKernel();
  const running = status === "running" && !gone;
  const now = useNow(running && typeof startedAt === "number");
  const elapsed = running && typeof startedAt === "number" ? formatDuration(now - startedAt) : null;
  // A failure's message can be long: a few lines of it here, all of it on hover and in the failed call.
  const label = gone ? goneLabel(status, error) : statusLabel(status, error);
  const remote = remoteOf(meta);
  const hosted = hostedOf(meta);
  return (
    <header class="pp-header">
      <div
        class={`pp-status pp-status-${gone ? "gone" : status}`}
        data-testid="pp-status"
        data-status={status}
        data-gone={gone ? "true" : undefined}
        role="status"
        aria-live="polite"
      >
        {running ? <span class="pp-spinner" aria-hidden="true" /> : null}
        <span class="pp-status-label" data-testid="pp-status-label" title={status === "failed" ? revealText(label) : undefined}>
          <Revealed text={label} />
        </span>
        {elapsed !== null ? (
          <span class="pp-elapsed" data-testid="pp-elapsed" aria-hidden="true">
            {elapsed}
          </span>
        ) : null}
      </div>
      {pendingCount > 0 && !gone ? (
        <button type="button" class="pp-button pp-button-quiet pp-pending-jump" data-testid="pp-pending-jump" onClick={goToFirstCard}>
          {pendingCount === 1 ? "1 waits for you" : `${pendingCount.toLocaleString("en-US")} wait for you`} ↓
        </button>
      ) : shownCount > 0 && !gone ? (
        <button type="button" class="pp-button pp-button-quiet pp-pending-jump" data-testid="pp-pending-jump" onClick={goToFirstCard}>
          {shownCount === 1 ? "1 pause is shown, not answerable here" : `${shownCount.toLocaleString("en-US")} pauses are shown, not answerable here`} ↓
        </button>
      ) : null}
      {hosted !== null ? (
        <span
          class="pp-muted pp-remote"
          data-testid="pp-remote"
          data-hosted="true"
          title={`Executed by ${hosted} in this kernel: its pauses are answered here; there is no debugger, fork or Retry for it.`}
        >
          {hosted} agent in this kernel
        </span>
      ) : remote !== null ? (
        <span class="pp-muted pp-remote" data-testid="pp-remote" title={remote}>
          served at {hostOf(remote)}
        </span>
      ) : null}
      <div class="pp-header-right">
        {running && kernel ? <StopButton /> : null}
        <CopyMenu runId={runId} meta={meta} items={items} />
      </div>
    </header>
  );
}
