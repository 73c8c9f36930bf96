import { useState } from "preact/hooks";
import { useKernelGone } from "../kernel/liveness";
import { refresh } from "../kernel/protocol";
import { type Answer, useAnswer } from "../kernel/use-answer";
import { cardKey } from "../lib/card-key";
import { useModelValue } from "../lib/hooks";
import { revealText } from "../lib/unicode";
import type { InboxEntry, Model } from "../types";
import { AnswerError } from "./AnswerError";
import { Boundary } from "./Boundary";
import { Card } from "./Card";
import { KernelGone } from "./KernelGone";
import { Revealed } from "./Revealed";
import { TriageList } from "./TriageList";
import { When } from "./When";
import "./inbox.css";

/** How many entries are drawn at first, and added by each "Show more" (the kernel lists as
 * many in full: `WINDOW` in _inbox.py). */
export const INBOX_WINDOW = 50;

function count(n: number): string {
  return n.toLocaleString("en-US");
}

interface InboxRunProps {
  entry: InboxEntry;
  readOnly: boolean;
}

function InboxRun({ entry, readOnly }: InboxRunProps) {
  return (
    <section class="pp-inbox-entry" data-testid="pp-inbox-entry" data-run-id={revealText(entry.runId)} aria-label={revealText(`Run ${entry.runId}`)}>
      <div class="pp-inbox-run">
        <strong class="pp-inbox-title" data-testid="pp-inbox-title">
          <Revealed text={entry.title || entry.runId} />
        </strong>
        <span class="pp-muted pp-inbox-about">
          <code data-testid="pp-inbox-run-id">
            <Revealed text={entry.runId} />
          </code>
          {entry.agent ? (
            <>
              {" "}
              ·{" "}
              <span data-testid="pp-inbox-agent">
                <Revealed text={entry.agent} />
              </span>
            </>
          ) : null}{" "}
          · asked <When at={entry.updatedAt} />
        </span>
      </div>
      {entry.reason ? (
        <p
          class={entry.damaged ? "pp-inbox-reason pp-inbox-damaged" : "pp-inbox-reason"}
          data-testid="pp-inbox-reason"
          data-damaged={entry.damaged ? "true" : null}
          role={entry.damaged ? "alert" : undefined}
        >
          <Revealed text={entry.reason} />
        </p>
      ) : null}
      <div class="pp-cards">
        {entry.cards.map((card) => (
          <Boundary key={cardKey(card)} value={card} label="card">
            <Card card={card} readOnly={readOnly} />
          </Boundary>
        ))}
      </div>
    </section>
  );
}

interface StackProps {
  entries: InboxEntry[];
  shown: InboxEntry[];
  total: number;
  more: number;
  gone: boolean;
  onMore: () => void;
  widening: Answer;
}

interface InboxProps {
  model: Model;
  host?: HTMLElement;
}

/** Every waiting run of a store. With a kernel, a triage list (`TriageList`: compact rows
 * served a page at a time, filters, a sort, bulk answers); once the kernel is gone, the
 * newest runs the kernel last listed, each with its cards, read-only. */
export function Inbox({ model, host }: InboxProps) {
  const gone = useKernelGone(model, host);
  const entries = useModelValue(model, "entries") ?? [];
  const total = Math.max(useModelValue(model, "total") ?? 0, entries.length);
  const refreshedAt = useModelValue(model, "refreshed_at") ?? "";
  const refreshing = useAnswer({ afterOk: "idle" });
  const widening = useAnswer({ afterOk: "idle" });
  const [limit, setLimit] = useState(INBOX_WINDOW);
  const onRefresh = () => void refreshing.send((kernel) => refresh(kernel));
  const busy = refreshing.phase === "sending";
  const shown = entries.slice(0, limit);
  const more = Math.min(INBOX_WINDOW, total - shown.length);
  const onMore = () => {
    const next = shown.length + INBOX_WINDOW;
    setLimit(next);
    // A kernel lists as many runs as it was asked to; a saved page has all it will get.
    if (entries.length < next && entries.length < total && widening.connected && !gone) {
      void widening.send((kernel) => kernel.request({ type: "show", count: next }));
    }
  };
  const error = refreshing.error ?? widening.error;
  const stack = <Stack entries={entries} shown={shown} total={total} more={more} gone={gone} onMore={onMore} widening={widening} />;

  return (
    <div class="pp-root pp-inbox" data-testid="pp-inbox">
      <header class="pp-header pp-inbox-header">
        <strong>Inbox</strong>
        <span class="pp-muted" data-testid="pp-inbox-count">
          {total === 0 ? "nothing waiting" : `${count(total)} run${total === 1 ? "" : "s"} waiting`}
        </span>
        <span class="pp-header-right">
          {refreshedAt ? (
            <span class="pp-muted">
              checked <When at={refreshedAt} />
            </span>
          ) : null}
          <button
            type="button"
            class="pp-button pp-button-quiet"
            data-testid="pp-inbox-refresh"
            disabled={gone || refreshing.phase !== "idle" || !refreshing.connected}
            aria-busy={busy ? "true" : "false"}
            onClick={onRefresh}
          >
            {busy ? "Refreshing…" : "Refresh"}
          </button>
        </span>
      </header>
      {error ? <AnswerError error={error} testid="pp-inbox-error" /> : null}
      {gone ? <KernelGone model={model} /> : null}
      {gone ? stack : <TriageList model={model} overall={total} readOnly={gone} />}
    </div>
  );
}

function Stack({ entries, shown, total, more, gone, onMore, widening }: StackProps) {
  return (
    <>
      {entries.length === 0 ? (
        <p class="pp-empty" data-testid="pp-inbox-empty">
          No run waits on a person.
        </p>
      ) : (
        shown.map((entry) => <InboxRun key={entry.runId} entry={entry} readOnly={gone} />)
      )}
      {more > 0 ? (
        <p class="pp-inbox-more">
          <span class="pp-muted" data-testid="pp-inbox-shown">
            Showing {count(shown.length)} of {count(total)}
          </span>
          <button
            type="button"
            class="pp-button pp-button-quiet"
            data-testid="pp-inbox-more"
            disabled={widening.phase === "sending"}
            aria-busy={widening.phase === "sending" ? "true" : "false"}
            onClick={onMore}
          >
            {widening.phase === "sending" ? "Loading…" : `Show ${count(more)} more`}
          </button>
        </p>
      ) : null}
    </>
  );
}
