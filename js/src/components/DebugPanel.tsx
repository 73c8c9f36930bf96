import type { VNode } from "preact";
import { useMemo, useState } from "preact/hooks";
import { type ForkAt, fork, modelRequest, showFork } from "../kernel/protocol";
import { type Kernel, useKernel } from "../kernel/requests";
import { type Decision, decisionsOf, decisionWords } from "../lib/answers";
import { useModelValue } from "../lib/hooks";
import { kindTitle } from "../lib/labels";
import { memo } from "../lib/memo";
import { stepsOf } from "../lib/past";
import { revealText } from "../lib/unicode";
import type { AssistantItem, ForkInfo, InterruptEntry, Item, Json, Model, ResponseError, ToolItem } from "../types";
import { Branches, STATUS_WORDS } from "./Branches";
import { ForkView } from "./ForkView";
import { JsonBlock } from "./JsonBlock";
import { Revealed } from "./Revealed";
import { Scrubber } from "./Scrubber";
import { Timeline } from "./Timeline";
import { When } from "./When";

/** Rows a list of the panel draws at first, and one press of "Show more" adds. */
export const LIST_ROWS = 20;

/** The last `shown` of `rows`, after a button for the earlier ones. */
function tail<T>(rows: T[], shown: number, more: () => void, what: string): { rows: T[]; button: VNode | null } {
  const hidden = Math.max(0, rows.length - shown);
  if (hidden === 0) return { rows, button: null };
  return {
    rows: rows.slice(hidden),
    button: (
      <button type="button" class="pp-button pp-button-quiet" data-testid="pp-debug-more" onClick={more}>
        Show {Math.min(hidden, LIST_ROWS * 10).toLocaleString("en-US")} earlier {what} (of {hidden.toLocaleString("en-US")})
      </button>
    ),
  };
}

