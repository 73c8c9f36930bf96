import { html } from "htm/preact";
import { useMemo } from "preact/hooks";
import { markerText, markerTitle, segments } from "../unicode";

/** Text with each hidden or direction-changing character shown as a marker instead of
 * acting (see unicode.ts). `indented`: pretty-printed JSON, whose leading spaces are indentation. */
export function Revealed({ text, indented = false }: { text: string; indented?: boolean }) {
  const parts = useMemo(() => segments(text ?? "", { indented }), [text, indented]);
  if (parts.length === 1 && parts[0]!.kind === "text") return html`${parts[0]!.text}`;
  return html`${parts.map((part) =>
    part.kind === "text"
      ? part.text
      : html`<span class="pp-hidden-char" data-testid="pp-hidden-char" title=${markerTitle(part)} aria-label=${markerTitle(part)}>${markerText(part)}</span>`,
  )}`;
}

/** The warning a card or a tool call shows when some of its text has markers. */
export function HiddenWarning({ what }: { what: "card" | "call" | "text" }) {
  const subject = what === "card" ? "This card contains" : what === "call" ? "This tool call contains" : "This text contains";
  return html`<p class="pp-hidden-warning" role="note" data-testid="pp-hidden-warning">
    ⚠ ${subject} hidden or direction-changing characters; they are shown as markers.
  </p>`;
}
