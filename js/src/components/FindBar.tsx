import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { find, jump } from "../kernel/protocol";
import type { Kernel, Outcome } from "../kernel/requests";
import type { FindFilter, FindStatus, FindValue, JumpTo, JumpValue, Model } from "../types";
import { Revealed } from "./Revealed";
import "./find.css";

/** Steps in one page of results. */
export const PAGE = 50;
/** While the run works, an active filter is asked again at most this often (ms). */
export const LIVE_EVERY_MS = 1000;
/** How long typing may pause before the text is searched for (ms). */
export const TYPING_MS = 300;

/** What the transcript shows in place of its live tail: a filter's results or a jump's page. */
export type Shown = { kind: "filter"; filter: FindFilter; value: FindValue } | { kind: "jump"; to: JumpTo; value: JumpValue };

const STATUSES: readonly [FindStatus, string][] = [
  ["waiting", "Waiting for an answer"],
  ["failed", "Failed"],
  ["cancelled", "Stopped"],
  ["edited", "Edited by a person"],
  ["answered", "Answered by a person"],
];

const count = (n: number) => n.toLocaleString("en-US");

function summary(shown: Shown | null): string {
  if (!shown) return "";
  if (shown.kind === "jump") {
    const { value, to } = shown;
    if (value.target === null) return to === "first-pause" ? "No pause in this run" : "No failure in this run";
    return `Call ${count(value.call ?? 0)} of ${count(value.calls)}`;
  }
  const { total, calls, from, items } = shown.value;
  const page = total > items.length && items.length > 0 ? ` · showing ${count(from + 1)}–${count(from + items.length)}` : "";
  return `${count(total)} of ${count(calls)} calls${page}`;
}

/** Whether the run of `model` works now (false without a model). */
export function useRunning(model: Model | undefined): boolean {
  const [running, setRunning] = useState(() => model?.get("status") === "running");
  useLayoutEffect(() => {
    if (!model) return undefined;
    const onChange = () => setRunning(model.get("status") === "running");
    model.on("change:status", onChange);
    onChange();
    return () => model.off("change:status", onChange);
  }, [model]);
  return running;
}

function isEmpty(filter: FindFilter): boolean {
  return !filter.tool && !filter.status && !filter.text?.trim();
}

interface FindBarProps {
  kernel: Kernel;
  /** The tool names of the run, for the tool select. */
  tools: readonly string[];
  /** The run works: an active filter is asked again as the transcript grows. */
  live: boolean;
  /** Changes whenever the transcript does. */
  version: unknown;
  shown: Shown | null;
  onShow: (shown: Shown | null) => void;
}

/**
 * The find bar above the transcript: filter by tool, status and text, page through what
 * the kernel found, and jump to a call, the first pause or the last failure. The kernel
 * does the finding (`find` requests), so only a page of a long run travels.
 */
