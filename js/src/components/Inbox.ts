import { html } from "htm/preact";
import { useKernelGone } from "../kernel/liveness";
import { refresh } from "../kernel/protocol";
import { useAnswer } from "../kernel/use-answer";
import { cardKey } from "../lib/card-key";
import { useModelValue } from "../lib/hooks";
import { revealText } from "../lib/unicode";
import type { InboxEntry, Model } from "../types";
import { AnswerError } from "./AnswerError";
import { Boundary } from "./Boundary";
import { Card } from "./Card";
import { KernelGone } from "./KernelGone";
import { Revealed } from "./Revealed";
import { When } from "./When";
import "./inbox.css";

function InboxRun({ entry, readOnly }: { entry: InboxEntry; readOnly: boolean }) {
  return html`<section class="pp-inbox-entry" data-testid="pp-inbox-entry" data-run-id=${revealText(entry.runId)}
      aria-label=${revealText(`Run ${entry.runId}`)}>
    <div class="pp-inbox-run">
      <strong class="pp-inbox-title" data-testid="pp-inbox-title"><${Revealed} text=${entry.title || entry.runId} /></strong>
      <span class="pp-muted pp-inbox-about"><code data-testid="pp-inbox-run-id"><${Revealed} text=${entry.runId} /></code>${
        entry.agent ? html` · <span data-testid="pp-inbox-agent"><${Revealed} text=${entry.agent} /></span>` : null
      } · asked <${When} at=${entry.updatedAt} /></span>
    </div>
    ${
      entry.reason
        ? html`<p class=${entry.damaged ? "pp-inbox-reason pp-inbox-damaged" : "pp-inbox-reason"} data-testid="pp-inbox-reason"
          data-damaged=${entry.damaged ? "true" : null} role=${entry.damaged ? "alert" : null}><${Revealed} text=${entry.reason} /></p>`
        : null
    }
    <div class="pp-cards">
      ${entry.cards.map((card) => html`<${Boundary} key=${cardKey(card)} value=${card} label="card"><${Card} card=${card} readOnly=${readOnly} /></${Boundary}>`)}
    </div>
  </section>`;
}

/** Every waiting run of a store, newest first, each with the run view's answerable cards. */
export function Inbox({ model, host }: { model: Model; host?: HTMLElement }) {
  const gone = useKernelGone(model, host);
  const entries = useModelValue(model, "entries") ?? [];
  const refreshedAt = useModelValue(model, "refreshed_at") ?? "";
  const refreshing = useAnswer({ afterOk: "idle" });
  const onRefresh = () => void refreshing.send((kernel) => refresh(kernel));
  const busy = refreshing.phase === "sending";

  return html`<div class="pp-root pp-inbox" data-testid="pp-inbox">
    <header class="pp-header pp-inbox-header">
      <strong>Inbox</strong>
      <span class="pp-muted" data-testid="pp-inbox-count">
        ${entries.length === 0 ? "nothing waiting" : `${entries.length} run${entries.length === 1 ? "" : "s"} waiting`}
      </span>
      <span class="pp-header-right">
        ${refreshedAt ? html`<span class="pp-muted">checked <${When} at=${refreshedAt} /></span>` : null}
        <button type="button" class="pp-button pp-button-quiet" data-testid="pp-inbox-refresh"
          disabled=${gone || refreshing.phase !== "idle" || !refreshing.connected} aria-busy=${busy ? "true" : "false"}
          onClick=${onRefresh}>${busy ? "Refreshing…" : "Refresh"}</button>
      </span>
    </header>
    ${refreshing.error ? html`<${AnswerError} error=${refreshing.error} testid="pp-inbox-error" />` : null}
    ${gone ? html`<${KernelGone} />` : null}
    ${
      entries.length === 0
        ? html`<p class="pp-empty" data-testid="pp-inbox-empty">No run waits on a person.</p>`
        : entries.map((entry) => html`<${InboxRun} key=${entry.runId} entry=${entry} readOnly=${gone} />`)
    }
  </div>`;
}
