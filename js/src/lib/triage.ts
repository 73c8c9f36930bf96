/**
 * The triage list's arithmetic, apart from drawing: which rows a scrolled window shows
 * (one opened row taller than the rest), which pages of rows to ask the kernel for, shift-
 * click ranges, the sort choices, a row's key arguments in a line, and what a bulk
 * answer's confirmation says.
 */
import type { Json } from "../types";

/** The height of one row of the list, in pixels. */
export const ROW_HEIGHT = 36;
/** Rows in one page asked of the kernel. */
export const PAGE_ROWS = 100;
/** Rows drawn beyond each edge of the window, so a scroll shows no blank. */
export const OVERSCAN = 6;
/** How many titles a confirmation names before "and N more". */
export const NAMED = 3;

/** Where the opened row is and how much taller than a row it is drawn (px). */
export interface Opened {
  index: number;
  extra: number;
}

/** The top of row `index`, rows after the opened one pushed down by its extra height. */
export function rowTop(index: number, opened: Opened | null): number {
  return index * ROW_HEIGHT + (opened && index > opened.index ? opened.extra : 0);
}

/** The height of the whole list of `total` rows. */
export function listHeight(total: number, opened: Opened | null): number {
  return total * ROW_HEIGHT + (opened && opened.index < total ? opened.extra : 0);
}

/** The row at `y` pixels from the list's top (clamped to the list). */
export function rowAt(y: number, total: number, opened: Opened | null): number {
  if (total <= 0) return 0;
  let index: number;
  if (opened && y >= (opened.index + 1) * ROW_HEIGHT) {
    const after = y - opened.extra;
    index = after < (opened.index + 1) * ROW_HEIGHT ? opened.index : Math.floor(after / ROW_HEIGHT);
  } else {
    index = Math.floor(Math.max(0, y) / ROW_HEIGHT);
  }
  return Math.min(total - 1, Math.max(0, index));
}

/** The rows to draw for a window `height` px tall scrolled to `scrollTop`: [first, last]. */
export function visibleRows(scrollTop: number, height: number, total: number, opened: Opened | null): [number, number] {
  if (total <= 0) return [0, -1];
  const first = Math.max(0, rowAt(scrollTop, total, opened) - OVERSCAN);
  const last = Math.min(total - 1, rowAt(scrollTop + height, total, opened) + OVERSCAN);
  return [first, last];
}

/** The offsets of the pages holding rows `first`..`last`, of those not `have`. */
export function pagesFor(first: number, last: number, have: (offset: number) => boolean): number[] {
  const pages: number[] = [];
  for (let offset = Math.floor(first / PAGE_ROWS) * PAGE_ROWS; offset <= last; offset += PAGE_ROWS) {
    if (!have(offset)) pages.push(offset);
  }
  return pages;
}

/** The rows from `anchor` to `index` (either way), of those known: a shift-click. */
export function rangeOf<T>(rows: ReadonlyMap<number, T>, anchor: number, index: number): T[] {
  const found: T[] = [];
  for (let i = Math.min(anchor, index); i <= Math.max(anchor, index); i += 1) {
    const row = rows.get(i);
    if (row !== undefined) found.push(row);
  }
  return found;
}

/** The sort choices: by age, then each key argument both ways. */
export function sortChoices(keys: readonly string[]): [string, string][] {
  const choices: [string, string][] = [
    ["newest", "Newest first"],
    ["oldest", "Oldest first"],
  ];
  for (const key of keys) {
    choices.push([key, `${key}, smallest first`], [`-${key}`, `${key}, largest first`]);
  }
  return choices;
}

// One formatter for every row: making one per number costs more than drawing the row.
const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 });
const WHOLE = new Intl.NumberFormat("en-US");

/** A count as people read it: 10,000. */
export function countText(n: number): string {
  return WHOLE.format(n);
}

function shown(value: Json): string {
  if (typeof value === "number") return NUMBER.format(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** A call's key arguments in one line: `amount 1,200.5 · customer Ann`. */
export function argumentsLine(args: Record<string, Json>, limit = 4): string {
  const parts = Object.entries(args)
    .slice(0, limit)
    .map(([name, value]) => `${name} ${shown(value)}`);
  const more = Object.keys(args).length - limit;
  return more > 0 ? `${parts.join(" · ")} · +${more}` : parts.join(" · ");
}

const VERBS = { approve: "Approve", decline: "Decline", respond: "Respond to", ignore: "Ignore" } as const;
export type BulkAction = keyof typeof VERBS;

/** What a bulk answer's confirmation asks: how many runs, and the first titles by name. */
export function confirmation(action: BulkAction, titles: readonly string[]): string {
  const n = titles.length;
  const named = titles.slice(0, NAMED).map((t) => `“${t}”`);
  const more = n - named.length;
  const list = more > 0 ? `${named.join(", ")} and ${countText(more)} more` : joinAnd(named);
  return `${VERBS[action]} ${countText(n)} run${n === 1 ? "" : "s"}: ${list}?`;
}

function joinAnd(parts: string[]): string {
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}
