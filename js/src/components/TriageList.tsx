import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { answerRuns, ignoreRun, listRuns, openRun } from "../kernel/protocol";
import { type Kernel, useKernel } from "../kernel/requests";
import { cardKey } from "../lib/card-key";
import { useModelValue, useUniqueId } from "../lib/hooks";
import { memo } from "../lib/memo";
import {
  argumentsLine,
  type BulkAction,
  confirmation,
  countText,
  listHeight,
  type Opened,
  PAGE_ROWS,
  pagesFor,
  ROW_HEIGHT,
  rangeOf,
  rowAt,
  rowTop,
  sortChoices,
  visibleRows,
} from "../lib/triage";
import { revealText } from "../lib/unicode";
import type { BulkProgress, Model, OpenedRun, ResponseError, TriageFilter, TriagePage, TriageRow } from "../types";
import { AnswerError } from "./AnswerError";
import { Boundary } from "./Boundary";
import { Card } from "./Card";
import { Revealed } from "./Revealed";
import { When } from "./When";
import "./triage.css";

/** Rows are drawn in this many reused places (keyed by index modulo it): a scroll changes
 * their texts and positions instead of removing and adding elements, which a page as large
 * as JupyterLab's would style afresh. More than a window holds. */
const SLOTS = 128;
/** How long typing may pause before the text is searched for (ms). */
export const TYPING_MS = 300;
/** The list's window height (px): rows beyond it scroll. */
export const WINDOW_HEIGHT = 432;

const count = countText;
const STATUSES: [string, string][] = [
  ["waiting", "Waiting"],
  ["failed", "Failed"],
  ["stopped", "Stopped"],
];
const ROLES = new Set(["user", "assistant", "tool"]);
const DONE_WORDS = { approve: "Approved", decline: "Declined", respond: "Responded to" } as const;

interface Listed {
  /** Rows by their index in the whole list. */
  rows: Map<number, TriageRow>;
  pages: Set<number>;
  total: number;
  agents: [string, number][];
  kinds: [string, number][];
  keys: string[];
}

const EMPTY: Listed = { rows: new Map(), pages: new Set(), total: 0, agents: [], kinds: [], keys: [] };

/** Asks the kernel for pages of the list: the ones the window needs, again whenever the
 * filter, the sort or the store change. Only the newest question's answers are kept. */
function useListing(kernel: Kernel | null, filter: TriageFilter, sort: string, version: string, window: [number, number]) {
  const [listed, setListed] = useState<{ key: string; value: Listed } | null>(null);
  const [error, setError] = useState<ResponseError | null>(null);
  const asked = useRef<{ key: string; pages: Set<number> }>({ key: "", pages: new Set() });
  const key = JSON.stringify([filter, sort, version]);

  const ask = (offset: number) => {
    if (!kernel) return;
    asked.current.pages.add(offset);
    const wanted = key;
    void listRuns(kernel, filter, sort, offset, PAGE_ROWS).then((outcome) => {
      if (asked.current.key !== wanted) return;
      if (!outcome.ok) {
        setError(outcome.error);
        return;
      }
      setError(null);
      const page = outcome.value as unknown as TriagePage;
      setListed((old) => {
        const base = !old || old.key !== wanted ? EMPTY : old.value;
        const rows = new Map(base.rows);
        for (const [i, row] of page.rows.entries()) rows.set(page.offset + i, row);
        const pages = new Set(base.pages).add(page.offset);
        // Only the first page says what to filter by; later pages keep what it said.
        const first = page.offset === 0;
        const agents = first ? page.agents : base.agents;
        const kinds = first ? page.kinds : base.kinds;
        const keys = first ? page.keys : base.keys;
        return { key: wanted, value: { rows, pages, total: page.total, agents, kinds, keys } };
      });
    });
  };

  // A new question: ask for the window's pages; the old rows stay drawn until they come.
  useEffect(() => {
    asked.current = { key, pages: new Set() };
    const [first, last] = window;
    for (const offset of pagesFor(first, Math.max(first, last), () => false)) ask(offset);
  }, [kernel, key]);

  // The window moved: ask for the pages it shows that are neither here nor asked.
  useEffect(() => {
    const [first, last] = window;
    if (last < first) return;
    for (const offset of pagesFor(first, last, (o) => asked.current.pages.has(o))) ask(offset);
  }, [window[0], window[1], key]);

  return { listed: listed?.value ?? EMPTY, current: listed?.key === key, error };
}