export function FindBar({ kernel, tools, live, version, shown, onShow }: FindBarProps) {
  const [tool, setTool] = useState("");
  const [status, setStatus] = useState<FindStatus | "">("");
  const [text, setText] = useState("");
  const [call, setCall] = useState("");
  const [error, setError] = useState<string | null>(null);
  const asked = useRef(0);
  const typing = useRef<ReturnType<typeof setTimeout> | null>(null);
  const again = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef(shown);
  latest.current = shown;

  const answer = async (request: Promise<Outcome>, made: (value: unknown) => Shown) => {
    asked.current += 1;
    const mine = asked.current;
    const outcome = await request;
    if (mine !== asked.current) return; // a later request took its place
    if (!outcome.ok) {
      setError(`${outcome.error.name}: ${outcome.error.message}`);
      return;
    }
    setError(null);
    onShow(made(outcome.value));
  };

  const filterBy = (filter: FindFilter, from = 0) => {
    if (typing.current) clearTimeout(typing.current);
    typing.current = null;
    if (isEmpty(filter)) {
      asked.current += 1;
      setError(null);
      if (latest.current?.kind === "filter") onShow(null);
      return;
    }
    void answer(find(kernel, filter, from, PAGE), (value) => ({ kind: "filter", filter, value: value as FindValue }));
  };

  const jumpTo = (to: JumpTo) => {
    void answer(jump(kernel, to, PAGE), (value) => ({ kind: "jump", to, value: value as JumpValue }));
  };

  const clear = () => {
    if (typing.current) clearTimeout(typing.current);
    asked.current += 1;
    setTool("");
    setStatus("");
    setText("");
    setCall("");
    setError(null);
    onShow(null);
  };

  // While the run works, the filter's results are asked for again now and then.
  useEffect(() => {
    if (!live || shown?.kind !== "filter" || again.current) return;
    again.current = setTimeout(() => {
      again.current = null;
      const now = latest.current;
      if (now?.kind === "filter")
        void answer(find(kernel, now.filter, now.value.from, PAGE), (value) => ({ kind: "filter", filter: now.filter, value: value as FindValue }));
    }, LIVE_EVERY_MS);
  }, [version, live, shown]);

  useEffect(
    () => () => {
      if (typing.current) clearTimeout(typing.current);
      if (again.current) clearTimeout(again.current);
    },
    [],
  );

  const current: FindFilter = { tool, status: status || null, text };
  const paged = shown?.kind === "filter" ? shown.value : null;
  const number = Number.parseInt(call, 10);
  const said = summary(shown);
  const ms = shown ? shown.value.ms : null;

  return (
    <div
      class="pp-find"
      role="search"
      aria-label="Find in the transcript"
      data-testid="pp-find"
      onKeyDown={(e: KeyboardEvent) => {
        if (e.key === "Escape" && (shown || !isEmpty(current))) {
          e.preventDefault();
          clear();
        }
      }}
    >
      <div class="pp-find-row">
        <label class="pp-find-field">
          <span>Tool</span>
          <select
            class="pp-input"
            data-testid="pp-find-tool"
            value={tool}
            onChange={(e: Event) => {
              const value = (e.currentTarget as HTMLSelectElement).value;
              setTool(value);
              filterBy({ ...current, tool: value });
            }}
          >
            <option value="">Any tool</option>
            {tools.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label class="pp-find-field">
          <span>Status</span>
          <select
            class="pp-input"
            data-testid="pp-find-status"
            value={status}
            onChange={(e: Event) => {
              const value = (e.currentTarget as HTMLSelectElement).value as FindStatus | "";
              setStatus(value);
              filterBy({ ...current, status: value || null });
            }}
          >
            <option value="">Any status</option>
            {STATUSES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label class="pp-find-field pp-find-text">
          <span>Text</span>
          <input
            type="search"
            class="pp-input"
            data-testid="pp-find-text"
            value={text}
            maxLength={200}
            placeholder="in arguments, results, messages"
            onInput={(e: Event) => {
              const value = (e.currentTarget as HTMLInputElement).value;
              setText(value);
              if (typing.current) clearTimeout(typing.current);
              typing.current = setTimeout(() => filterBy({ ...current, text: value }), TYPING_MS);
            }}
            onKeyDown={(e: KeyboardEvent) => {
              if (e.key === "Enter") {
                e.preventDefault();
                filterBy({ ...current, text: (e.currentTarget as HTMLInputElement).value });
              }
            }}
          />
        </label>
        <span
          class="pp-find-count"
          data-testid="pp-find-count"
          role="status"
          aria-live="polite"
          data-kernel-ms={ms ?? null}
          title={ms !== null ? `Found by the kernel in ${ms} ms` : ""}
        >
          {said}
        </span>
        <button
          type="button"
          class="pp-button pp-button-quiet"
          data-testid="pp-find-previous"
          aria-label="Previous page of results"
          disabled={!paged || paged.from === 0}
          onClick={() => shown?.kind === "filter" && filterBy(shown.filter, Math.max(0, shown.value.from - PAGE))}
        >
          ‹ Previous
        </button>
        <button
          type="button"
          class="pp-button pp-button-quiet"
          data-testid="pp-find-next"
          aria-label="Next page of results"
          disabled={!paged || paged.from + PAGE >= paged.total}
          onClick={() => shown?.kind === "filter" && filterBy(shown.filter, shown.value.from + PAGE)}
        >
          Next ›
        </button>
        {shown || !isEmpty(current) ? (
          <button type="button" class="pp-button pp-button-quiet" data-testid="pp-find-clear" title="Back to the live transcript (Esc)" onClick={clear}>
            Clear
          </button>
        ) : null}
      </div>
      <div class="pp-find-row">
        <span class="pp-find-label">Jump to</span>
        <label class="pp-find-field">
          <span>Call #</span>
          <input
            type="number"
            min="1"
            step="1"
            inputMode="numeric"
            class="pp-input pp-find-call"
            data-testid="pp-jump-call"
            value={call}
            onInput={(e: Event) => setCall((e.currentTarget as HTMLInputElement).value)}
            onKeyDown={(e: KeyboardEvent) => {
              if (e.key === "Enter" && number > 0) {
                e.preventDefault();
                jumpTo({ call: number });
              }
            }}
          />
        </label>
        <button type="button" class="pp-button pp-button-quiet" data-testid="pp-jump-go" disabled={!(number > 0)} onClick={() => jumpTo({ call: number })}>
          Go
        </button>
        <button type="button" class="pp-button pp-button-quiet" data-testid="pp-jump-first-pause" onClick={() => jumpTo("first-pause")}>
          First pause
        </button>
        <button type="button" class="pp-button pp-button-quiet" data-testid="pp-jump-last-failure" onClick={() => jumpTo("last-failure")}>
          Last failure
        </button>
      </div>
      {error ? (
        <p class="pp-card-error" role="alert" data-testid="pp-find-error">
          <Revealed text={error} />
        </p>
      ) : null}
    </div>
  );
}
