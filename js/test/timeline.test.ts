import { describe, expect, it } from "vitest";
import { stepsOf } from "../src/lib/past";
import type { Item } from "../src/types";

const items = [
  { type: "user", text: "Refund" },
  {
    type: "assistant",
    text: "",
    tool_calls: [{ id: "c1", name: "refund", input: {} }],
    call: { model: "m", started_at: "2025-01-01T00:00:00.000Z", ended_at: "2025-01-01T00:00:00.250Z", usage: null, finish_reason: null },
  },
  {
    type: "tool",
    id: "c1",
    name: "refund",
    input: {},
    status: "running",
    started_at: "2025-01-01T00:00:03.000Z",
    ended_at: null,
    interrupts: [
      {
        id: "b",
        kind: "breakpoint",
        message: "",
        data: null,
        state: null,
        response_schema: null,
        created_at: "2025-01-01T00:00:00.300Z",
        expires_at: null,
        resolution: { type: "resume", data: { action: "continue" }, at: "2025-01-01T00:00:01.000Z" },
      },
      {
        id: "a",
        kind: "tool-approval",
        message: "",
        data: null,
        state: null,
        response_schema: null,
        created_at: "2025-01-01T00:00:01.000Z",
        expires_at: null,
        resolution: { type: "resume", data: true, at: "2025-01-01T00:00:03.000Z" },
      },
    ],
  },
] as unknown as Item[];

describe("timeline", () => {
  it("has one bar per model request, action, wait for a person and breakpoint, in time order", () => {
    const bars = stepsOf(items);
    expect(bars.map((b) => b.kind)).toEqual(["model", "breakpoint", "wait", "action"]);
    expect(bars[0]!.end! - bars[0]!.start).toBe(250_000); // microseconds
    expect(bars[2]!.end! - bars[2]!.start).toBe(2_000_000);
    expect(bars[3]!.end).toBeNull(); // still running
  });
});
