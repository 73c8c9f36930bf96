/**
 * Markdown to HTML that is safe to insert: marked renders, DOMPurify decides what stays.
 *
 * The text comes from a model or a tool, so nothing it says may act on its own: raw HTML
 * shows as text, images are never fetched (a link to the image is shown, loaded only on a
 * click and a confirmation), links show where they really go, no attribute can style or
 * position anything, and hidden Unicode is shown as markers.
 *
 * Formatting is bounded by time, not only by size: marked's work can grow with the square
 * of the text (nested emphasis, delimiter runs) and deeper, so every step of its tokenizer
 * checks a deadline, and a text past its time is shown as plain text. Each text is
 * formatted once (a small cache), and one task of the page formats only as many texts as
 * fit its time; the others show as plain text until a later task formats them.
 */
import DOMPurify from "dompurify";
import { Marked, Renderer, Tokenizer, type Tokens } from "marked";
import { imageAddress } from "./image-address";
import { markerText, markerTitle, revealText, segments } from "./unicode";

/** Longer text is shown as plain text: marked's work grows faster than the text. */
export const MAX_CHARS = 20_000;
/** So is text with a longer run without spaces (a base64 blob, 10,000 `_a`): marked's
 * e-mail autolink patterns scan such a run again at each of its characters. */
export const MAX_WORD = 500;
/** And so is text that makes more elements than this: sanitizing each one takes time. */
export const MAX_ELEMENTS = 2_000;
/** Time one text may take to parse; past it the text is shown as plain text. Each step of
 * the tokenizer checks it, and no single step is slower than a few milliseconds on text
 * within the limits above, so a text is settled well within 50 ms. */
export const TEXT_MS = 20;
/** Time one task of the page may spend formatting: a text starts only while the task has
 * spent less, so a view with twenty costly texts is not one long task. */
export const TASK_MS = 15;
/** Emphasis marks (`*`, `_`, `~` runs) at a word's edge beyond which a text is shown as
 * plain text before any parsing: marked pairs them in time that grows with their square
 * (3,300 nested `*a ` took a second), and no text needs this many. */
export const MAX_MARKS = 1_000;
/** Nesting (`>` and list markers, or indentation) beyond which a text is shown as plain
 * text: each level is parsed again, and 2,000 `>` overflow the parser's stack. */
export const MAX_NESTING = 16;
export const MAX_INDENT = 64;

export type Fallback = "too-long" | "too-deep" | "too-costly" | "failed";
export type MarkdownResult = { html: string } | { plain: Fallback };

const marked = new Marked({ gfm: true, breaks: false, async: false });
let deadline = Number.POSITIVE_INFINITY;
let clock: () => number = () => performance.now();

/** The clock the time bounds read (the page's own unless given): tests of what a text
 * looks like, not of how long it takes, give one that stands still, so a busy machine
 * cannot turn their texts into plain text. */
export function useMarkdownClock(next?: () => number): void {
  clock = next ?? (() => performance.now());
}
let outOfTime = false;

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

type Target = "web" | "relative" | "blocked";

/** Where a link may go: only absolute http(s) and mailto addresses are followed. Relative
 * ones would reach the Jupyter server with the user's cookies. */
export function linkTarget(href: string): Target {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return "relative";
  }
  return ["http:", "https:", "mailto:"].includes(url.protocol) ? "web" : "blocked";
}

function sameAsText(text: string, href: string): boolean {
  const bare = (s: string) =>
    s
      .trim()
      .replace(/^(https?:\/\/|mailto:)/i, "")
      .replace(/\/$/, "");
  return bare(text) === bare(href);
}

marked.use({
  renderer: {
    // Raw HTML in model or tool text is shown as the text it is, never as elements.
    html({ text }) {
      return escapeHtml(text);
    },
    image({ href, text }: Tokens.Image) {
      const address = imageAddress(href);
      const load = address.ok
        ? ` <button type="button" data-pp="load-image" data-src="${escapeHtml(address.href)}" data-alt="${escapeHtml(text)}">Load image</button>`
        : ` <span data-pp="image-refused">(not loaded: ${escapeHtml(address.reason)})</span>`;
      return `<span data-pp="image">[image${text ? `: ${escapeHtml(text)}` : ""}] <span data-pp="url">${escapeHtml(href)}</span>${load}</span>`;
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, { href, title, text, tokens }: Tokens.Link) {
      const inner = this.parser.parseInline(tokens);
      const target = linkTarget(href);
      const shown = `<span data-pp="url">${escapeHtml(href)}</span>`;
      if (target !== "web") {
        const why = target === "relative" ? "relative link, not followed" : "blocked link";
        return `<span data-pp="link-off">${inner}</span> <span data-pp="href">(${why}: ${shown})</span>`;
      }
      const tip = escapeHtml(title ? `${href} (${title})` : href);
      const after = sameAsText(text, href) ? "" : ` <span data-pp="href">(${shown})</span>`;
      return `<a href="${escapeHtml(href)}" title="${tip}">${inner}</a>${after}`;
    },
    checkbox({ checked }: Tokens.Checkbox) {
      return checked ? "☑ " : "☐ ";
    },
  },
});

