import { afterEach, describe, expect, it, vi } from "vitest";
import { answerText } from "../src/components/Branches";
import { LIST_ROWS } from "../src/components/DebugPanel";
import type { Item } from "../src/types";
import { finished, T } from "./fixtures-past";
import { click, FakeModel, initialize, mount, openDebug, typeInto, within } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

/** The clock at `minutes` after the fixture's run began. */
function minutesLater(minutes: number): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(Date.UTC(2025, 0, 1) + minutes * 60_000));
}

function setup(attrs: Record<string, unknown> = {}) {
  const model = new FakeModel({ status: "completed", items: finished, ...attrs });
  const dispose = initialize(model);
  const view = mount(model);
  return { model, view, done: () => (view.cleanup(), dispose()) };
}

describe("the step slider", () => {
  it("is drawn only while the Debug panel is open", () => {
    const { view, done } = setup();
    expect(view.q("pp-scrubber")).toBeNull();
    openDebug(view);
    const range = view.get("pp-scrubber-range") as HTMLInputElement;
    expect(range.type).toBe("range");
    expect(range.labels?.[0]?.textContent).toBe("Go back to a step");
    expect([range.min, range.max, range.value]).toEqual(["0", "7", "7"]);
    expect(range.getAttribute("aria-valuetext")).toBe("Now (live)");
    done();
  });

  it("shows the run as it was while it waited for the approval, read-only, then live again", () => {
    const { view, done } = setup();
    openDebug(view);
    const range = view.get("pp-scrubber-range") as HTMLInputElement;
    typeInto(range, "4");
    expect(range.getAttribute("aria-valuetext")).toBe("Step 5 of 7: Waiting for a person: refund");
    const past = within(view.get("pp-past"));
    expect(past.get("pp-past-status").dataset.status).toBe("interrupted");
    expect(past.get("pp-past-status").textContent).toBe("Waiting for an answer");
    const cards = past.qa("pp-past-card");
    expect(cards.map((c) => c.dataset.kind)).toEqual(["tool-approval"]);
    expect(cards[0]!.textContent).toContain("Refund 500 cents?");
    expect(view.get("pp-past").querySelectorAll("button:not(.pp-button-quiet), input, textarea")).toHaveLength(0);
    const calls = past.qa("pp-tool-call");
    expect(calls.map((c) => [c.dataset.name, c.dataset.status])).toEqual([
      ["lookup", "succeeded"],
      ["refund", "interrupted"],
    ]);
    expect(view.get("pp-past").textContent).not.toContain("Refund succeeded.");
    expect(view.qa("pp-waterfall-row")[4]!.getAttribute("aria-current")).toBe("step");
    // The live transcript is untouched.
    expect(view.el.querySelector('.pp-transcript:not(.pp-past .pp-transcript) [data-name="refund"]')!.getAttribute("data-status")).toBe("succeeded");

    click(view.get("pp-scrubber-live"));
    expect(view.q("pp-past")).toBeNull();
    expect(range.getAttribute("aria-valuetext")).toBe("Now (live)");
    done();
  });

  it("says when that moment was, relative to now, with the exact time on hover", () => {
    minutesLater(12);
    const { view, done } = setup();
    openDebug(view);
    typeInto(view.get("pp-scrubber-range"), "4");
    const head = view.get("pp-past").querySelector(".pp-past-head")!;
    const when = within(head).get("pp-when");
    expect(when.textContent).toBe("12 min ago");
    expect(when.getAttribute("title")).toBe(new Date(T(1.4)).toLocaleString());
    expect(head.textContent).toContain("As it was 12 min ago · read-only");
    expect(head.textContent).not.toContain(new Date(T(1.4)).toLocaleString());
    expect(head.textContent).not.toMatch(/interrupt/i);
    done();
  });

  it("counts the answers waiting at that moment in words", () => {
    const waiting = (id: string, at: number) => ({
      type: "tool",
      id,
      name: "refund",
      input: { order: id },
      status: "interrupted",
      result: null,
      error: null,
      interrupts: [
        {
          id: `i-${id}`,
          kind: "tool-approval",
          message: `Refund ${id}?`,
          data: null,
          state: null,
          response_schema: null,
          created_at: T(at),
          expires_at: null,
          resolution: null,
        },
      ],
    });
    const items = [
      { type: "user", text: "Refund both" },
      {
        type: "assistant",
        text: "",
        tool_calls: [
          { id: "a", name: "refund", input: { order: "a" } },
          { id: "b", name: "refund", input: { order: "b" } },
        ],
        call: { model: "scripted", started_at: T(0), ended_at: T(0.1), usage: null, finish_reason: null },
      },
      waiting("a", 1),
      waiting("b", 1.1),
    ] as unknown as Item[];
    const { view, done } = setup({ status: "interrupted", items });
    openDebug(view);
    typeInto(view.get("pp-scrubber-range"), "2");
    const status = within(view.get("pp-past")).get("pp-past-status");
    expect(status.textContent).toBe("Waiting for 2 answers");
    expect(within(view.get("pp-past")).qa("pp-past-card")).toHaveLength(2);
    done();
  });

  it("moved to the right end follows the run live", () => {
    const { view, done } = setup();
    openDebug(view);
    typeInto(view.get("pp-scrubber-range"), "2");
    expect(view.q("pp-past")).not.toBeNull();
    typeInto(view.get("pp-scrubber-range"), "7");
    expect(view.q("pp-past")).toBeNull();
    expect(view.q("pp-scrubber-live")).toBeNull();
    done();
  });

  it("stays small over a 2,000-call run: one slider and one state drawn", () => {
    const items: Item[] = [{ type: "user", text: "go" }];
    for (let n = 0; n < 2000; n += 1) {
      const s = n * 0.01;
      items.push(
        {
          type: "assistant",
          text: "",
          tool_calls: [{ id: `c${n}`, name: "lookup", input: { n } }],
          call: { model: "m", started_at: T(s), ended_at: T(s + 0.002), usage: null, finish_reason: null },
        },
        {
          type: "tool",
          id: `c${n}`,
          name: "lookup",
          input: { n },
          status: "succeeded",
          result: n,
          error: null,
          interrupts: [],
          started_at: T(s + 0.003),
          ended_at: T(s + 0.004),
        },
      );
    }
    const { view, done } = setup({ items });
    openDebug(view);
    typeInto(view.get("pp-scrubber-range"), "3000");
    expect(view.get("pp-scrubber-range").getAttribute("aria-valuetext")).toBe("Step 3001 of 4000: Asking the model (m)");
    expect(view.get("pp-scrubber").querySelectorAll("*").length).toBeLessThan(1000);
    expect(within(view.get("pp-past")).get("pp-earlier").textContent).toContain("1,461 earlier steps");
    // The waterfall sums the 4,000 steps into bands, with the slider's step marked.
    expect(view.get("pp-waterfall").dataset.mode).toBe("bands");
    expect(view.qa("pp-waterfall-row")).toHaveLength(0);
    expect(view.q("pp-waterfall-current")).not.toBeNull();
    expect(view.get("pp-waterfall-range").textContent).toContain("Steps 1–4,000 of 4,000");
    // The panel's list of turns shows the last ones; the whole view stays small.
    const turns = view.qa("pp-debug-turn");
    expect(turns.map((t) => t.dataset.turn)).toEqual(Array.from({ length: LIST_ROWS }, (_, i) => String(2000 - LIST_ROWS + i)));
    expect(view.el.querySelectorAll("*").length).toBeLessThan(5000);
    click(view.get("pp-debug-more"));
    expect(view.qa("pp-debug-turn")).toHaveLength(LIST_ROWS * 11);
    expect(view.qa("pp-debug-turn")[0]!.dataset.turn).toBe(String(2000 - LIST_ROWS * 11));
    done();
  });
});

