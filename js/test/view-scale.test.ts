import { afterEach, describe, expect, it, vi } from "vitest";
import { STEP, WINDOW } from "../src/components/Transcript";
import { callTitle, fieldLabel, humanize, keyArguments } from "../src/lib/labels";
import type { Item, ToolItem } from "../src/types";
import { approvalCard, click, FakeModel, flushMicrotasks, initialize, mount, typeInto, within } from "./helpers";

// Counts each time a tool call row is drawn, by call id.
const drawn = vi.hoisted(() => new Map<string, number>());
vi.mock("../src/components/ToolCall", async (original) => {
  const real = await original<typeof import("../src/components/ToolCall")>();
  return {
    ...real,
    ToolCall(props: { call: ToolItem }) {
      drawn.set(props.call.id, (drawn.get(props.call.id) ?? 0) + 1);
      return real.ToolCall(props as never);
    },
  };
});

afterEach(() => {
  drawn.clear();
  document.body.innerHTML = "";
});

function turn(n: number, status: ToolItem["status"] = "succeeded"): Item[] {
  return [
    { type: "assistant", text: "", tool_calls: [{ id: `c${n}`, name: "lookup", input: { n } }] },
    { type: "tool", id: `c${n}`, name: "lookup", input: { n }, status, result: n, error: null, interrupts: [] },
  ];
}

function transcript(calls: number): Item[] {
  const items: Item[] = [{ type: "user", text: "go" }];
  for (let n = 1; n <= calls; n += 1) items.push(...turn(n));
  return items;
}

describe("live updates draw only what changed", () => {
  it("appending a turn draws the new call and no earlier one again", () => {
    const model = new FakeModel({ status: "running", items: transcript(10) });
    const dispose = initialize(model);
    const view = mount(model);
    expect(drawn.get("c3")).toBe(1);
    model.message({ type: "items", start: 21, items: turn(11, "running") });
    expect(drawn.get("c11")).toBe(1);
    for (let n = 1; n <= 10; n += 1) expect(drawn.get(`c${n}`)).toBe(1);
    model.message({ type: "items", start: 22, items: [turn(11)[1]] });
    expect(drawn.get("c11")).toBe(2);
    expect(drawn.get("c10")).toBe(1);
    view.cleanup();
    dispose();
  });

  it("a burst of messages within one frame is drawn once", async () => {
    const model = new FakeModel({ status: "running", items: transcript(1) });
    const dispose = initialize(model);
    const view = mount(model);
    // Messages applied outside act() and without a frame: nothing is drawn yet.
    for (let n = 2; n <= 6; n += 1) model.emit("msg:custom", { type: "items", start: 1 + (n - 1) * 2, items: turn(n) }, []);
    expect(view.qa("pp-tool-call")).toHaveLength(1);
    model.message({ type: "items", start: 13, items: turn(7) });
    expect(view.qa("pp-tool-call")).toHaveLength(7);
    for (let n = 2; n <= 7; n += 1) expect(drawn.get(`c${n}`)).toBe(1);
    view.cleanup();
    dispose();
  });
});

describe("long transcripts", () => {
  it("draw the last steps and say how many earlier ones there are", () => {
    const view = mount(new FakeModel({ items: transcript(2000), status: "completed" }));
    expect(view.qa("pp-tool-call")).toHaveLength(WINDOW - 0);
    const earlier = view.get("pp-earlier");
    // 2,000 calls and the user's message are 2,001 rows.
    expect(earlier.textContent).toContain(`${(2001 - WINDOW).toLocaleString("en-US")} earlier steps`);
    expect(view.el.querySelectorAll("*").length).toBeLessThan(5000);
    click(view.get("pp-show-earlier"));
    expect(view.qa("pp-tool-call")).toHaveLength(WINDOW + STEP);
    expect(view.get("pp-earlier").textContent).toContain(`${(2001 - WINDOW - STEP).toLocaleString("en-US")} earlier steps`);
    expect(view.qa("pp-tool-call").at(-1)!.dataset.toolCallId).toBe("c2000");
    view.cleanup();
  });

  it("keep a call that waits for an answer in sight however early it is", () => {
    const items = transcript(500);
    items[2] = { ...(items[2] as ToolItem), status: "interrupted", id: "c1" };
    const card = { ...approvalCard, id: "int-1", toolCallId: "c1", toolName: "lookup", args: { n: 1 } };
    const model = new FakeModel({ items, status: "interrupted", pending: [card] });
    const view = mount(model);
    const first = view.qa("pp-row")[0];
    expect(within(first).get("pp-tool-call").dataset.toolCallId).toBe("c1");
    expect(within(first).get("pp-card").dataset.interruptId).toBe("int-1");
    view.cleanup();
  });

  it("have no empty Assistant label on turns that only call tools", () => {
    const view = mount(new FakeModel({ items: transcript(3) }));
    expect(view.qa("pp-item").map((i) => i.dataset.type)).toEqual(["user"]);
    view.cleanup();
  });
});