interface RowProps {
  row: TriageRow;
  index: number;
  top: number;
  selected: boolean;
  open: boolean;
  /** The grid's one Tab stop (the active row). */
  tabbable: boolean;
  onSelect: (index: number, row: TriageRow, shift: boolean) => void;
  onOpen: (index: number, row: TriageRow) => void;
  /** Called as the row leaves the page while focus is in it. */
  onLeave: () => void;
}

/** One row; drawn again only when its own props change (typing elsewhere redraws none). */
const Row = memo(function RowImpl({ row, index, top, selected, open, tabbable, onSelect, onOpen, onLeave }: RowProps) {
  const ref = useRef<HTMLDivElement>(null);
  // A removed element takes focus with it (to the page's body); the grid has to hold it
  // first, while the row is still there, to give it back once the row is drawn again.
  useLayoutEffect(
    () => () => {
      if (ref.current?.contains(document.activeElement)) onLeave();
    },
    [onLeave],
  );
  const title = row.title || row.runId;
  const waits = [row.kind, row.tool].filter(Boolean).join(" · ");
  const args = argumentsLine(row.arguments);
  return (
    <div
      ref={ref}
      class={`pp-triage-row${selected ? " pp-triage-selected" : ""}${open ? " pp-triage-open" : ""}`}
      role="row"
      tabIndex={tabbable ? 0 : -1}
      aria-rowindex={index + 1}
      aria-selected={selected ? "true" : "false"}
      data-testid="pp-triage-row"
      data-run-id={revealText(row.runId)}
      data-index={index}
      style={{ top: `${top}px`, height: `${ROW_HEIGHT}px` }}
    >
      <span role="gridcell" tabIndex={-1} class="pp-triage-check">
        <input
          type="checkbox"
          data-testid="pp-triage-select"
          checked={selected}
          tabIndex={-1}
          aria-label={revealText(`Select ${title}`)}
          onClick={(e: MouseEvent) => onSelect(index, row, e.shiftKey)}
        />
      </span>
      <span role="gridcell" tabIndex={-1} class="pp-triage-title">
        <button
          type="button"
          class="pp-triage-open-button"
          data-testid="pp-triage-open"
          aria-expanded={open ? "true" : "false"}
          tabIndex={-1}
          onClick={() => onOpen(index, row)}
        >
          <span data-testid="pp-inbox-title">
            <Revealed text={title} />
          </span>
        </button>
      </span>
      <span role="gridcell" tabIndex={-1} class="pp-triage-agent pp-muted">
        {row.agent ? (
          <span data-testid="pp-inbox-agent">
            <Revealed text={row.agent} />
          </span>
        ) : (
          "—"
        )}
      </span>
      <span role="gridcell" tabIndex={-1} class="pp-triage-waits" title={revealText(row.message ?? "")}>
        <span class="pp-triage-kind">{revealText(waits)}</span>
        {args ? (
          <>
            {" "}
            <span class="pp-triage-args" data-testid="pp-triage-args">
              <Revealed text={args} />
            </span>
          </>
        ) : null}
      </span>
      <span role="gridcell" tabIndex={-1} class="pp-triage-age pp-muted">
        <When at={row.since} />
      </span>
      <span role="gridcell" tabIndex={-1} class={`pp-triage-status pp-triage-status-${row.status === "waiting" ? "waiting" : "other"}`}>
        {row.damaged ? "damaged" : row.ignoredAt ? "ignored" : revealText(row.status)}
      </span>
    </div>
  );
});

/** What an opened run that no longer waits is doing now, after "the run". */
const NOW_WORDS: Readonly<Record<string, string>> = {
  running: "goes on",
  completed: "completed",
  failed: "failed",
  cancelled: "was stopped",
  interrupted: "waits on a pause this kernel cannot answer",
  paused: "is paused before its next model request",
  idle: "has not started",
};