class OutOfTime extends Error {}
class TooManyElements extends Error {}

/** Ends the parse once the text's time is spent; returning false lets marked's own step run. */
function inTime(): false {
  if (clock() > deadline) {
    outOfTime = true;
    throw new OutOfTime("markdown took too long");
  }
  return false;
}

let elements = 0;

/** Each rendered token makes about one element: past the cap, rendering stops early. */
function counted(): false {
  if (++elements > MAX_ELEMENTS) throw new TooManyElements("too many elements");
  return inTime();
}

function each(proto: object, check: () => false): Record<string, () => false> {
  const names = Object.getOwnPropertyNames(proto).filter((name) => !["constructor", "options", "parser"].includes(name));
  return Object.fromEntries(names.map((name) => [name, check]));
}

// Every step of the tokenizer and of the renderer, block and inline, checks the time first.
marked.use({ tokenizer: each(Tokenizer.prototype, inTime), renderer: each(Renderer.prototype, counted) });

const ALLOWED_TAGS = [
  "p",
  "br",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "strong",
  "em",
  "del",
  "s",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "a",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "span",
  "button",
]; // prettier-ignore
const ALLOWED_ATTR = ["href", "title", "start", "align", "type", "data-pp", "data-src", "data-alt"];

let hooked = false;

function purifier() {
  if (!hooked) {
    // Links open beside the notebook and cannot reach back into it.
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "A" && node.hasAttribute("href")) {
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer");
      }
    });
    hooked = true;
  }
  return DOMPurify;
}

/** Replaces hidden characters in text nodes and titles with visible markers. */
function revealIn(root: DocumentFragment): void {
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  for (const node of texts) {
    const parts = segments(node.data);
    if (parts.length === 1 && parts[0]!.kind === "text") continue;
    const replacement = doc.createDocumentFragment();
    for (const part of parts) {
      if (part.kind === "text") {
        replacement.append(part.text);
        continue;
      }
      const marker = doc.createElement("span");
      marker.setAttribute("data-pp", "hidden-char");
      marker.setAttribute("data-testid", "pp-hidden-char");
      marker.setAttribute("title", markerTitle(part));
      marker.setAttribute("role", "img");
      marker.setAttribute("aria-label", markerTitle(part));
      marker.textContent = markerText(part);
      replacement.append(marker);
    }
    node.replaceWith(replacement);
  }
  for (const el of root.querySelectorAll("[title]")) el.setAttribute("title", revealText(el.getAttribute("title") ?? ""));
}

const PREFIX = /^(?:[ \t]*(?:>|[*+-](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))+/;
const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/;

/** Whether a line outside fenced code nests deeper than marked handles quickly. */
function tooDeep(text: string): boolean {
  let fence = "";
  for (const line of text.split("\n")) {
    const open = FENCE.exec(line);
    if (open) {
      if (!fence) fence = open[1]![0]!;
      else if (open[1]![0] === fence) fence = "";
      continue;
    }
    if (fence) continue;
    const indent = /^[ \t]*/.exec(line)![0].replace(/\t/g, "    ").length;
    if (indent > MAX_INDENT) return true;
    const prefix = PREFIX.exec(line)?.[0] ?? "";
    if ((prefix.match(/[>*+-]|\d[.)]/g) ?? []).length > MAX_NESTING) return true;
  }
  return false;
}

// The parser's first run in a page compiles its patterns (30 to 120 ms): that is paid once,
// on a fixed text, and not counted against the first real text.
let warm = false;
const WARM_UP =
  "# a\n\n*a* **b** _c_ ~~d~~ `e` [f](https://f.example) ![g](https://g.example/g.png) <h> www.i.example j@k.example [l]\n\n> m\n\n- n\n\n| o |\n|-|\n| p |\n\n[l]: https://l.example";

type Attempt = MarkdownResult | "out-of-time";

