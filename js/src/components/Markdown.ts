import { html } from "htm/preact";
import { useMemo } from "preact/hooks";
import { type Fallback, markdown } from "../lib/markdown";
import { Preview, previewOf } from "./Preview";
import { Revealed } from "./Revealed";

const FALLBACK_NOTES: Record<Fallback, string> = {
  "too-long": "Shown as plain text: too long to format.",
  "too-deep": "Shown as plain text: nested too deeply to format.",
  failed: "Shown as plain text: it could not be formatted.",
};

/** A remote image is fetched only when the person asks for it (see lib/markdown.ts). */
function loadImage(event: MouseEvent) {
  const button = (event.target as Element | null)?.closest?.('button[data-pp="load-image"]');
  const src = button?.getAttribute("data-src") ?? "";
  if (!button || !/^https?:\/\//i.test(src)) return;
  const img = document.createElement("img");
  img.referrerPolicy = "no-referrer";
  img.alt = button.getAttribute("data-alt") ?? "";
  img.src = src;
  button.replaceWith(img);
}

/** Markdown text, sanitized by DOMPurify before it reaches the DOM; parsed once per text. */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const preview = previewOf(text);
  const result = useMemo(() => (preview ? null : markdown(text)), [text]);
  if (preview || !result) return html`<${Preview} preview=${preview!} />`;
  if ("plain" in result) {
    return html`<div class=${`pp-markdown pp-plain ${className ?? ""}`} data-plain=${result.plain}>
      <p class="pp-muted pp-plain-note" data-testid="pp-plain-note">${FALLBACK_NOTES[result.plain]}</p>
      <div class="pp-plain-text"><${Revealed} text=${text} /></div>
    </div>`;
  }
  return html`<div class=${`pp-markdown ${className ?? ""}`} onClick=${loadImage} dangerouslySetInnerHTML=${{ __html: result.html }}></div>`;
}