function seconds(start?: string | null, end?: string | null): string | null {
  if (!start || !end) return null;
  const ms = Date.parse(end) - Date.parse(start);
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(3)} s` : null;
}

const PAUSE_WORDS: Record<string, string> = {
  "tool-approval": "Approval of",
  breakpoint: "Breakpoint before",
};

/** "Approval of `refund`", "Question from `survey`", "Breakpoint before `lookup`": a
 * pause, named by its action. */
function pauseTitle(kind: string, tool: string, lower = false) {
  const words = PAUSE_WORDS[kind] ?? `${kindTitle(kind)} from`;
  return (
    <>
      {lower ? words.toLowerCase() : words}{" "}
      <code>
        <Revealed text={tool} />
      </code>
    </>
  );
}

/** The pause a fork starts from, found in this run's transcript. */
function forkPoint(items: readonly Item[], interruptId: string | null): { entry: InterruptEntry; tool: ToolItem } | null {
  if (!interruptId) return null;
  for (const item of items) {
    if (item.type !== "tool") continue;
    const entry = (item.interrupts ?? []).find((e) => e.id === interruptId);
    if (entry) return { entry, tool: item };
  }
  return null;
}

/** The model turns, numbered from 0. */
function turnsOf(items: readonly Item[]): { item: AssistantItem; turn: number }[] {
  const turns: { item: AssistantItem; turn: number }[] = [];
  for (const item of items) if (item.type === "assistant") turns.push({ item, turn: turns.length });
  return turns;
}

interface Answered {
  tool: ToolItem;
  entry: InterruptEntry;
  decision: Decision | null;
}

/** Each tool call's answered pauses, kept while its object lives (a live run redraws the
 * panel many times a second, and most calls do not change between two frames). */
const answeredByItem = new WeakMap<ToolItem, Answered[]>();

function answersAt(item: Item): Answered[] {
  if (item.type !== "tool" || !item.interrupts?.length) return [];
  let answers = answeredByItem.get(item);
  if (!answers) {
    const decisions = decisionsOf(item);
    answers = item.interrupts.flatMap((entry, i) => (entry.resolution ? [{ tool: item, entry, decision: decisions[i] ?? null }] : []));
    answeredByItem.set(item, answers);
  }
  return answers;
}

/** A fork's name in the list: what made it, or (from an older kernel) where it began. */
function forkLabel(f: ForkInfo, i: number, items: readonly Item[]) {
  if (f.name)
    return (
      <strong class="pp-fork-name" data-testid="pp-fork-name" title={revealText(`Run ${f.runId}`)}>
        <Revealed text={f.name} />
      </strong>
    );
  const point = forkPoint(items, f.interruptId);
  return (
    <>
      Fork {i}
      {point ? <>, at the {pauseTitle(point.entry.kind, point.tool.name, true)}</> : null}
    </>
  );
}

interface DebugPanelProps {
  model: Model;
  items: Item[];
  readOnly?: boolean;
}

/** Debugging tools under the transcript: a timeline and a slider back through the run's
 * steps, each model turn's request on demand (with its model, time and usage), "Fork
 * here" at every answer given, "Go back here" at every step and turn, and this run's
 * forks, named by what made them, each comparable side by side and shown in place as its
 * own live view. */
export const DebugPanel = memo(function DebugPanelImpl({ model, items, readOnly = false }: DebugPanelProps) {
  const kernel = useKernel();
  const forks = useModelValue(model, "forks") ?? [];
  const forkRef = useModelValue(model, "fork_view") ?? null;
  const [shown, setShown] = useState<{ turn: number; value: Json } | null>(null);
  const [error, setError] = useState<ResponseError | null>(null);
  const [busy, setBusy] = useState(false);
  const [at, setAt] = useState<number | null>(null);
  const [comparing, setComparing] = useState<string | null>(null);
  const [turnRows, setTurnRows] = useState(LIST_ROWS);
  const [answeredRows, setAnsweredRows] = useState(LIST_ROWS);
  // Drawn only while open: a long run has a row and a timeline bar per step.
  const [open, setOpen] = useState(false);
  const steps = useMemo(() => (open ? stepsOf(items) : []), [open, items]);
  const allTurns = useMemo(() => (open ? turnsOf(items) : []), [open, items]);
  const allAnswered = useMemo(() => (open ? items.flatMap(answersAt) : []), [open, items]);
  const shownFork = forks.find((f) => f.open);
  const openFork = forkRef ? (
    <ForkView
      key={forkRef}
      refId={forkRef}
      name={shownFork?.name ?? "A fork of this run"}
      manager={model.widget_manager}
      onClose={readOnly || !kernel ? undefined : () => void showFork(kernel, null)}
    />
  ) : null;
  if (!open) {
    if (!items.some((item) => item.type === "assistant") && forks.length === 0) return openFork;
    return (
      <>
        <details class="pp-debug" data-testid="pp-debug" onToggle={(e: Event) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
          <summary>Debug</summary>
        </details>
        {openFork}
      </>
    );
  }

  // A long run has a turn per model request: the lists show their last rows.
  const turns = tail(allTurns, turnRows, () => setTurnRows(turnRows + LIST_ROWS * 10), "turns");
  const answered = tail(allAnswered, answeredRows, () => setAnsweredRows(answeredRows + LIST_ROWS * 10), "answers");

  const ask = async (send: (kernel: Kernel) => ReturnType<typeof modelRequest>, onValue: (value: Json) => void) => {
    if (busy || readOnly || !kernel) return;
    setBusy(true);
    setError(null);
    const outcome = await send(kernel);
    setBusy(false);
    if (outcome.ok) onValue(outcome.value ?? null);
    else setError(outcome.error);
  };

  const goBack = (at: ForkAt) =>
    ask(
      (k) => fork(k, at, true),
      () => undefined,
    );

  return (
    <>
      <details class="pp-debug" data-testid="pp-debug" open onToggle={(e: Event) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>Debug</summary>
        <Timeline steps={steps} current={at} items={items} onPick={setAt} />
        <Scrubber items={items} steps={steps} at={at} onMove={setAt} onGoBack={readOnly ? undefined : goBack} busy={busy} />
        {turns.button}
        <ol class="pp-debug-turns" start={turns.rows[0] ? turns.rows[0].turn + 1 : 1}>
          {turns.rows.map(({ item, turn }) => {
            const call = item.type === "assistant" ? item.call : null;
            const usage = call?.usage
              ? Object.entries(call.usage)
                  .map(([k, v]) => `${k} ${v}`)
                  .join(", ")
              : null;
            return (
              <li data-testid="pp-debug-turn" data-turn={turn}>
                Turn {turn + 1}
                {call ? (
                  <>
                    {" "}
                    ·{" "}
                    <code class="pp-debug-model" data-testid="pp-debug-model">
                      <Revealed text={String(call.model ?? "")} />
                    </code>{" "}
                    · {seconds(call.started_at, call.ended_at) ?? ""}
                    {usage ? (
                      <>
                        {" "}
                        ·{" "}
                        <span data-testid="pp-debug-usage">
                          <Revealed text={usage} />
                        </span>
                      </>
                    ) : null}
                    {call.finish_reason ? (
                      <>
                        {" "}
                        ·{" "}
                        <span data-testid="pp-debug-finish">
                          <Revealed text={String(call.finish_reason)} />
                        </span>
                      </>
                    ) : null}
                  </>
                ) : null}
                <button
                  type="button"
                  class="pp-button pp-button-quiet"
                  data-testid="pp-show-request"
                  disabled={busy || readOnly}
                  onClick={() =>
                    ask(
                      (k) => modelRequest(k, turn),
                      (value) => setShown({ turn, value }),
                    )
                  }
                >
                  Show model request
                </button>
                <button
                  type="button"
                  class="pp-button pp-button-quiet"
                  data-testid="pp-go-back-turn"
                  disabled={busy || readOnly}
                  title="A new run from just before this turn, shown below: edit the message or a result, then ask the model again"
                  onClick={() => goBack({ turn })}
                >
                  Go back here
                </button>
              </li>
            );
          })}
        </ol>
        {shown ? (
          <div data-testid="pp-model-request">
            <JsonBlock label={`Model request, turn ${shown.turn + 1}`} value={shown.value} />
          </div>
        ) : null}
        {answered.rows.length > 0 ? (
          <>
            <div class="pp-block-label">What you answered</div>
            {answered.button}
            <ul class="pp-debug-answered" aria-label="What you answered">
              {answered.rows.map(({ tool, entry, decision }) => (
                <li data-testid="pp-answered" data-interrupt-id={revealText(entry.id)} data-kind={entry.kind} data-decision={decision?.kind ?? ""}>
                  {pauseTitle(entry.kind, tool.name)}: <Revealed text={decision ? decisionWords(decision) : "Answered"} />
                  {entry.resolution?.at ? (
                    <>
                      {" "}
                      · <When at={entry.resolution.at} />
                    </>
                  ) : null}
                  <button
                    type="button"
                    class="pp-button pp-button-quiet"
                    data-testid="pp-fork-here"
                    disabled={busy || readOnly}
                    title="A new run from this moment, to answer it another way"
                    onClick={() =>
                      ask(
                        (k) => fork(k, entry.id),
                        () => undefined,
                      )
                    }
                  >
                    Fork here
                  </button>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {forks.length > 0 ? (
          <div class="pp-debug-forks" data-testid="pp-forks">
            <div class="pp-block-label">Forks</div>
            <ul aria-label="Forks">
              {forks.map((f, i) => {
                const open = comparing === f.runId;
                return (
                  <li data-testid="pp-fork" data-run-id={revealText(f.runId)} data-status={revealText(f.status)}>
                    {forkLabel(f, i, items)} · <Revealed text={STATUS_WORDS[f.status] ?? f.status} /> ·{" "}
                    <span class="pp-muted">
                      in code:{" "}
                      <code data-testid="pp-fork-code" title={revealText(`Run ${f.runId}`)}>
                        <Revealed text={f.code ?? `run.forks[${i}]`} />
                      </code>
                    </span>
                    <button
                      type="button"
                      class="pp-button pp-button-quiet"
                      data-testid="pp-fork-open"
                      disabled={busy || readOnly}
                      aria-pressed={f.open ? "true" : "false"}
                      onClick={() =>
                        ask(
                          (k) => showFork(k, f.open ? null : f.runId),
                          () => undefined,
                        )
                      }
                    >
                      {f.open ? "Close" : "Open here"}
                    </button>
                    <button
                      type="button"
                      class="pp-button pp-button-quiet"
                      data-testid="pp-compare"
                      aria-expanded={open ? "true" : "false"}
                      onClick={() => setComparing(open ? null : f.runId)}
                    >
                      {open ? "Hide comparison" : "Compare"}
                    </button>
                    {open ? <Branches fork={f} index={i} items={items} readOnly={readOnly} /> : null}
                  </li>
                );
              })}
            </ul>
          </div>
        ) : null}
        {error ? (
          <div class="pp-card-error" role="alert" data-testid="pp-card-error">
            <strong>
              <Revealed text={error.name} />:
            </strong>{" "}
            <Revealed text={error.message} />
          </div>
        ) : null}
      </details>
      {openFork}
    </>
  );
});