interface OpenedPanelProps {
  opened: OpenedRun | null;
  error: ResponseError | null;
  top: number;
  onSize: (px: number) => void;
}

function OpenedPanel({ opened, error, top, onSize }: OpenedPanelProps) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    onSize(el.offsetHeight);
    if (typeof ResizeObserver === "undefined") return undefined;
    const observer = new ResizeObserver(() => onSize(el.offsetHeight));
    observer.observe(el);
    return () => observer.disconnect();
  });
  return (
    <div
      class="pp-triage-panel"
      ref={ref}
      style={{ top: `${top}px` }}
      data-testid="pp-inbox-entry"
      data-run-id={opened ? revealText(opened.runId) : null}
      role="region"
      aria-label="The opened run"
    >
      {error ? <AnswerError error={error} testid="pp-triage-open-error" /> : null}
      {!opened && !error ? <p class="pp-muted">Loading…</p> : null}
      {opened ? (
        <>
          {opened.reason ? (
            <p class="pp-inbox-reason" data-testid="pp-inbox-reason">
              <Revealed text={opened.reason} />
            </p>
          ) : null}
          <ol class="pp-triage-thread" data-testid="pp-triage-thread" aria-label="The conversation so far">
            {opened.thread.earlier > 0 ? <li class="pp-muted">{count(opened.thread.earlier)} earlier items</li> : null}
            {opened.thread.items.map((line) => (
              <li class={`pp-triage-line pp-triage-${ROLES.has(line.role) ? line.role : "other"}`}>
                <span class="pp-triage-role">{revealText(line.role)}</span> <Revealed text={line.text} />
              </li>
            ))}
          </ol>
          <div class="pp-cards">
            {opened.cards.map((card) => (
              <Boundary key={cardKey(card)} value={card} label="card">
                <Card card={card} />
              </Boundary>
            ))}
          </div>
        </>
      ) : null}
    </div>
  );
}

interface BulkReportProps {
  bulk: BulkProgress;
}

function BulkReport({ bulk }: BulkReportProps) {
  const outcomes = bulk.outcomes ?? [];
  if (!bulk.answer || !bulk.total) return null;
  const answered = outcomes.filter((o) => o.outcome === "answered").length;
  const others = outcomes.filter((o) => o.outcome !== "answered");
  const done = outcomes.length >= bulk.total;
  return (
    <div class="pp-triage-report" data-testid="pp-bulk-progress" role="status" aria-live="polite" data-done={done ? "true" : "false"}>
      {DONE_WORDS[bulk.answer]} {count(answered)} of {count(bulk.total)}
      {done ? "" : "…"}
      {others.length ? (
        <ul class="pp-triage-others">
          {others.slice(0, 5).map((o) => (
            <li>
              <code>
                <Revealed text={o.runId} />
              </code>
              : {revealText(o.outcome)}
              {o.message ? (
                <>
                  {" "}
                  (<Revealed text={o.message} />)
                </>
              ) : null}
            </li>
          ))}
          {others.length > 5 ? <li>and {count(others.length - 5)} more</li> : null}
        </ul>
      ) : null}
    </div>
  );
}

interface TriageListProps {
  model: Model;
  overall: number;
  readOnly: boolean;
}

/**
 * The inbox as a triage list: one compact row per waiting run, a window of them drawn at a
 * time (the kernel serves pages), filters, a sort, selections answered together after one
 * confirmation, Ignore with Undo, and a row opened in place into its cards and thread.
 */
