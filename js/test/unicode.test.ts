import { describe, expect, it } from "vitest";
import { hasHidden, jsonHasHidden, MAX_MARKERS, markerText, revealText, SPACE_RUN, segments } from "../src/lib/unicode";

describe("hidden characters", () => {
  it("marks bidi overrides and isolates instead of letting them act", () => {
    const parts = segments("alice@bank.com \u202Emoc.rekcatta@eve\u2066x\u2069");
    expect(parts.filter((p) => p.kind === "hidden").map((p) => p.kind === "hidden" && p.code)).toEqual(["U+202E", "U+2066", "U+2069"]);
    expect(revealText("a\u202Eb")).toBe("a⟦U+202E⟧b");
  });

  it.each([
    ["\u200B", "U+200B"],
    ["\u200C", "U+200C"],
    ["\u200D", "U+200D"],
    ["\u2060", "U+2060"],
    ["\uFEFF", "U+FEFF"],
    ["\u200E", "U+200E"],
    ["\u200F", "U+200F"],
    ["\u061C", "U+061C"],
    ["\u2028", "U+2028"],
    ["\u2029", "U+2029"],
    ["\u00AD", "U+00AD"],
    ["\u{E0041}", "U+E0041"],
    ["\u0007", "U+0007"],
    ["\u0085", "U+0085"],
    ["\u3164", "U+3164"],
  ])("marks %j as %s", (char, code) => {
    expect(revealText(`key${char}name`)).toBe(`key⟦${code}⟧name`);
    expect(hasHidden(`key${char}name`)).toBe(true);
  });

  it("leaves ordinary text, newlines, tabs, accents, right-to-left letters and emoji alone", () => {
    for (const text of ["plain text\nnext\tline", "café ñ", "שלום עולם", "👩‍💻 and 👨‍👩‍👧 ❤️", "a b"]) {
      expect(hasHidden(text)).toBe(false);
      expect(segments(text)).toEqual([{ kind: "text", text }]);
    }
  });

  it("groups equal characters in a row into one marker", () => {
    expect(revealText("a\u200B\u200B\u200Bb")).toBe("a⟦U+200B ×3⟧b");
  });

  it("marks long runs of spaces that push text out of sight, but not JSON indentation", () => {
    const run = " ".repeat(40);
    expect(revealText(`ls${run}; rm -rf /`)).toBe("ls⟦40 spaces⟧; rm -rf /");
    expect(hasHidden(`a${" ".repeat(SPACE_RUN - 1)}b`)).toBe(false);
    const json = JSON.stringify({ a: { b: { c: { d: `x${run}y` } } } }, null, 2);
    const marked = segments(json, { indented: true }).filter((p) => p.kind === "spaces");
    expect(marked).toEqual([{ kind: "spaces", count: 40 }]);
  });

  it("draws a bounded number of markers and counts the rest", () => {
    const parts = segments("a\u200Bb".repeat(MAX_MARKERS + 50));
    const markers = parts.filter((p) => p.kind !== "text");
    expect(markers).toHaveLength(MAX_MARKERS + 1);
    const last = markers[markers.length - 1]!;
    expect(markerText(last)).toBe("+50 hidden");
    expect(parts.some((p) => p.kind === "text" && p.text.includes("\u200B"))).toBe(false);
  });

  it("finds hidden characters anywhere in a JSON value, keys included", () => {
    expect(jsonHasHidden({ to: "alice", amount: 3 })).toBe(false);
    expect(jsonHasHidden({ "to\u200B": "alice" })).toBe(true);
    expect(jsonHasHidden({ list: [1, { deep: "x\u202Ey" }] })).toBe(true);
  });
});
