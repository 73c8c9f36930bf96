/**
 * Characters that act without being seen: bidi controls that reorder text, zero-width and
 * other format characters, line separators, invisible letters, and long runs of spaces.
 * Text from a model or a tool is shown with a visible marker in their place, so that what
 * a person reads is what an action receives.
 */
import type { Json } from "../types";

export type Segment =
  | { kind: "text"; text: string }
  /** `count` equal hidden characters in a row, shown as one marker. */
  | { kind: "hidden"; char: string; code: string; name: string; count: number }
  | { kind: "spaces"; count: number };

const NAMES: Record<number, string> = {
  0x00ad: "soft hyphen",
  0x061c: "Arabic letter mark",
  0x180e: "Mongolian vowel separator",
  0x200b: "zero-width space",
  0x200c: "zero-width non-joiner",
  0x200d: "zero-width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x2028: "line separator",
  0x2029: "paragraph separator",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2060: "word joiner",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0xfeff: "zero-width no-break space",
};

// Format (Cf) and separator (Zl, Zp) characters, controls other than tab and newlines,
// lone surrogates, invisible letters (Hangul fillers, braille blank) and variation
// selectors that decorate nothing visible (FE0E/FE0F are emoji presentation, left alone).
const HIDDEN = /[\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u115f\u1160\u2800\u3164\uffa0\ufe00-\ufe0d\u{e0100}-\u{e01ef}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
// Emoji modifiers and the presentation selector may sit between a pictograph and a joiner.
const EMOJI_TAIL = /[\ufe0f\u{1f3fb}-\u{1f3ff}]/u;

/** Runs of this many spaces or more are shown as one marker ("12 spaces"). */
export const SPACE_RUN = 8;
const SPACE = /[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]/u;
const SPACE_RUN_RE = new RegExp(`${SPACE.source}{${SPACE_RUN},}`, "u");

/** Cheap first look: most text has nothing to mark. */
function mayHide(text: string): boolean {
  return HIDDEN.test(text) || SPACE_RUN_RE.test(text);
}

/** Markers drawn for one text at most; hidden characters beyond them are dropped and counted. */
export const MAX_MARKERS = 200;

export function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

export function charName(char: string): string {
  const cp = char.codePointAt(0)!;
  if (NAMES[cp]) return NAMES[cp]!;
  if (cp >= 0xe0000 && cp <= 0xe007f) return "tag character";
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return "control character";
  if (cp >= 0xd800 && cp <= 0xdfff) return "lone surrogate";
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) return "variation selector";
  return "invisible character";
}

/** A zero-width joiner inside an emoji sequence (👩‍💻) joins pictures, it hides nothing. */
function joinsEmoji(chars: string[], i: number): boolean {
  let before = i - 1;
  while (before >= 0 && EMOJI_TAIL.test(chars[before]!)) before -= 1;
  return before >= 0 && PICTOGRAPH.test(chars[before]!) && i + 1 < chars.length && PICTOGRAPH.test(chars[i + 1]!);
}

function isHidden(chars: string[], i: number): boolean {
  const c = chars[i]!;
  if (!HIDDEN.test(c)) return false;
  return !(c === "\u200d" && joinsEmoji(chars, i));
}

/** Whether `text` has anything `segments` would mark. */
export function hasHidden(text: string): boolean {
  if (!text || !mayHide(text)) return false;
  return segments(text).some((s) => s.kind !== "text");
}

/**
 * `text` cut into plain runs and markers. With `indented` (pretty-printed JSON), spaces at
 * the start of a line are indentation, not a run to mark.
 */
export function segments(text: string, { indented = false }: { indented?: boolean } = {}): Segment[] {
  if (!text) return [];
  if (!mayHide(text)) return [{ kind: "text", text }];
  const out: Segment[] = [];
  const chars = Array.from(text ?? "");
  let plain = "";
  let markers = 0;
  let dropped = 0;
  let lineStart = true;
  const flush = () => {
    if (plain) out.push({ kind: "text", text: plain });
    plain = "";
  };
  for (let i = 0; i < chars.length; ) {
    const c = chars[i]!;
    if (SPACE.test(c)) {
      let j = i;
      while (j < chars.length && SPACE.test(chars[j]!)) j += 1;
      const run = j - i;
      if (run >= SPACE_RUN && !(indented && lineStart)) {
        flush();
        if (markers < MAX_MARKERS) out.push({ kind: "spaces", count: run });
        else dropped += run;
        markers += 1;
      } else {
        plain += chars.slice(i, j).join("");
      }
      lineStart = false;
      i = j;
      continue;
    }
    if (isHidden(chars, i)) {
      let j = i + 1;
      while (j < chars.length && chars[j] === c) j += 1;
      flush();
      if (markers < MAX_MARKERS) out.push({ kind: "hidden", char: c, code: codePoint(c), name: charName(c), count: j - i });
      else dropped += j - i;
      markers += 1;
      lineStart = false;
      i = j;
      continue;
    }
    plain += c;
    lineStart = c === "\n";
    i += 1;
  }
  flush();
  if (dropped > 0)
    out.push({ kind: "hidden", char: "", code: "more", name: `${dropped.toLocaleString("en-US")} more hidden characters, not shown`, count: dropped });
  return out;
}

/** What a marker says: "U+202E", "U+200B ×3", "12 spaces". */
export function markerText(segment: Exclude<Segment, { kind: "text" }>): string {
  if (segment.kind === "spaces") return `${segment.count} spaces`;
  if (segment.code === "more") return `+${segment.count.toLocaleString("en-US")} hidden`;
  return segment.count > 1 ? `${segment.code} ×${segment.count}` : segment.code;
}

/** The marker's longer description, for its tooltip and accessible name. */
export function markerTitle(segment: Exclude<Segment, { kind: "text" }>): string {
  if (segment.kind === "spaces") return `${segment.count} spaces in a row`;
  if (segment.code === "more") return segment.name;
  return `${segment.code} ${segment.name}${segment.count > 1 ? `, ${segment.count} times` : ""}`;
}

/** `text` as plain text with markers written out ("a⟦U+202E⟧b"), for attributes. */
export function revealText(text: string): string {
  return segments(text)
    .map((s) => (s.kind === "text" ? s.text : `⟦${markerText(s)}⟧`))
    .join("");
}

/** The distinct markers `text` would show, each once: `{code: "U+202E", name: "right-to-left override"}`,
 * at most `max`. */
export function hiddenKinds(text: string, max = 5): Array<{ code: string; name: string }> {
  if (!text || !mayHide(text)) return [];
  const kinds = new Map<string, string>();
  for (const s of segments(text)) {
    if (kinds.size >= max) break;
    if (s.kind === "spaces") kinds.set("spaces", "a long run of spaces");
    else if (s.kind === "hidden" && s.code !== "more") kinds.set(s.code, s.name);
  }
  return [...kinds].map(([code, name]) => ({ code, name }));
}

/** Whether any string in a JSON value (keys included) has hidden characters. */
export function jsonHasHidden(value: Json | undefined, budget = { left: 100_000 }): boolean {
  if (budget.left-- <= 0) return false;
  if (typeof value === "string") return hasHidden(value);
  if (Array.isArray(value)) return value.some((v) => jsonHasHidden(v, budget));
  if (value && typeof value === "object") {
    return Object.entries(value).some(([k, v]) => hasHidden(k) || jsonHasHidden(v, budget));
  }
  return false;
}
