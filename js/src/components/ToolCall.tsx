import { useMemo, useState } from "preact/hooks";
import type { Outcome } from "../kernel/protocol";
import { type Decision, decisionsOf, decisionWords, effectiveInput, runsAction, shownStatus } from "../lib/answers";
import { useGone } from "../lib/gone";
import { sameJson } from "../lib/json";
import { keyArguments, kindTitle } from "../lib/labels";
import { revealText } from "../lib/unicode";
import type { InterruptEntry, ToolItem, ToolStatus } from "../types";
import { JsonBlock } from "./JsonBlock";
import { TextOrPreview } from "./Preview";
import { callHasHidden, HiddenWarning, Revealed } from "./Revealed";
import { When } from "./When";

/** Statuses a live kernel can still move; once it is gone they are told in the past, in
 * neutral, as the header tells the run's. */
const MOVING: ReadonlySet<ToolStatus> = new Set(["pending", "running", "interrupted"]);

interface ResolutionProps {
  entry: InterruptEntry;
  decision: Decision | null;
}

function Resolution({ entry, decision }: ResolutionProps) {
  const gone = useGone();
  if (!decision && gone) {
    return (
      <p class="pp-resolution pp-muted" data-testid="pp-resolution" data-type="pending" data-gone="true">
        Was waiting for an answer when its kernel stopped
      </p>
    );
  }
  if (!decision)
    return (
      <p class="pp-resolution pp-resolution-pending" data-testid="pp-resolution" data-type="pending">
        Waiting for an answer
      </p>
    );
  const type = entry.resolution?.type ?? "resume";
  const tone = runsAction(decision) ? "resume" : "reject";
  return (
    <div class={`pp-resolution pp-resolution-${tone}`} data-testid="pp-resolution" data-type={type} data-decision={decision.kind}>
      <p>
        <Revealed text={decisionWords(decision)} />
        {decision.at ? (
          <>
            {" "}
            <span class="pp-muted">
              · <When at={decision.at} />
            </span>
          </>
        ) : null}
      </p>
      {decision.kind === "answered" && decision.value !== null && decision.value !== undefined ? <JsonBlock label="Answer" value={decision.value} /> : null}
    </div>
  );
}

/** An approval's data that only repeats the call's tool name and arguments, which the
 * row shows already. */
function repeatsCall(entry: InterruptEntry, call: ToolItem): boolean {
  const data = entry.data;
  if (entry.kind !== "tool-approval" || !data || typeof data !== "object" || Array.isArray(data)) return false;
  const keys = Object.keys(data);
  if (!keys.every((key) => key === "toolName" || key === "args")) return false;
  if (keys.includes("toolName") && data.toolName !== call.name) return false;
  return !keys.includes("args") || sameJson(data.args, call.input);
}

interface HistoryEntryProps {
  entry: InterruptEntry;
  index: number;
  decision: Decision | null;
  call: ToolItem;
}

