import { html } from "htm/preact";
import { renderMarkdown } from "../markdown";
import { Preview, previewOf } from "./Preview";

/** Markdown text, sanitized by DOMPurify before it reaches the DOM. */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const preview = previewOf(text);
  if (preview) return html`<${Preview} preview=${preview} />`;
  return html`<div class=${`pp-markdown ${className ?? ""}`} dangerouslySetInnerHTML=${{ __html: renderMarkdown(text) }}></div>`;
}
