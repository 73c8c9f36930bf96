import { html } from "htm/preact";
import type { Json } from "../types";
import { Markdown } from "./Markdown";
import { Preview, previewOf } from "./Preview";

/** A labelled value: text as markdown, anything else as indented JSON. */
export function JsonBlock({ label, value, testid }: { label: string; value: Json | undefined; testid?: string }) {
  const preview = previewOf(value);
  const body = preview
    ? html`<${Preview} preview=${preview} />`
    : typeof value === "string"
      ? html`<${Markdown} text=${value} />`
      : html`<pre class="pp-json">${value === undefined ? "—" : JSON.stringify(value, null, 2)}</pre>`;
  return html`<div class="pp-block" data-testid=${testid}>
    <div class="pp-block-label">${label}</div>
    ${body}
  </div>`;
}