function HistoryEntry({ entry, index, decision, call }: HistoryEntryProps) {
  const data = entry.data !== null && entry.data !== undefined && !repeatsCall(entry, call) ? entry.data : null;
  return (
    <li class="pp-history-entry" data-testid="pp-interrupt-entry" data-interrupt-id={revealText(entry.id)}>
      <div class="pp-history-head">
        <span class="pp-badge">{kindTitle(entry.kind)}</span>
        {index > 0 ? <span class="pp-history-index">#{index + 1}</span> : null}
        {entry.created_at ? (
          <span class="pp-muted">
            <When at={entry.created_at} />
          </span>
        ) : null}
      </div>
      <p class="pp-history-message">
        <Revealed text={entry.message} />
      </p>
      {data !== null ? <JsonBlock label="Data" value={data} /> : null}
      {entry.state !== null && entry.state !== undefined ? <JsonBlock label="Checkpoint (state)" value={entry.state} /> : null}
      <Resolution entry={entry} decision={decision} />
    </li>
  );
}

interface InputProps {
  call: ToolItem;
}

/** The input the action ran (or will run) with, as the kernel's `effective_input` reads it:
 * the last arguments a person edited, at an approval or a breakpoint, else the model's. */
function Input({ call }: InputProps) {
  const edited = effectiveInput(call);
  if (edited === null || edited === call.input) return <JsonBlock label="Input" value={call.input} testid="pp-tool-input" />;
  return (
    <>
      <JsonBlock label="Input (edited by a person)" value={edited} testid="pp-tool-input" />
      <details class="pp-original" data-testid="pp-original-input">
        <summary>The model's original input</summary>
        <JsonBlock label="Original input" value={call.input} />
      </details>
    </>
  );
}

interface BodyProps {
  call: ToolItem;
  hasCard: boolean;
  hidden: boolean;
}

function Body({ call, hasCard, hidden }: BodyProps) {
  // What a card below shows already (the message, the arguments) is not repeated here.
  const decisions = decisionsOf(call);
  const interrupts = (call.interrupts ?? [])
    .map((entry, i) => ({ entry, decision: decisions[i] ?? null }))
    .filter(({ entry }) => !(hasCard && entry.resolution === null));
  return (
    <div class="pp-tool-body">
      {hidden ? <HiddenWarning what="call" /> : null}
      <Input call={call} />
      {call.status === "succeeded" || (call.result !== undefined && call.result !== null) ? (
        <JsonBlock label="Result" value={call.result ?? null} testid="pp-tool-result" />
      ) : null}
      {call.error ? (
        <div class="pp-block pp-tool-error" data-testid="pp-tool-error">
          <div class="pp-block-label">Error</div>
          <p>
            <strong>
              <Revealed text={call.error.name} />
            </strong>
            : <TextOrPreview value={call.error.message} />
          </p>
        </div>
      ) : null}
      {interrupts.length > 0 ? (
        <div class="pp-block">
          <div class="pp-block-label">What you were asked</div>
          <ol class="pp-history">
            {interrupts.map(({ entry, decision }, i) => (
              <HistoryEntry key={entry.id} entry={entry} index={i} decision={decision} call={call} />
            ))}
          </ol>
        </div>
      ) : null}
    </div>
  );
}

interface ToolCallProps {
  call: ToolItem;
  hasCard?: boolean;
  /** A pause this view cannot answer (another producer's, shown read-only) waits on the
   * call: it reads "waiting", not the "running" its producer left it at. */
  foreignPause?: boolean;
  /** Makes a fork paused before this call runs again (absent: read-only). */
  onGoBack?: ((callId: string) => Promise<Outcome>) | null;
  /** Whether a person opened (true) or closed (false) the row, kept by the transcript so
   * that it outlives this row's component (null: neither, the row decides). */
  toggled?: boolean | null;
  /** With `toggled`: where the row tells of a person opening or closing it. */
  onToggle?: ((callId: string, open: boolean) => void) | null;
  pinned?: boolean;
  /** Pins the row to the top of the transcript, or unpins it (absent: no pin button). */
  onPin?: ((callId: string) => void) | null;
}

/**
 * One tool call, collapsed to its summary line unless it waits for an answer that no card
 * below shows, or failed; the details are drawn only while open.
 */
export function ToolCall({
  call,
  hasCard = false,
  onGoBack = null,
  toggled: kept,
  onToggle = null,
  pinned = false,
  onPin = null,
  foreignPause = false,
}: ToolCallProps) {
  const [own, setOwn] = useState<boolean | null>(null);
  const toggled = onToggle ? (kept ?? null) : own;
  const setToggled = (open: boolean) => (onToggle ? onToggle(call.id, open) : setOwn(open));
  const [going, setGoing] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  const open = toggled ?? ((call.status === "interrupted" && !hasCard) || call.status === "failed" || (call.status === "cancelled" && !!call.error));
  // The arguments the call runs with: a person's edits, not the model's first ask.
  const args = keyArguments(effectiveInput(call));
  const hidden = useMemo(() => callHasHidden(call), [call]);
  const stopped = useGone() && MOVING.has(call.status);
  const waits = foreignPause && (call.status === "running" || call.status === "pending");
  const status = waits ? "waiting" : shownStatus(call);
  return (
    <details
      class={`pp-item pp-tool pp-tool-${call.status}`}
      data-testid="pp-tool-call"
      data-type="tool"
      data-status={call.status}
      data-name={revealText(call.name)}
      data-tool-call-id={revealText(call.id)}
      open={open}
    >
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a summary is the details element's own control */}
      <summary
        class="pp-tool-summary"
        onClick={(e: Event) => {
          e.preventDefault();
          setToggled(!open);
        }}
      >
        <span class="pp-disclosure" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
        <code class="pp-tool-name" title={revealText(call.name)}>
          <Revealed text={call.name} />
        </code>
        {args ? (
          <span class="pp-tool-args" data-testid="pp-tool-args" title={revealText(args)}>
            · <Revealed text={args} />
          </span>
        ) : null}
        {stopped ? (
          <span class="pp-badge pp-badge-gone" data-testid="pp-tool-status" data-gone="true" title="When its kernel stopped">
            was {status}
          </span>
        ) : (
          <span
            class={`pp-badge pp-badge-${waits ? "interrupted" : call.status}`}
            data-testid="pp-tool-status"
            title={waits ? "A pause of the agent's own waits on this call; it is answered where the agent runs" : ""}
          >
            {status}
          </span>
        )}
        {hidden ? (
          <span class="pp-badge pp-badge-hidden" data-testid="pp-hidden-badge" title="Hidden or direction-changing characters, shown as markers">
            hidden characters
          </span>
        ) : null}
        {onPin ? (
          <button
            type="button"
            class={`pp-button pp-button-quiet pp-pin${pinned ? " pp-pin-on" : ""}`}
            data-testid="pp-pin"
            aria-pressed={pinned ? "true" : "false"}
            aria-label={`${pinned ? "Unpin" : "Pin"} ${revealText(call.name)}`}
            title={pinned ? "Unpin: take it off the Pinned strip" : "Pin: keep it at the top of the transcript while the run goes on"}
            onClick={(e: Event) => {
              e.preventDefault();
              e.stopPropagation();
              onPin(call.id);
            }}
          >
            {pinned ? "Pinned" : "Pin"}
          </button>
        ) : null}
        {onGoBack && call.status !== "pending" ? (
          <button
            type="button"
            class="pp-button pp-button-quiet pp-go-back"
            data-testid="pp-go-back-call"
            disabled={going}
            title="A new run from just before this call, shown below: edit its arguments, then run it again"
            onClick={async (e: Event) => {
              e.preventDefault();
              e.stopPropagation();
              setGoing(true);
              const outcome = await onGoBack(call.id);
              setGoing(false);
              setRefused(outcome.ok ? null : `${outcome.error.name}: ${outcome.error.message}`);
            }}
          >
            Go back here
          </button>
        ) : null}
        {refused ? (
          <span class="pp-card-error" role="alert" data-testid="pp-go-back-error">
            <Revealed text={refused} />
          </span>
        ) : null}
      </summary>
      {open ? <Body call={call} hasCard={hasCard} hidden={hidden} /> : null}
    </details>
  );
}