const ITEM = /^[ \t]*(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/gm;
const MARK = /(?:^|\s)[*_~]+|[*_~]+(?=\s|$)/gm;

/** marked's HTML for `text` (not sanitized yet) within the text's time, or why it is to be
 * plain text. Exported for tests: this is the part bounded by time; sanitizing is bounded
 * by MAX_ELEMENTS. */
export function parseWithin(text: string): Attempt {
  if (text.length > MAX_CHARS || text.split(/\s+/).some((word) => word.length > MAX_WORD)) return { plain: "too-long" };
  if (tooDeep(text)) return { plain: "too-deep" };
  // marked reads a whole list's items in one step, between two looks at the clock.
  if ((text.match(ITEM)?.length ?? 0) > MAX_ELEMENTS / 2) return { plain: "too-long" };
  if ((text.match(MARK)?.length ?? 0) > MAX_MARKS) return { plain: "too-costly" };
  let html: string;
  outOfTime = false;
  try {
    if (!warm) {
      warm = true;
      marked.parse(WARM_UP, { async: false });
    }
    elements = 0;
    deadline = clock() + TEXT_MS;
    html = marked.parse(text, { async: false }) as string;
  } catch (err) {
    if (err instanceof TooManyElements) return { plain: "too-long" };
    // Out of time, or a stack overflow on nesting the checks above did not foresee.
    return outOfTime ? "out-of-time" : { plain: "failed" };
  } finally {
    deadline = Number.POSITIVE_INFINITY;
  }
  // Text's own `<` is escaped by now: each `<` opens or closes an element.
  return html.split("<").length > 2 * MAX_ELEMENTS ? { plain: "too-long" } : { html };
}

function render(text: string): Attempt {
  const parsed = parseWithin(text);
  if (parsed === "out-of-time" || "plain" in parsed) return parsed;
  const fragment = purifier().sanitize(parsed.html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  }) as unknown as DocumentFragment;
  revealIn(fragment);
  const box = fragment.ownerDocument.createElement("div");
  box.append(fragment);
  return { html: box.innerHTML };
}

const CACHE_SIZE = 200;
const cache = new Map<string, MarkdownResult>();
/** Texts that ran out of time once: a pause of the page (garbage collection, another tab)
 * may have taken their time, so each gets a second try, in a later task. */
const outOfTimeOnce = new Set<string>();

function cached(key: string): MarkdownResult | undefined {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
  }
  return hit;
}

/** One try at `key`: its result, cached, or null when it is to be tried again. */
function attempt(key: string): MarkdownResult | null {
  const tried = render(key);
  if (tried === "out-of-time" && !outOfTimeOnce.has(key)) {
    outOfTimeOnce.add(key);
    if (outOfTimeOnce.size > CACHE_SIZE) outOfTimeOnce.delete(outOfTimeOnce.values().next().value!);
    return null;
  }
  outOfTimeOnce.delete(key);
  const result: MarkdownResult = tried === "out-of-time" ? { plain: "too-costly" } : tried;
  cache.set(key, result);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return result;
}

/** `text` rendered, or why it is to be shown as plain text, at once: a text that runs out
 * of time is tried again straight away. The view uses `markdownNow`, which tries again in a
 * later task. */
export function markdown(text: string): MarkdownResult {
  const key = text ?? "";
  return cached(key) ?? attempt(key) ?? attempt(key)!;
}

// Time spent formatting in the current task. A view draws all its texts in one go (one
// render, which runs in a task or a microtask), and the microtask queued here runs once
// that is done, so the next render starts with time of its own.
let taskSpent = 0;
let resetting = false;

/** `text` rendered as `markdown` does, or null when it is not settled yet: this task has
 * spent its time on formatting, or the text ran out of time once. Show it as plain text
 * meanwhile and ask `whenFormatted` to be told. */
export function markdownNow(text: string): MarkdownResult | null {
  const key = text ?? "";
  const hit = cached(key);
  if (hit) return hit;
  if (taskSpent >= TASK_MS) return null;
  if (!resetting) {
    resetting = true;
    queueMicrotask(() => {
      taskSpent = 0;
      resetting = false;
    });
  }
  const start = clock();
  try {
    return attempt(key);
  } finally {
    taskSpent += clock() - start;
  }
}

const waiting = new Map<symbol, { text: string; done: () => void }>();
let draining = false;

/** A task of its own: settles waiting texts, in the order asked, while it has time. */
function drain(): void {
  draining = false;
  for (const [id, { text, done }] of waiting) {
    if (markdownNow(text) === null) break;
    waiting.delete(id);
    done();
  }
  if (waiting.size > 0) later();
}

function later(): void {
  if (draining) return;
  draining = true;
  setTimeout(drain, 0);
}

/** Calls `done` once `text` is settled, in a later task that has time for it; returns a
 * function that cancels the request. */
export function whenFormatted(text: string, done: () => void): () => void {
  const id = Symbol();
  waiting.set(id, { text, done });
  later();
  return () => {
    waiting.delete(id);
  };
}
