/**
 * Markdown to HTML that is safe to insert: marked renders, DOMPurify decides what stays.
 *
 * The text comes from a model or a tool, so nothing it says may act on its own: raw HTML
 * shows as text, images are never fetched (a link to the image is shown, loaded only on a
 * click), links show where they really go, no attribute can style or position anything,
 * and hidden Unicode is shown as markers. Each text is parsed once (a small cache); text
 * too long or too costly to parse is shown as plain text.
 */
import DOMPurify from "dompurify";
import { Marked, Tokenizer, type Tokens } from "marked";
import { markerText, markerTitle, revealText, segments } from "./unicode";

/** Longer text is shown as plain text: marked's work grows faster than the text. */
export const MAX_CHARS = 20_000;
/** So is text with a longer run without spaces (a base64 blob, 10,000 `_a`): marked's
 * e-mail autolink patterns scan such a run again at each of its characters. */
export const MAX_WORD = 500;
/** And so is text that makes more elements than this: sanitizing each one takes time. */
export const MAX_ELEMENTS = 2_000;
/** Time for finding emphasis (`*`, `_`) in one text: marked matches delimiters in time
 * quadratic in their number (20 KB of `_*a` took seconds); past it, the rest of the
 * delimiters stay literal characters. */
export const EMPHASIS_MS = 40;
/** Nesting (`>` and list markers, or indentation) beyond which a text is shown as plain
 * text: each level is parsed again, and 2,000 `>` overflow the parser's stack. */
export const MAX_NESTING = 16;
export const MAX_INDENT = 64;

export type Fallback = "too-long" | "too-deep" | "failed";
export type MarkdownResult = { html: string } | { plain: Fallback };

const marked = new Marked({ gfm: true, breaks: false, async: false });
let emphasisSpent = 0;

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
      const load =
        linkTarget(href) === "web" && /^https?:/i.test(href)
          ? ` <button type="button" data-pp="load-image" data-src="${escapeHtml(href)}" data-alt="${escapeHtml(text)}">Load image</button>`
          : "";
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
  tokenizer: {
    // Past its time, emphasis is not looked for: the delimiter stays a character.
    emStrong(this: Tokenizer, src: string, maskedSrc: string, prevChar?: string) {
      if (emphasisSpent > EMPHASIS_MS) return undefined;
      const start = performance.now();
      try {
        return Tokenizer.prototype.emStrong.call(this, src, maskedSrc, prevChar);
      } finally {
        emphasisSpent += performance.now() - start;
      }
    },
  },
});

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

function render(text: string): MarkdownResult {
  if (text.length > MAX_CHARS || text.split(/\s+/).some((word) => word.length > MAX_WORD)) return { plain: "too-long" };
  if (tooDeep(text)) return { plain: "too-deep" };
  let html: string;
  emphasisSpent = 0;
  try {
    html = marked.parse(text, { async: false }) as string;
  } catch {
    // A stack overflow on nesting the checks above did not foresee.
    return { plain: "failed" };
  }
  // Text's own `<` is escaped by now: each `<` opens or closes an element.
  if (html.split("<").length > 2 * MAX_ELEMENTS) return { plain: "too-long" };
  const fragment = purifier().sanitize(html, {
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

const CACHE_SIZE = 100;
const cache = new Map<string, MarkdownResult>();

/** `text` rendered, or why it is to be shown as plain text; each text is parsed once. */
export function markdown(text: string): MarkdownResult {
  const key = text ?? "";
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const result = render(key);
  cache.set(key, result);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return result;
}
