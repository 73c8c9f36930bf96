/** A finished run with a breakpoint before lookup and an approval of refund, with times. */
import type { Item } from "../src/types";

export const T = (seconds: number): string => new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString().replace("Z", "000Z");

const entry = (id: string, kind: string, created: number, answered: number | null, data: unknown = true) => ({
  id,
  kind,
  message: kind === "breakpoint" ? "Paused before the action." : "Refund 500 cents?",
  data: null,
  state: null,
  response_schema: null,
  created_at: T(created),
  expires_at: null,
  resolution: answered === null ? null : { type: "resume", data, at: T(answered) },
});

const turn = (start: number, end: number, calls: Array<{ id: string; name: string; input: unknown }>, text = "") => ({
  type: "assistant",
  text,
  tool_calls: calls,
  call: { model: "scripted", started_at: T(start), ended_at: T(end), usage: null, finish_reason: null },
});

export const finished = [
  { type: "user", text: "Refund order 42" },
  turn(0, 0.1, [{ id: "c-lookup", name: "lookup", input: { order: 42 } }]),
  {
    type: "tool",
    id: "c-lookup",
    name: "lookup",
    input: { order: 42 },
    status: "succeeded",
    result: { total: 12000 },
    started_at: T(1),
    ended_at: T(1.1),
    interrupts: [entry("bp", "breakpoint", 0.2, 1, { action: "continue" })],
  },
  turn(1.2, 1.3, [{ id: "c-refund", name: "refund", input: { cents: 500 } }]),
  {
    type: "tool",
    id: "c-refund",
    name: "refund",
    input: { cents: 500 },
    status: "succeeded",
    result: "refunded 500",
    started_at: T(3),
    ended_at: T(3.1),
    interrupts: [entry("ap", "tool-approval", 1.4, 3)],
  },
  turn(3.2, 3.3, [], "Refund succeeded."),
] as unknown as Item[];
