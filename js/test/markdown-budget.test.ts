import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_CHARS, markdown, markdownNow, parseWithin, TASK_MS, TEXT_MS, useMarkdownClock, whenFormatted } from "../src/lib/markdown";
import { figure } from "./figures";
import { FakeModel, mount } from "./helpers";

/** The bound the view promises: any text is formatted or falls back to plain text within it.
 * Chromium shows it (tests/browser/test_hostile_markdown.py). Here each case's time is a
 * figure printed against the bound, never asserted (`make bench-view` collects them): the
 * tests assert what the view shows. */
const BOUND_MS = 50;

/** Nested emphasis with fewer marks than MAX_MARKS: costly, yet parsed, so the clock stops it. */
const NESTED = `${"*a ".repeat(450)}${"a* ".repeat(450)}`;

const repeat = (unit: string, times: number) => unit.repeat(times).slice(0, MAX_CHARS);
const lines = (count: number, line: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => line(i))
    .join("\n")
    .slice(0, MAX_CHARS);

// Each is at most MAX_CHARS, so no size limit stops it before the parser.
const PATHOLOGICAL: [string, string][] = [
  ["nested emphasis (the issue's payload)", `${"*a ".repeat(3300)}${"a* ".repeat(3300)}`],
  ["nested emphasis, fewer marks", NESTED],
  ["nested underscores, fewer marks", `${"_a ".repeat(450)}${"a_ ".repeat(450)}${"b ".repeat(5000)}`],
  ["nested underscores", `${"_a ".repeat(3300)}${"a_ ".repeat(3300)}`],
  ["nested strikethrough", `${"~a ".repeat(3300)}${"a~ ".repeat(3300)}`],
  ["nested strong", `${"**a ".repeat(2400)}${"a** ".repeat(2400)}`],
  ["mixed delimiters", `${"*_a ".repeat(2400)}${"a_* ".repeat(2400)}`],
  ["emphasis across lines", `${"*a\n".repeat(3300)}${"a*\n".repeat(3300)}`],
  ["openers only", repeat("*a ", 6600)],
  ["closers only", repeat("a* ", 6600)],
  ["alternating delimiters", repeat("*a_ ", 5000)],
  ["tilde runs", repeat("~~a ", 5000)],
  ["underscore words", repeat("a_a ", 5000)],
  ["open brackets", repeat("[a ", 6600)],
  ["nested brackets", repeat("[[[[ ", 4000)],
  ["image openers", repeat("![a ", 5000)],
  ["link openers", repeat("[a]( ", 4000)],
  ["many links", repeat("[a](https://a.example) ", 900)],
  ["link reference chain", `${lines(600, (i) => `[r${i}]: https://x.example/${i}`)}\n\n${lines(600, (i) => `[r${i}][r${i + 1}]`)}`.slice(0, MAX_CHARS)],
  ["undefined references", repeat("[a][b] ", 2800)],
  ["backtick runs", Array.from({ length: 190 }, (_, i) => `${"`".repeat(i + 1)} `).join("")],
  ["unclosed code spans", repeat("`a ", 6600)],
  ["angle brackets", repeat("<a ", 6600)],
  ["html openers", repeat("<a href=", 2400)],
  ["html comments", repeat("<!-- ", 4000)],
  ["autolinks", repeat("<https://a.example> ", 1000)],
  ["bare addresses", repeat("www.a.example ", 1400)],
  ["e-mail look-alikes", repeat("a@b. ", 3900)],
  ["entities", repeat("&amp; ", 3300)],
  ["escapes", repeat("\\* ", 6600)],
  ["long table", `| a | b |\n|---|---|\n${repeat("| x | y |\n", 2200)}`],
  ["wide table", `${repeat("| a ", 2400)}|\n${repeat("|---", 2400)}|`],
  ["table of delimiters", `| a | b |\n|---|---|\n${repeat("| *a | a* |\n", 1700)}`],
  ["list items", repeat("- a\n", 5000)],
  ["quote lines", repeat("> a\n", 5000)],
  ["headings", repeat("# a\n", 5000)],
  ["setext headings", repeat("a\n=\n", 3300)],
  ["fences", repeat("```\na\n", 2800)],
  ["indented code", repeat("    a\n", 3300)],
  ["blank lines", "\n".repeat(MAX_CHARS)],
];

/** What `work` returns and the milliseconds it took. Wall time counts pauses of a busy
 * machine, CPU time the collector's own threads: each only overstates, so the smaller. */
function timed<T>(work: () => T): [T, number] {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const result = work();
  const used = process.cpuUsage(cpu);
  return [result, Math.min(performance.now() - wall, (used.user + used.system) / 1000)];
}

// These tests are of the time bounds: the page's own clock (test/setup.ts stops it for the
// others).
beforeAll(() => useMarkdownClock());
afterAll(() => useMarkdownClock(() => 0));

afterEach(() => {
  vi.restoreAllMocks();
  document.body.innerHTML = "";
});

describe("the markdown budget", () => {
  it("knows its limits", () => {
    expect(TEXT_MS).toBeLessThan(BOUND_MS);
    expect(TASK_MS + TEXT_MS).toBeLessThan(100);
  });

  it.each(PATHOLOGICAL)("formats %s or shows it as plain text, its time a figure", (name, body) => {
    const text = `${body.slice(0, MAX_CHARS - 20)} ${Math.random()}`;
    markdown("warm *up*");
    // The parse is what the clock bounds.
    const [parsed, spent] = timed(() => parseWithin(text));
    figure(`markdown parse of ${name}`, spent, BOUND_MS);
    if (parsed !== "out-of-time" && "plain" in parsed) expect(["too-long", "too-deep", "too-costly"]).toContain(parsed.plain);
    // What the view shows: formatted, or plain text with a reason.
    const result = markdown(text);
    if ("plain" in result) expect(["too-long", "too-deep", "too-costly"]).toContain(result.plain);
  });

  it("gives a text that ran out of time a second try in a later task", async () => {
    const text = `*slow* ${Math.random()}`;
    markdown("warm *up*");
    let now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => (now += TEXT_MS));
    expect(markdownNow(text)).toBeNull();
    vi.restoreAllMocks();
    await new Promise<void>((done) => whenFormatted(text, done));
    const result = markdownNow(text);
    expect(result && "html" in result && result.html).toContain("<em>slow</em>");
  });

  it("shows the issue's payload as plain text without parsing it", () => {
    const text = `${"*a ".repeat(3300)}${"a* ".repeat(3300)}${Math.random()}`;
    markdown("warm *up*");
    // A parse sets its deadline from the clock first: this one never looks at it.
    const clock = vi.spyOn(performance, "now");
    expect(markdown(text)).toEqual({ plain: "too-costly" });
    expect(clock).not.toHaveBeenCalled();
  });

  it("gives up on a text that runs out of time twice", async () => {
    const text = `${NESTED} ${Math.random()}`;
    expect(markdownNow(text)).toBeNull();
    await new Promise<void>((done) => whenFormatted(text, done));
    expect(markdownNow(text)).toEqual({ plain: "too-costly" });
  });

  it("formats in one task only as many texts as fit its time, the rest in later tasks", async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `${NESTED} ${i} ${Math.random()}`);
    markdown("warm *up*");
    const [now, spent] = timed(() => texts.map(markdownNow));
    expect(now.filter((r) => r === null).length).toBeGreaterThan(15);
    figure("one task formatting twenty costly texts", spent, TASK_MS + TEXT_MS);
    await Promise.all(texts.map((text) => new Promise<void>((done) => whenFormatted(text, done))));
    for (const text of texts) expect(markdownNow(text)).toEqual({ plain: "too-costly" });
  });

  it("shows twenty costly turns as plain text at once, each noted once settled", async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({
      type: "assistant" as const,
      text: `${NESTED} turn ${i} ${Math.random()}`,
      tool_calls: [],
    }));
    markdown("warm *up*");
    const view = mount(new FakeModel({ items }));
    const plain = () => view.el.querySelectorAll(".pp-plain .pp-plain-text");
    expect(plain()).toHaveLength(20);
    expect(plain()[19]!.textContent).toContain("turn 19");
    await vi.waitFor(() => expect(view.qa("pp-plain-note")).toHaveLength(20), { timeout: 10_000 });
    expect(view.get("pp-plain-note").textContent).toBe("Shown as plain text: it would take too long to format.");
    view.cleanup();
  });
});
