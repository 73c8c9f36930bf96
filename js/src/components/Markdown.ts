import { html } from "htm/preact";
import { renderMarkdown } from "../markdown";

/** Markdown text, sanitized by DOMPurify before it reaches the DOM. */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  return html`<div class=${`pp-markdown ${className ?? ""}`} dangerouslySetInnerHTML=${{ __html: renderMarkdown(text) }}></div>`;
}