describe("the Debug panel's answers and forks", () => {
  it("lists what you answered in words, when, each with Fork here", () => {
    minutesLater(12);
    const { view, done } = setup();
    openDebug(view);
    const rows = view.qa("pp-answered");
    expect(rows.map((row) => [row.dataset.kind, row.dataset.decision])).toEqual([
      ["breakpoint", "continued"],
      ["tool-approval", "approved"],
    ]);
    expect(rows[0]!.textContent).toContain("Breakpoint before lookup: Continued");
    expect(rows[1]!.textContent).toContain("Approval of refund: Approved");
    const when = within(rows[1]!).get("pp-when");
    expect(when.textContent).toBe("12 min ago");
    expect(when.getAttribute("title")).toBe(new Date(T(3)).toLocaleString());
    expect(within(rows[1]!).get("pp-fork-here").textContent).toBe("Fork here");
    const panel = view.get("pp-debug");
    expect(panel.textContent).toContain("What you answered");
    expect(panel.textContent).not.toMatch(/interrupt|resolution|resume/i);
    done();
  });

  it("names each fork by where it began, its status in words and how to show it in code, the run id on hover", () => {
    const { view, done } = setup({ forks: [forkInfo] });
    openDebug(view);
    const row = view.get("pp-fork");
    expect(row.textContent).toContain("Fork 0, at the approval of refund · Waiting for an answer · in code: run.forks[0]");
    expect(row.textContent).not.toContain("run-fork");
    expect(row.querySelector('code[title="Run run-fork"]')!.textContent).toBe("run.forks[0]");
    expect(view.get("pp-debug").textContent).not.toMatch(/interrupt|at ap\b/i);
    done();
  });
});

