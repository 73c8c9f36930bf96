/** The view speaks to people: what was decided instead of counts of interrupts, times
 * relative to now with the exact time on hover, and the run id behind the Copy menu. */
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { InterruptEntry, Item, ToolItem } from "../src/types";
import { approvalCard, click, FakeModel, flushMicrotasks, initialize, mount, within } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

const NOW = new Date("2026-12-01T16:34:15Z");

function entry(extra: Partial<InterruptEntry>): InterruptEntry {
  return {
    id: "i1",
    kind: "tool-approval",
    message: "Approve running refund_order?",
    data: { toolName: "refund_order", args: { order_id: 42 } },
    state: null,
    response_schema: null,
    created_at: "2026-12-01T16:22:15Z",
    expires_at: null,
    resolution: null,
    ...extra,
  } as InterruptEntry;
}

function call(interrupts: InterruptEntry[], extra: Partial<ToolItem> = {}): ToolItem {
  return {
    type: "tool",
    id: "c1",
    name: "refund_order",
    input: { order_id: 42 },
    status: "succeeded",
    result: { ok: true },
    error: null,
    interrupts,
    ...extra,
  } as ToolItem;
}

function open(items: Item[]) {
  const view = mount(new FakeModel({ items }));
  const row = view.get("pp-tool-call");
  if (!(row as HTMLDetailsElement).open) click(row.querySelector("summary")!);
  return { view, row };
}

describe("a tool call's row", () => {
  it("says what was decided, not how many interrupts there were", () => {
    const { view, row } = open([call([entry({ resolution: { type: "resume", data: true, at: "2026-12-01T16:30:00Z" } })])]);
    const summary = row.querySelector("summary")!;
    expect(summary.textContent).not.toMatch(/interrupt/i);
    // The decision is its own line in the thread, once, not repeated on the row.
    expect(view.qa("pp-decision").map((line) => line.dataset.decision)).toEqual(["approved"]);
    expect(summary.textContent).not.toContain("Approved");
    view.cleanup();
  });

  it("gives the last decision in words, a reason included", () => {
    const declined = entry({ id: "i2", resolution: { type: "reject", error: { name: "Rejected", message: "not today" }, at: "2026-12-01T16:31:00Z" } });
    const { view } = open([call([entry({ resolution: { type: "resume", data: true, at: undefined } }), declined], { status: "rejected", result: null })]);
    expect(view.qa("pp-decision").at(-1)!.textContent).toContain("Declined: not today");
    view.cleanup();
  });

  it("says nothing extra while it waits: its status says so", () => {
    const { view, row } = open([call([entry({})], { status: "interrupted", result: null })]);
    expect(view.q("pp-decision")).toBeNull();
    expect(within(row).get("pp-tool-status").textContent).toBe("waiting for you");
    view.cleanup();
  });

  it("heads the history with what you were asked, without repeating the call as data", () => {
    const { view, row } = open([call([entry({ resolution: { type: "resume", data: true, at: undefined } })])]);
    const history = row.querySelector(".pp-history")!.parentElement!;
    expect(history.textContent).toContain("What you were asked");
    expect(row.textContent).not.toContain("Interrupt history");
    const item = within(row).get("pp-interrupt-entry");
    expect(item.textContent).not.toContain("Data");
    expect(item.textContent).not.toContain("#1");
    view.cleanup();
  });

  it("keeps data that says more than the call's name and arguments", () => {
    const other = entry({ data: { toolName: "refund_order", args: { order_id: 7 } }, resolution: { type: "resume", data: true, at: undefined } });
    const extra = entry({
      id: "i2",
      data: { toolName: "refund_order", args: { order_id: 42 }, risk: "high" },
      resolution: { type: "resume", data: true, at: undefined },
    });
    const { view, row } = open([call([other, extra])]);
    const [first, second] = within(row).qa("pp-interrupt-entry");
    expect(first!.textContent).toContain("Data");
    expect(first!.textContent).toContain('"order_id": 7');
    expect(second!.textContent).toContain('"risk": "high"');
    expect(second!.textContent).toContain("#2");
    view.cleanup();
  });

  it("tells times relative to now, with the exact time on hover", () => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
    const { view, row } = open([call([entry({ resolution: { type: "resume", data: true, at: "2026-12-01T16:31:15Z" } })])]);
    const times = within(row).qa("pp-when");
    expect(times.map((t) => t.textContent)).toEqual(["12 min ago", "3 min ago"]);
    expect(times[0]!.getAttribute("title")).toBe(new Date("2026-12-01T16:22:15Z").toLocaleString());
    expect(times[0]!.getAttribute("datetime")).toBe("2026-12-01T16:22:15Z");
    expect(row.textContent).not.toContain(new Date("2026-12-01T16:22:15Z").toLocaleString());
    act(() => {
      vi.advanceTimersByTime(60 * 60_000);
    });
    expect(within(row).qa("pp-when")[0]!.textContent).toBe("1 h ago");
    view.cleanup();
  });
});

describe("cards", () => {
  it("call a question a question", () => {
    const question = { ...approvalCard, id: "g", kind: "generic", responseSchema: { type: "string" } };
    const view = mount(new FakeModel({ status: "interrupted", pending: [question] }));
    const card = view.get("pp-card");
    expect(card.querySelector(".pp-badge")!.textContent).toBe("Question");
    expect(card.getAttribute("aria-label")).toMatch(/^Question: /);
    expect(view.el.textContent).not.toContain("Input needed");
    view.cleanup();
  });
});

describe("the header", () => {
  it("keeps the run id in the Copy menu and its tooltip, out of the header's line", async () => {
    const writeText = vi.fn(async (_text: string) => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const view = mount(new FakeModel({ run_id: "run-42" }));
    const menu = view.get("pp-copy-menu") as HTMLDetailsElement;
    expect(menu.open).toBe(false);
    expect(menu.querySelector("summary")!.getAttribute("title")).toBe("Run run-42");
    expect(menu.contains(view.get("pp-run-id"))).toBe(true);
    await act(async () => {
      view.get("pp-copy-run-id").click();
      await flushMicrotasks();
    });
    expect(writeText).toHaveBeenCalledWith("run-42");
    expect(view.get("pp-copy-run-id").textContent).toContain("Copied");
    view.cleanup();
  });
});

describe("the inbox", () => {
  it("says how long a run has waited, with the exact time on hover", async () => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
    const model = new FakeModel({ view: "inbox", entries: [], bulk: {} });
    const dispose = initialize(model);
    const view = mount(model);
    const row = { runId: "run-1", title: "Refunds", agent: null, status: "waiting", kind: "generic", tool: "refund", message: "?", pauses: 1, arguments: {} };
    const rest = { since: "2026-12-01T16:22:15Z", ignoredBy: null, ignoredAt: null, damaged: null, answerable: true };
    await model.respond({ ok: true, value: { rows: [{ ...row, ...rest }], total: 1, offset: 0, agents: [], kinds: [], keys: [] } });
    const when = view.get("pp-triage-row").querySelector('[data-testid="pp-when"]')!;
    expect(when.textContent).toBe("12 min ago");
    expect(when.getAttribute("title")).toBe(new Date("2026-12-01T16:22:15Z").toLocaleString());
    expect(view.get("pp-triage-row").textContent).not.toContain("waiting since");
    view.cleanup();
    dispose();
  });
});