describe("the card at its tool call", () => {
  const items: Item[] = [
    { type: "user", text: "refund both" },
    {
      type: "assistant",
      text: "",
      tool_calls: [
        { id: "call-1", name: "refund_order", input: { order_id: 42 } },
        { id: "call-2", name: "refund_order", input: { order_id: 43 } },
      ],
    },
    {
      type: "tool",
      id: "call-1",
      name: "refund_order",
      input: { order_id: 42 },
      status: "interrupted",
      result: null,
      error: null,
      interrupts: [
        {
          id: "int-a",
          kind: "tool-approval",
          message: "Refund?",
          data: null,
          state: null,
          response_schema: null,
          created_at: null,
          expires_at: null,
          resolution: null,
        },
      ],
    },
    {
      type: "tool",
      id: "call-2",
      name: "refund_order",
      input: { order_id: 43 },
      status: "interrupted",
      result: null,
      error: null,
      interrupts: [
        {
          id: "int-b",
          kind: "tool-approval",
          message: "Refund?",
          data: null,
          state: null,
          response_schema: null,
          created_at: null,
          expires_at: null,
          resolution: null,
        },
      ],
    },
  ];
  const cards = [
    {
      ...approvalCard,
      id: "int-a",
      message: "Refund?",
      toolCallId: "call-1",
      toolName: "refund_order",
      args: { order_id: 42 },
      inputSchema: { type: "object", properties: { order_id: { type: "integer" } } },
    },
    { ...approvalCard, id: "int-b", message: "Refund?", toolCallId: "call-2", toolName: "refund_order", args: { order_id: 43 }, inputSchema: null },
  ];

  it("shows each pending interrupt once, titled by its key arguments", () => {
    const view = mount(new FakeModel({ items, status: "interrupted", pending: cards }));
    const rows = view.qa("pp-row");
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => within(r).get("pp-card-title").textContent)).toEqual(["refund_order · order 42", "refund_order · order 43"]);
    // The call's own details stay closed: the card below says what waits.
    expect((within(rows[0]).get("pp-tool-call") as HTMLDetailsElement).open).toBe(false);
    expect(view.el.textContent!.match(/Refund\?/g)).toHaveLength(2);
    expect(view.q("pp-resolution")).toBeNull();
    expect(view.el.querySelector(".pp-cards")).toBeNull();
    expect(view.el.textContent).not.toMatch(/tool-approval|generic/);
    view.cleanup();
  });

  it("moves focus to the next card after an answer, then to the status", async () => {
    const model = new FakeModel({ items, status: "interrupted", pending: cards });
    const dispose = initialize(model);
    const view = mount(model);
    const [first, second] = view.qa("pp-card");
    const approve = within(first).get("pp-approve");
    approve.focus();
    click(approve);
    await model.respond({ ok: true });
    expect(second.contains(document.activeElement)).toBe(true);
    expect(document.activeElement).toBe(within(second).get("pp-approve"));
    click(within(second).get("pp-approve"));
    await model.respond({ ok: true });
    expect(document.activeElement).toBe(view.get("pp-status"));
    view.cleanup();
    dispose();
  });

  it("moves focus on when the kernel removes the answered card before its reply", async () => {
    const model = new FakeModel({ items, status: "interrupted", pending: cards });
    const dispose = initialize(model);
    const view = mount(model);
    const approve = within(view.qa("pp-card")[0]).get("pp-approve");
    approve.focus();
    click(approve);
    approve.blur(); // a browser takes focus from a control that turns disabled
    model.setTrait("pending", [cards[1]]);
    await flushMicrotasks();
    expect(document.activeElement).toBe(within(view.get("pp-card")).get("pp-approve"));
    await model.respond({ ok: true });
    expect(document.activeElement).toBe(within(view.get("pp-card")).get("pp-approve"));
    view.cleanup();
    dispose();
  });

  it("the header's pending count takes the user to the first card", () => {
    const view = mount(new FakeModel({ items, status: "interrupted", pending: cards }));
    const jump = view.get("pp-pending-jump");
    expect(jump.textContent).toContain("2 wait for you");
    click(jump);
    expect(document.activeElement).toBe(within(view.qa("pp-card")[0]).get("pp-approve"));
    view.cleanup();
  });

  it("shows the kernel's error for an edited argument beside its field", async () => {
    const model = new FakeModel({ items, status: "interrupted", pending: cards });
    const dispose = initialize(model);
    const view = mount(model);
    const card = view.qa("pp-card")[0];
    click(within(card).get("pp-edit-args"));
    typeInto(within(card).get("pp-field-order_id"), "7");
    click(within(card).get("pp-approve"));
    await model.respond({
      ok: false,
      error: {
        name: "InvalidResolutionError",
        message: "The edited arguments do not fit.",
        problems: [{ path: "$.editedArgs.order_id", message: "no such order" }],
      },
    });
    const beside = within(card)
      .qa("pp-field-error")
      .find((e) => e.dataset.path === "order_id");
    expect(beside?.textContent).toContain("no such order");
    view.cleanup();
    dispose();
  });

  it("after approving with edits, shows the arguments the call ran with and the model's original on demand", () => {
    const ran: Item[] = [
      {
        type: "tool",
        id: "c1",
        name: "refund_order",
        input: { order_id: 42 },
        status: "failed",
        result: null,
        error: { name: "E", message: "x" },
        interrupts: [
          {
            id: "i",
            kind: "tool-approval",
            message: "Refund?",
            data: null,
            state: null,
            response_schema: null,
            created_at: null,
            expires_at: null,
            resolution: { type: "resume", data: { approved: true, editedArgs: { order_id: 7 } }, at: "2025-01-01T00:00:00Z" },
          },
        ],
      },
    ];
    const view = mount(new FakeModel({ items: ran }));
    expect(view.get("pp-tool-input").textContent).toContain('"order_id": 7');
    expect(view.get("pp-original-input").textContent).toContain('"order_id": 42');
    expect(view.get("pp-resolution").textContent).toContain("Approved with changes: order_id 42 → 7");
    view.cleanup();
  });

  it("after arguments edited at a breakpoint, shows those the call ran with", () => {
    const ran: Item[] = [
      {
        type: "tool",
        id: "c1",
        name: "refund",
        input: { cents: 12000 },
        status: "failed",
        result: null,
        error: { name: "E", message: "x" },
        interrupts: [
          {
            id: "b",
            kind: "breakpoint",
            message: "Breakpoint",
            data: null,
            state: null,
            response_schema: null,
            created_at: null,
            expires_at: null,
            resolution: { type: "resume", data: { action: "edit", args: { cents: 500 } }, at: "2025-01-01T00:00:00Z" },
          },
        ],
      },
    ];
    const view = mount(new FakeModel({ items: ran }));
    expect(view.get("pp-tool-input").textContent).toContain('"cents": 500');
    expect(view.get("pp-original-input").textContent).toContain('"cents": 12000');
    view.cleanup();
  });
});

describe("labels", () => {
  it("come from the schema's title, else the humanized property name", () => {
    expect(fieldLabel({ title: "Order number" }, "order_id")).toBe("Order number");
    expect(fieldLabel({}, "order_id")).toBe("Order id");
    expect(humanize("dryRun")).toBe("Dry run");
  });

  it("title a call by its key arguments", () => {
    expect(callTitle("refund_order", { order_id: 42, reason: "damaged", extra: 1 })).toBe("refund_order · order 42, reason damaged, …");
    expect(callTitle("refund_order", { order_id: 42, amount: 3 })).toBe("refund_order · order 42, amount 3");
    // A value cut short says so; the card shows it whole.
    expect(keyArguments({ note: "x".repeat(40) })).toBe(`note ${"x".repeat(31)}…`);
    expect(keyArguments({ nested: { a: 1 } })).toBe("");
    expect(callTitle("ping", {})).toBe("ping");
  });
});

describe("accessible names", () => {
  it("contain the visible text of the copy button", () => {
    const view = mount(new FakeModel());
    const copy = view.get("pp-copy");
    expect(copy.getAttribute("aria-label")).toContain(copy.textContent!.trim());
    view.cleanup();
  });
});
