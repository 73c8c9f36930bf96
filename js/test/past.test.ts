import { describe, expect, it } from "vitest";
import { instant, stateAt, stepsOf, stepTitle } from "../src/lib/past";
import type { Item, ToolItem } from "../src/types";
import { finished, T } from "./fixtures-past";

const tool = (items: Item[], id: string) => items.find((i) => i.type === "tool" && i.id === id) as ToolItem | undefined;

describe("steps", () => {
  it("are the model requests, actions, waits and breakpoints in the order they began", () => {
    const steps = stepsOf(finished);
    expect(steps.map((s) => s.kind)).toEqual(["model", "breakpoint", "action", "model", "wait", "action", "model"]);
    expect(steps.map(stepTitle)).toContain("Waiting for a person: refund");
    expect(steps[4]!.end! - steps[4]!.start).toBe(1_600_000);
  });

  it("keep the kernel's microseconds apart", () => {
    expect(instant("2025-01-01T00:00:00.000002Z") - instant("2025-01-01T00:00:00.000001Z")).toBe(1);
    expect(instant("2025-01-01T00:00:00Z")).toBe(instant("2025-01-01T00:00:00.000000+00:00"));
    expect(instant("2025-01-01T01:00:00+01:00")).toBe(instant("2025-01-01T00:00:00Z"));
    expect(Number.isNaN(instant(null))).toBe(true);
  });

  it("read each form of an ISO time to its microsecond, and nothing else as one", () => {
    const at = (ms: number, us = 0) => ms * 1000 + us;
    const base = Date.UTC(2026, 11, 2, 7, 10, 9);
    const cases: Array<[string, number]> = [
      ["2026-12-02T07:10:09.696702Z", at(base, 696_702)],
      ["2026-12-02T07:10:09.696702+00:00", at(base, 696_702)],
      ["2026-12-02T09:10:09.696702+02:00", at(base, 696_702)],
      ["2026-12-02T02:40:09.696702-04:30", at(base, 696_702)],
      ["2026-12-02T07:10:09Z", at(base)],
      ["2026-12-02T07:10:09", at(base)],
      ["2026-12-02T07:10:09.5Z", at(base, 500_000)],
      ["2026-12-02T07:10:09.1234567Z", at(base, 123_456)],
    ];
    for (const [text, us] of cases) expect([text, instant(text)]).toEqual([text, us]);
    // Not a time: the general reading (Date.parse) says so.
    for (const text of ["2026-13-02T07:10:09Z", "2026-12-02T07:10:09.Z", "2026-12-02T07:10:09+0200x", "yesterday"]) {
      expect([text, Number.isNaN(instant(text))]).toEqual([text, true]);
    }
  });
});

describe("the run as it was at a step", () => {
  const steps = stepsOf(finished);

  it("while it waited for the approval: the card pending, the call waiting, nothing later", () => {
    const past = stateAt(finished, steps, 4);
    expect(past.status).toBe("interrupted");
    expect(past.cards.map((c) => [c.id, c.kind, c.toolName, c.canResolve])).toEqual([["ap", "tool-approval", "refund", false]]);
    expect(past.cards[0]!.args).toEqual({ cents: 500 });
    const refund = tool(past.items, "c-refund")!;
    expect(refund.status).toBe("interrupted");
    expect(refund.result).toBeUndefined();
    expect(refund.interrupts!.map((e) => e.resolution)).toEqual([null]);
    expect(tool(past.items, "c-lookup")).toBe(finished[2]); // settled by then: as recorded
    expect(past.items.some((i) => i.type === "assistant" && i.text === "Refund succeeded.")).toBe(false);
    expect(past.items).toHaveLength(5);
  });

  it("shows a pause with the arguments edited before it", () => {
    const edited = finished.map((item) =>
      item.type === "tool" && item.id === "c-refund"
        ? {
            ...item,
            interrupts: [
              {
                ...item.interrupts![0]!,
                id: "bp2",
                kind: "breakpoint",
                created_at: T(1.35),
                resolution: { type: "resume", data: { action: "edit", args: { cents: 40 } }, at: T(1.38) },
              },
              ...item.interrupts!,
            ],
          }
        : item,
    ) as Item[];
    const all = stepsOf(edited);
    const atBreakpoint = stateAt(
      edited,
      all,
      all.findIndex((s) => s.kind === "breakpoint" && s.label === "refund"),
    );
    expect(atBreakpoint.cards[0]!.args).toEqual({ cents: 500 });
    const atApproval = stateAt(
      edited,
      all,
      all.findIndex((s) => s.kind === "wait"),
    );
    expect(atApproval.cards.map((c) => [c.id, c.args])).toEqual([["ap", { cents: 40 }]]);
  });

  it("at the breakpoint before lookup: that pause pending, the refund not yet asked for", () => {
    const past = stateAt(finished, steps, 1);
    expect(past.cards.map((c) => c.kind)).toEqual(["breakpoint"]);
    expect(tool(past.items, "c-lookup")!.status).toBe("interrupted");
    expect(tool(past.items, "c-refund")).toBeUndefined();
  });

  it("while the approved refund ran: running, answered, no card, no result yet", () => {
    const past = stateAt(finished, steps, 5);
    expect(past.status).toBe("running");
    expect(past.cards).toEqual([]);
    const refund = tool(past.items, "c-refund")!;
    expect(refund.status).toBe("running");
    expect(refund.result).toBeUndefined();
    expect(refund.interrupts![0]!.resolution?.type).toBe("resume");
  });

  it("at the first model request: only the user's message", () => {
    const past = stateAt(finished, steps, 0);
    expect(past.items).toEqual([finished[0]]);
    expect(past.status).toBe("running");
  });

  it("settles a rejected call at its rejection when it never ran", () => {
    const rejected = finished.map((item) =>
      item.type === "tool" && item.id === "c-refund"
        ? {
            ...item,
            status: "rejected",
            result: null,
            started_at: null,
            ended_at: null,
            error: { name: "Rejected", message: "no" },
            interrupts: [{ ...item.interrupts![0]!, resolution: { type: "reject", error: { name: "Rejected", message: "no" }, at: T(3) } }],
          }
        : item,
    ) as Item[];
    const all = stepsOf(rejected);
    const last = stateAt(rejected, all, all.length - 1);
    expect(tool(last.items, "c-refund")!.status).toBe("rejected");
    const waiting = stateAt(
      rejected,
      all,
      all.findIndex((s) => s.kind === "wait"),
    );
    expect(tool(waiting.items, "c-refund")!.status).toBe("interrupted");
  });

  it("shows an item with no recorded time with the one before it", () => {
    const note = { type: "user", text: "Also check order 43" };
    const withNote = [...finished.slice(0, 3), note, ...finished.slice(3)] as Item[];
    const all = stepsOf(withNote);
    expect(stateAt(withNote, all, 0).items).not.toContain(note);
    expect(stateAt(withNote, all, 1).items).toContain(note); // the lookup call appeared then
  });

  it("refuses a run with no steps", () => {
    expect(() => stateAt([{ type: "user", text: "hi" }], [], 0)).toThrow(RangeError);
  });
});