export function TriageList({ model, overall, readOnly }: TriageListProps) {
  const kernel = useKernel();
  const version = String(useModelValue(model, "revision") ?? 0);
  const bulk = useModelValue(model, "bulk") ?? {};
  const id = useUniqueId("pp-triage");
  const [typed, setTyped] = useState("");
  const [filter, setFilter] = useState<TriageFilter>({ status: "waiting" });
  const [sort, setSort] = useState("newest");
  const [scroll, setScroll] = useState(0);
  const [selected, setSelected] = useState<Map<string, string>>(new Map());
  const anchor = useRef<number | null>(null);
  const [openAt, setOpenAt] = useState<{ index: number; runId: string } | null>(null);
  const [opened, setOpened] = useState<OpenedRun | null>(null);
  const [openError, setOpenError] = useState<ResponseError | null>(null);
  const [closed, setClosed] = useState<{ title: string; status: string } | null>(null);
  const [extra, setExtra] = useState(0);
  const [confirming, setConfirming] = useState<BulkAction | null>(null);
  const [words, setWords] = useState("");
  const [ignored, setIgnored] = useState<string[]>([]);
  const [sendError, setSendError] = useState<ResponseError | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const frame = useRef(0);
  // The grid's keyboard model is a roving tabindex: one row, the active one, is the Tab
  // stop and has focus while the grid has; the arrow keys move it.
  const [active, setActive] = useState(0);
  /** Set while the grid itself takes focus for a row not drawn, so it keeps it. */
  const parking = useRef(false);

  // Typing waits for a pause before the kernel is asked.
  useEffect(() => {
    const timer = setTimeout(() => setFilter((f) => ((f.text ?? "") === typed ? f : { ...f, text: typed })), TYPING_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  const openedAt: Opened | null = openAt ? { index: openAt.index, extra } : null;
  // The window before the total is known: pages past the end come back empty.
  const window = useMemo(() => visibleRows(scroll, WINDOW_HEIGHT, Number.MAX_SAFE_INTEGER, openedAt), [scroll, openAt?.index, extra]);
  const { listed, error } = useListing(kernel, filter, sort, version, window);
  const [first, last] = visibleRows(scroll, WINDOW_HEIGHT, listed.total, openedAt);

  // A new filter or sort starts at the top, with nothing opened.
  useEffect(() => {
    setOpenAt(null);
    setOpened(null);
    setActive(0);
    if (scroller.current) scroller.current.scrollTop = 0;
    setScroll(0);
  }, [filter, sort]);

  const onScroll = () => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      setScroll(scroller.current?.scrollTop ?? 0);
    });
  };
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const selectNow = (index: number, row: TriageRow, shift: boolean) => {
    setSelected((old) => {
      const next = new Map(old);
      if (shift && anchor.current !== null) {
        const on = !old.has(row.runId);
        for (const r of rangeOf(listed.rows, anchor.current, index)) {
          if (on) next.set(r.runId, r.title || r.runId);
          else next.delete(r.runId);
        }
      } else if (next.has(row.runId)) next.delete(row.runId);
      else next.set(row.runId, row.title || row.runId);
      return next;
    });
    anchor.current = index;
  };

  const openNow = (index: number, row: TriageRow) => {
    if (openAt?.runId === row.runId) {
      setOpenAt(null);
      setOpened(null);
      return;
    }
    setOpenAt({ index, runId: row.runId });
    setClosed(null);
    setOpened(null);
    setOpenError(null);
    setExtra(120);
    if (!kernel) return;
    void openRun(kernel, row.runId).then((outcome) => {
      if (outcome.ok) setOpened(outcome.value as unknown as OpenedRun);
      else setOpenError(outcome.error);
    });
  };

  // What the opened run shows stays current: when the runs change (its card answered
  // here or elsewhere), it is read again, so an answered run says what became of it.
  const openedId = openAt?.runId ?? null;
  const seen = useRef(version);
  useEffect(() => {
    if (seen.current === version) return;
    seen.current = version;
    if (!kernel || openedId === null) return;
    void openRun(kernel, openedId).then((outcome) => {
      if (!outcome.ok) return;
      const now = outcome.value as unknown as OpenedRun;
      if (now.cards.length === 0 && !now.reason) {
        // Nothing waits there any more: the row closes, and says what became of the run.
        setOpenAt((at) => (at?.runId === openedId ? null : at));
        setOpened(null);
        setClosed({ title: now.title || now.runId, status: now.status ?? "" });
      } else setOpened((before) => (before === null || before.runId === now.runId ? now : before));
    });
  }, [version, kernel, openedId]);

  const current = Math.min(active, Math.max(0, listed.total - 1));
  const rowElement = (index: number) => scroller.current?.querySelector<HTMLElement>(`[role="row"][data-index="${index}"]`) ?? null;
  const park = () => {
    parking.current = true;
    try {
      scroller.current?.focus({ preventScroll: true });
    } finally {
      parking.current = false;
    }
  };

  /** Makes row `to` the active one, scrolls it into the window and focuses it, now if it
   * is drawn, else once it is (the layout effect below). */
  const moveTo = (to: number) => {
    const grid = scroller.current;
    if (!grid || listed.total === 0) return;
    const index = Math.min(listed.total - 1, Math.max(0, to));
    setActive(index);
    const height = grid.clientHeight || Math.min(WINDOW_HEIGHT, listHeight(listed.total, openedAt));
    const top = rowTop(index, openedAt);
    let next = grid.scrollTop;
    if (top < next) next = top;
    else if (top + ROW_HEIGHT > next + height) next = top + ROW_HEIGHT - height;
    if (next !== grid.scrollTop) {
      grid.scrollTop = next;
      setScroll(next);
    }
    const el = rowElement(index);
    if (el) el.focus({ preventScroll: true });
    else park();
  };

  // Focus in the grid stays on the active row: a row's element is reused for another row
  // when the window moves (rows are keyed by their slot), and a row moved to may be drawn
  // only once its page comes; until then the grid itself holds focus.
  useLayoutEffect(() => {
    const grid = scroller.current;
    if (!grid) return;
    const focused = document.activeElement;
    const inRow = focused instanceof HTMLElement ? focused.closest<HTMLElement>('[role="row"]') : null;
    if (focused !== grid && !(inRow && grid.contains(inRow))) return;
    const el = rowElement(current);
    if (el) {
      if (inRow !== el) el.focus({ preventScroll: true });
    } else if (focused !== grid) park();
  });

  const onFocusIn = (e: FocusEvent) => {
    const grid = scroller.current;
    if (!grid || parking.current) return;
    const target = e.target as HTMLElement;
    if (target === grid) {
      // The window itself was clicked, or tabbed to while its active row was scrolled
      // away: focus goes on to the active row, else to the first row in sight.
      const el = rowElement(current);
      if (el) el.focus({ preventScroll: true });
      else moveTo(rowAt(grid.scrollTop + ROW_HEIGHT - 1, listed.total, openedAt));
      return;
    }
    const row = target.closest<HTMLElement>('[role="row"]');
    if (row && grid.contains(row)) setActive(Number(row.dataset.index));
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const grid = scroller.current;
    if (!grid || e.altKey || e.metaKey) return;
    const target = e.target as HTMLElement;
    const rowEl = target === grid ? null : target.closest<HTMLElement>('[role="row"]');
    // Keys in the opened run's cards are theirs.
    if (target !== grid && !(rowEl && grid.contains(rowEl))) return;
    const index = rowEl ? Number(rowEl.dataset.index) : current;
    if (e.ctrlKey && e.key !== "Home" && e.key !== "End") return;
    // A key the grid acts on stays with it: JupyterLab's notebook would otherwise take it
    // as its own shortcut (move to another cell, edit this one).
    const take = () => {
      e.preventDefault();
      e.stopPropagation();
    };
    const shown = Math.max(1, Math.floor((grid.clientHeight || WINDOW_HEIGHT) / ROW_HEIGHT));
    const to = rowFor(e.key, index, listed.total, shown);
    if (to !== null && !e.shiftKey) {
      take();
      moveTo(to);
      return;
    }
    if (!rowEl) return;
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const stops = stopsOf(rowEl);
      const at = stops.findIndex((stop) => stop === target || stop.parentElement === target);
      const next = at < 0 ? undefined : stops[at + (e.key === "ArrowRight" ? 1 : -1)];
      if (next) {
        take();
        next.focus();
      }
      return;
    }
    // Space and Enter on a control do what they do there (a click); on the row or one of
    // its other cells, the same.
    const row = listed.rows.get(index);
    if (target.closest("input, button") || !row || e.ctrlKey) return;
    if (e.key === " ") {
      take();
      selectNow(index, row, e.shiftKey);
    } else if (e.key === "Enter" && !e.shiftKey) {
      take();
      openNow(index, row);
    }
  };

  // The rows get handlers that stay the same object, calling the latest closures.
  const latest = useRef({ selectNow, openNow, park });
  latest.current = { selectNow, openNow, park };
  const onSelect = useMemo(() => (index: number, row: TriageRow, shift: boolean) => latest.current.selectNow(index, row, shift), []);
  const onOpen = useMemo(() => (index: number, row: TriageRow) => latest.current.openNow(index, row), []);
  const onLeave = useMemo(() => () => latest.current.park(), []);
  const shownRows: [number, TriageRow][] = [];
  for (let i = first; i <= last; i += 1) {
    const row = listed.rows.get(i);
    if (row) shownRows.push([i, row]);
  }
  const activeDrawn = current >= first && current <= last && listed.rows.has(current);
  const pageRows = [...listed.rows.values()];
  const allOnPage = pageRows.length > 0 && pageRows.every((r) => selected.has(r.runId));
  const onSelectPage = () => {
    setSelected((old) => {
      const next = new Map(old);
      for (const r of pageRows) {
        if (allOnPage) next.delete(r.runId);
        else next.set(r.runId, r.title || r.runId);
      }
      return next;
    });
  };

  const ids = [...selected.keys()];
  const titles = [...selected.values()];
  const confirm = async () => {
    if (!kernel || !confirming) return;
    setSendError(null);
    if (confirming === "ignore") {
      for (const runId of ids) {
        const outcome = await ignoreRun(kernel, runId);
        if (!outcome.ok) {
          setSendError(outcome.error);
          break;
        }
      }
      setIgnored(ids);
    } else {
      const text = words.trim() ? words : null;
      const outcome = await answerRuns(kernel, confirming, ids, text);
      if (!outcome.ok) {
        setSendError(outcome.error);
        return;
      }
    }
    setSelected(new Map());
    setConfirming(null);
    setWords("");
  };
  const undoIgnore = async () => {
    if (!kernel) return;
    for (const runId of ignored) await ignoreRun(kernel, runId, true);
    setIgnored([]);
  };

  const filtered = !!(filter.text || filter.agent || filter.kind || (filter.status && filter.status !== "waiting") || filter.ignored);
  const statusWord = filter.ignored ? "ignored" : (STATUSES.find(([v]) => v === (filter.status ?? "waiting"))?.[1] ?? "Waiting").toLowerCase();
  const countText = filtered ? `${count(listed.total)} of ${count(overall)} waiting match` : `${count(listed.total)} ${statusWord}`;
  // Options go by their place in the list: a value may hold any character, and an
  // attribute shows none raw. A chosen value the kernel no longer lists stays offered.
  const agents = withChosen(listed.agents, filter.agent);
  const kinds = withChosen(listed.kinds, filter.kind);
  const sortKey = sort.replace(/^-/, "");
  const sorts = sortChoices(sort === "newest" || sort === "oldest" || listed.keys.includes(sortKey) ? listed.keys : [...listed.keys, sortKey]);
  const needsWords = confirming === "respond";
  const canConfirm = !needsWords || words.trim().length > 0;

  return (
    <div class="pp-triage" data-testid="pp-triage">
      <div class="pp-triage-filters" role="search" aria-label="Filter the waiting runs">
        <input
          type="search"
          class="pp-input pp-triage-text"
          data-testid="pp-triage-text"
          placeholder="Search title, agent, message, arguments"
          aria-label="Search the waiting runs"
          value={typed}
          onInput={(e: Event) => setTyped((e.target as HTMLInputElement).value)}
        />
        <label class="pp-triage-field">
          <span class="pp-visually-hidden">Agent</span>
          <select
            data-testid="pp-triage-agent"
            aria-label="Agent"
            value={indexOf(agents, filter.agent)}
            onChange={(e: Event) => setFilter({ ...filter, agent: agents[Number((e.target as HTMLSelectElement).value)]?.[0] })}
          >
            <option value="">Every agent</option>
            {agents.map(([name, n], i) => (
              <option value={i}>
                {revealText(name)}
                {n === null ? "" : ` (${count(n)})`}
              </option>
            ))}
          </select>
        </label>
        <label class="pp-triage-field">
          <span class="pp-visually-hidden">Kind of pause</span>
          <select
            data-testid="pp-triage-kind"
            aria-label="Kind of pause"
            value={indexOf(kinds, filter.kind)}
            onChange={(e: Event) => setFilter({ ...filter, kind: kinds[Number((e.target as HTMLSelectElement).value)]?.[0] })}
          >
            <option value="">Every kind</option>
            {kinds.map(([name, n], i) => (
              <option value={i}>
                {revealText(name)}
                {n === null ? "" : ` (${count(n)})`}
              </option>
            ))}
          </select>
        </label>
        <label class="pp-triage-field">
          <span class="pp-visually-hidden">Status</span>
          <select
            data-testid="pp-triage-status"
            aria-label="Status"
            value={filter.status ?? "waiting"}
            onChange={(e: Event) => setFilter({ ...filter, status: (e.target as HTMLSelectElement).value })}
          >
            {STATUSES.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        </label>
        <label class="pp-triage-field">
          <input
            type="checkbox"
            data-testid="pp-triage-ignored"
            checked={!!filter.ignored}
            onChange={(e: Event) => setFilter({ ...filter, ignored: (e.target as HTMLInputElement).checked ? true : undefined })}
          />{" "}
          Ignored
        </label>
        <label class="pp-triage-field">
          <span class="pp-visually-hidden">Sort</span>
          <select
            data-testid="pp-triage-sort"
            aria-label="Sort"
            value={String(
              Math.max(
                0,
                sorts.findIndex(([v]) => v === sort),
              ),
            )}
            onChange={(e: Event) => setSort(sorts[Number((e.target as HTMLSelectElement).value)]?.[0] ?? "newest")}
          >
            {sorts.map(([, label], i) => (
              <option value={i}>{revealText(label)}</option>
            ))}
          </select>
        </label>
        <span class="pp-muted pp-triage-count" data-testid="pp-triage-count" aria-live="polite">
          {countText}
        </span>
      </div>
      <div class="pp-triage-bulk" data-testid="pp-triage-bulk">
        <label class="pp-triage-field">
          <input type="checkbox" data-testid="pp-triage-select-page" checked={allOnPage} disabled={pageRows.length === 0} onChange={onSelectPage} /> Select the{" "}
          {count(pageRows.length)} listed
        </label>
        <span data-testid="pp-triage-selected">{selected.size ? `${count(selected.size)} selected` : ""}</span>
        {(["approve", "decline", "respond", "ignore"] as const).map((action) => (
          <button
            type="button"
            class={`pp-button${action === "approve" ? "" : " pp-button-quiet"}`}
            data-testid={`pp-bulk-${action}`}
            disabled={readOnly || !kernel || selected.size === 0}
            onClick={() => {
              setConfirming(action);
              setSendError(null);
            }}
          >
            {{ approve: "Approve", decline: "Decline", respond: "Respond", ignore: "Ignore" }[action]}
          </button>
        ))}
        {selected.size ? (
          <button type="button" class="pp-button pp-button-quiet" data-testid="pp-bulk-clear" onClick={() => setSelected(new Map())}>
            Clear
          </button>
        ) : null}
        {ignored.length ? (
          <>
            <span class="pp-muted">Ignored {count(ignored.length)}</span>{" "}
            <button type="button" class="pp-button pp-button-quiet" data-testid="pp-ignore-undo" onClick={undoIgnore}>
              Undo
            </button>
          </>
        ) : null}
      </div>
      {confirming ? (
        <div class="pp-triage-confirm" role="alertdialog" aria-labelledby={`${id}-confirm`} data-testid="pp-bulk-confirm">
          <p id={`${id}-confirm`} data-testid="pp-bulk-confirm-text">
            <Revealed text={confirmation(confirming, titles)} />
          </p>
          {confirming === "decline" || confirming === "respond" ? (
            <label class="pp-triage-words">
              <span>{confirming === "decline" ? "Reason (optional, the model reads it)" : "Response (the model reads it)"}</span>
              <textarea
                class="pp-input"
                data-testid="pp-bulk-words"
                rows={2}
                value={words}
                onInput={(e: Event) => setWords((e.target as HTMLTextAreaElement).value)}
              />
            </label>
          ) : null}
          {sendError ? <AnswerError error={sendError} testid="pp-bulk-error" /> : null}
          <button type="button" class="pp-button" data-testid="pp-bulk-confirm-yes" disabled={!canConfirm} onClick={() => void confirm()}>
            {{ approve: "Approve", decline: "Decline", respond: "Respond", ignore: "Ignore" }[confirming]} {count(selected.size)}
          </button>
          <button type="button" class="pp-button pp-button-quiet" data-testid="pp-bulk-confirm-no" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      <BulkReport bulk={bulk} />
      {closed ? (
        <p
          class="pp-triage-report pp-triage-answered"
          data-testid="pp-triage-answered"
          data-status={revealText(closed.status)}
          role="status"
          aria-live="polite"
        >
          “<Revealed text={closed.title} />
          ”: nothing waits there now; the run {NOW_WORDS[closed.status] ?? `is ${revealText(closed.status || "unknown")}`}.
        </p>
      ) : null}
      {error ? <AnswerError error={error} testid="pp-triage-error" /> : null}
      {listed.total === 0 ? (
        <p class="pp-empty" data-testid="pp-inbox-empty">
          {filtered ? "No run fits these filters." : "No run waits on a person."}
        </p>
      ) : null}
      <div
        class="pp-triage-window"
        ref={scroller}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        onFocusIn={onFocusIn}
        data-testid="pp-triage-window"
        role="grid"
        aria-label="Waiting runs"
        aria-rowcount={listed.total}
        aria-multiselectable="true"
        style={{ height: `${Math.min(WINDOW_HEIGHT, listHeight(listed.total, openedAt) + 2)}px` }}
        // The Tab stop only while the active row is scrolled out of the drawn window.
        tabindex={listed.total > 0 && !activeDrawn ? 0 : -1}
      >
        <div class="pp-triage-rows" style={{ height: `${listHeight(listed.total, openedAt)}px` }}>
          {shownRows.map(([index, row]) => (
            <Row
              key={index % SLOTS}
              row={row}
              index={index}
              top={rowTop(index, openedAt)}
              selected={selected.has(row.runId)}
              open={openAt?.runId === row.runId}
              tabbable={index === current}
              onSelect={onSelect}
              onOpen={onOpen}
              onLeave={onLeave}
            />
          ))}
          {openAt ? (
            <OpenedPanel
              key={openAt.runId}
              opened={opened}
              error={openError}
              top={rowTop(openAt.index, openedAt) + ROW_HEIGHT}
              onSize={(px: number) => px !== extra && setExtra(px)}
            />
          ) : null}
        </div>
      </div>
    </div>
  );
}

/** Where ArrowRight and ArrowLeft go in a row: the row, then each cell, or the control a
 * cell holds. */
function stopsOf(rowEl: HTMLElement): HTMLElement[] {
  const cells = [...rowEl.children].filter((cell): cell is HTMLElement => cell.getAttribute("role") === "gridcell");
  return [rowEl, ...cells.map((cell) => cell.querySelector<HTMLElement>("input, button") ?? cell)];
}

/** The row a key moves focus to from row `from` of `total`, a window showing `shown`
 * rows; null for a key that moves nothing. */
function rowFor(key: string, from: number, total: number, shown: number): number | null {
  switch (key) {
    case "ArrowDown":
      return from + 1;
    case "ArrowUp":
      return from - 1;
    case "PageDown":
      return from + shown;
    case "PageUp":
      return from - shown;
    case "Home":
      return 0;
    case "End":
      return total - 1;
    default:
      return null;
  }
}

function withChosen(listed: [string, number][], chosen: string | undefined): [string, number | null][] {
  return chosen === undefined || listed.some(([name]) => name === chosen) ? listed : [...listed, [chosen, null]];
}

function indexOf(options: [string, number | null][], chosen: string | undefined): string {
  const i = options.findIndex(([name]) => name === chosen);
  return i < 0 ? "" : String(i);
}
