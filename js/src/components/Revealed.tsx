import { useMemo } from "preact/hooks";
import { hasHidden, hiddenKinds, jsonHasHidden, markerText, markerTitle, segments } from "../lib/unicode";
import type { PendingCard, ToolItem } from "../types";

interface RevealedProps {
  text: string;
  indented?: boolean;
}

/** Text with each hidden or direction-changing character shown as a marker instead of
 * acting (see lib/unicode.ts). `indented`: pretty-printed JSON, whose leading spaces are indentation. */
export function Revealed({ text, indented = false }: RevealedProps) {
  const parts = useMemo(() => segments(text ?? "", { indented }), [text, indented]);
  if (parts.length === 1 && parts[0]!.kind === "text") return parts[0]!.text;
  return parts.map((part) =>
    part.kind === "text" ? (
      part.text
    ) : (
      // A symbol with a name: a screen reader says "U+202E right-to-left override", not "U+202E".
      <span class="pp-hidden-char" data-testid="pp-hidden-char" role="img" title={markerTitle(part)} aria-label={markerTitle(part)}>
        {markerText(part)}
      </span>
    ),
  );
}

interface HiddenWarningProps {
  what: "card" | "call" | "text";
}

/** The warning a card or a tool call shows when some of its text has markers. */
export function HiddenWarning({ what }: HiddenWarningProps) {
  const subject = what === "card" ? "This card contains" : what === "call" ? "This tool call contains" : "This text contains";
  return (
    <p class="pp-hidden-warning" role="note" data-testid="pp-hidden-warning">
      ⚠ {subject} hidden or direction-changing characters; they are shown as markers.
    </p>
  );
}

interface HiddenInValueProps {
  value: string;
}

/** Beside a field whose value is edited as it is: the value keeps its hidden characters
 * (an edit sends exactly what the field holds), so the warning names them. */
export function HiddenInValue({ value }: HiddenInValueProps) {
  const kinds = useMemo(() => hiddenKinds(value), [value]);
  if (kinds.length === 0) return null;
  return (
    <p class="pp-hidden-warning pp-value-hidden" role="note" data-testid="pp-value-hidden">
      ⚠ This value contains hidden or direction-changing characters, kept as they are:{" "}
      {kinds.map(({ code, name }, i) => (
        <>
          {i > 0 ? ", " : ""}
          {code === "spaces" ? (
            name
          ) : (
            <>
              <span class="pp-hidden-char" data-testid="pp-hidden-char" title={name}>
                {code}
              </span>{" "}
              {name}
            </>
          )}
        </>
      ))}
      .
    </p>
  );
}

const cardScans = new WeakMap<PendingCard, boolean>();

/** Whether anything a card shows (title, message, arguments, data, form labels) has hidden characters;
 * looked at once per card object, not on every tick of its countdown. */
export function cardHasHidden(card: PendingCard): boolean {
  let found = cardScans.get(card);
  if (found === undefined) {
    found =
      [card.toolName ?? "", card.message ?? "", card.readOnlyReason ?? ""].some(hasHidden) ||
      jsonHasHidden(card.args ?? null) ||
      jsonHasHidden(card.data ?? null) ||
      jsonHasHidden(card.responseSchema ?? null);
    cardScans.set(card, found);
  }
  return found;
}

/** Whether anything a tool call shows (name, input, result, error, interrupts) has hidden characters. */
export function callHasHidden(call: ToolItem): boolean {
  if (hasHidden(call.name ?? "") || jsonHasHidden(call.input ?? null) || jsonHasHidden(call.result ?? null)) return true;
  const message = call.error?.message ?? "";
  const shown = typeof message === "string" ? message : message["pausepoint:preview"].text;
  if (call.error && (hasHidden(call.error.name ?? "") || hasHidden(shown))) return true;
  return (call.interrupts ?? []).some((entry) => hasHidden(entry.message ?? "") || jsonHasHidden(entry.data ?? null));
}