const forkInfo = { runId: "run-fork", interruptId: "ap", status: "interrupted", items: 5 };

function branchesValue(forkAnswer: unknown, forkStatus = "completed") {
  const refund = finished[4] as Extract<Item, { type: "tool" }>;
  return {
    interruptId: "ap",
    kind: "tool-approval",
    toolName: "refund",
    message: "Refund 500 cents?",
    parent: { runId: "run-1", status: "completed", answer: refund.interrupts![0]!.resolution, items: finished.slice(4) },
    fork: {
      runId: "run-fork",
      status: forkStatus,
      answer: forkAnswer,
      items: [
        { ...refund, status: "rejected", result: null, error: { name: "Rejected", message: "not today" } },
        { type: "assistant", text: "Refund rejected.", tool_calls: [] },
      ],
    },
  };
}

describe("comparing a fork with this run", () => {
  it("asks the kernel for both branches and shows what each answered and what followed", async () => {
    const { model, view, done } = setup({ forks: [forkInfo] });
    openDebug(view);
    expect(view.get("pp-compare").getAttribute("aria-expanded")).toBe("false");
    click(view.get("pp-compare"));
    expect(model.lastRequest()).toMatchObject({ type: "branches", fork: "run-fork" });
    await model.respond({ ok: true, value: branchesValue({ type: "reject", error: { name: "Rejected", message: "not today" }, at: T(5) }) });

    const columns = view.qa("pp-branch");
    expect(columns.map((c) => c.dataset.branch)).toEqual(["parent", "fork"]);
    const answers = columns.map((c) => within(c).get("pp-branch-answer").textContent!.trim());
    expect(answers).toEqual(["Approved", "Declined: not today"]);
    expect(columns[0]!.textContent).toContain("Refund succeeded.");
    expect(columns[1]!.textContent).toContain("Refund rejected.");
    expect(within(columns[1]!).get("pp-tool-call").dataset.status).toBe("rejected");
    expect(view.get("pp-compare").getAttribute("aria-expanded")).toBe("true");
    done();
  });

  it("asks again when the fork moves on, and on Refresh", async () => {
    const { model, view, done } = setup({ forks: [forkInfo] });
    openDebug(view);
    click(view.get("pp-compare"));
    await model.respond({ ok: true, value: branchesValue(null, "interrupted") });
    expect(within(view.qa("pp-branch")[1]!).get("pp-branch-answer").textContent!.trim()).toBe("Not answered yet");
    const before = model.sent.length;

    model.setTrait("forks", [{ ...forkInfo, status: "completed", items: 6 }]);
    expect(model.sent.length).toBe(before + 1);
    expect(model.lastRequest()).toMatchObject({ type: "branches", fork: "run-fork" });
    await model.respond({ ok: true, value: branchesValue({ type: "reject", error: { name: "Rejected", message: "not today" }, at: T(5) }) });
    expect(within(view.qa("pp-branch")[1]!).get("pp-branch-answer").textContent!.trim()).toBe("Declined: not today");

    click(view.get("pp-branches-refresh"));
    expect(model.sent.length).toBe(before + 2);
    done();
  });

  it("shows the kernel's refusal", async () => {
    const { model, view, done } = setup({ forks: [forkInfo] });
    openDebug(view);
    click(view.get("pp-compare"));
    await model.respond({ ok: false, error: { name: "UsageError", message: "Run run-1 has no fork 'run-fork' in this kernel" } });
    expect(view.get("pp-branches").textContent).toContain("has no fork");
    expect(view.qa("pp-branch")).toHaveLength(0);
    done();
  });
});

describe("answers in words", () => {
  it("word approvals, rejections, breakpoints and answers", () => {
    expect(answerText("tool-approval", { type: "resume", data: true })).toBe("Approved");
    expect(answerText("tool-approval", { type: "resume", data: { approved: true, editedArgs: { cents: 5 } } })).toBe("Approved with changes");
    expect(answerText("tool-approval", { type: "resume", data: false })).toBe("Declined");
    expect(answerText("tool-approval", { type: "reject", error: { name: "Rejected", message: "" } })).toBe("Declined");
    expect(answerText("breakpoint", { type: "resume", data: { action: "skip" } })).toBe("Skipped");
    expect(answerText("generic", { type: "resume", data: { city: "Oslo" } })).toBe("Answered: city: Oslo");
    expect(answerText("generic", null)).toBe("Not answered yet");
  });
});
