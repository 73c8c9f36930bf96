import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

/** Selectors written at the start of a line that an unclosed rule above has swallowed:
 * browsers that nest CSS read them as nested rules, and they match nothing. */
function swallowedSelectors(css: string): string[] {
  const found: string[] = [];
  let depth = 0;
  for (const line of css.replace(/\/\*[\s\S]*?\*\//g, "").split("\n")) {
    if (/^[.@a-z]/i.test(line) && depth > 0) found.push(line);
    for (const c of line) depth += c === "{" ? 1 : c === "}" ? -1 : 0;
  }
  return depth === 0 ? found : [...found, `(${depth} unclosed at the end)`];
}

describe("stylesheets", () => {
  it("are checked for a rule left open", () => {
    expect(swallowedSelectors(".a {\n  color: red;\n\n.b {\n}\n")).toEqual([".b {", "(1 unclosed at the end)"]);
    expect(swallowedSelectors(".a {\n}\n\n.b {\n}\n")).toEqual([]);
  });

  for (const file of ["widget.css", "components/inbox.css"]) {
    it(`${file} closes every rule`, () => {
      const css = readFileSync(resolve(__dirname, "../src", file), "utf8");
      expect(css).toContain(".pp-");
      expect(swallowedSelectors(css)).toEqual([]);
    });
  }
});
