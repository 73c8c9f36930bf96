/** An inbox listing waiting runs, as the kernel would send it to the triage list. */
import { expect } from "vitest";
import { PAGE_ROWS } from "../src/lib/triage";
import { approvalCard, FakeModel, initialize, mount } from "./helpers";

/** The waiting run at `index` as a row of the list. */
export const triageRow = (i: number, extra: Record<string, unknown> = {}) => ({
  runId: `run-${i}`,
  title: `Refund customer ${i}`,
  agent: "payments",
  status: "waiting",
  kind: "tool-approval",
  tool: "refund",
  message: `Refund ${i}?`,
  pauses: 1,
  arguments: { amount: i, customer: `customer ${i}` },
  since: "2025-01-01T00:05:00Z",
  ignoredBy: null,
  ignoredAt: null,
  damaged: null,
  answerable: true,
  ...extra,
});

/** The reply to a `list` request for the page at `offset` of `total` waiting runs. */
export function triagePage(offset: number, total: number, count = PAGE_ROWS) {
  return {
    rows: Array.from({ length: Math.max(0, Math.min(count, total - offset)) }, (_, i) => triageRow(offset + i)),
    total,
    offset,
    agents: [["payments", total]],
    kinds: [["tool-approval", total]],
    keys: ["amount", "customer"],
  };
}

/** An inbox of `total` waiting runs, its first page answered. */
export async function listedInbox(total: number) {
  const model = new FakeModel({ view: "inbox", entries: [], total, refreshed_at: "2025-01-01T00:06:00Z", bulk: {} });
  const dispose = initialize(model);
  const view = mount(model);
  const asked = model.lastRequest();
  expect(asked).toMatchObject({ type: "list", filter: { status: "waiting" }, sort: "newest", offset: 0, limit: PAGE_ROWS });
  await model.respond({ ok: true, value: triagePage(0, total) }, asked);
  return { model, view, done: () => (view.cleanup(), dispose()) };
}

/** The reply to an `open` request for the run at `index`: its thread and its card. */
export const openedRun = (i: number) => ({
  runId: `run-${i}`,
  agent: "payments",
  title: `Refund customer ${i}`,
  createdAt: "2025-01-01T00:00:00Z",
  updatedAt: "2025-01-01T00:05:00Z",
  reason: null,
  cards: [{ ...approvalCard, id: `int-${i}`, runId: `run-${i}` }],
  thread: { items: [{ role: "user", text: `Refund customer ${i}` }], earlier: 0 },
});
