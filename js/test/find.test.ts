import { afterEach, describe, expect, it, vi } from "vitest";
import { LIVE_EVERY_MS, PAGE, TYPING_MS } from "../src/components/FindBar";
import { WINDOW } from "../src/components/Transcript";
import type { FoundItem, Item, ToolItem } from "../src/types";
import { choose, click, FakeModel, initialize, mount, pressEnter, typeInto, within } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

function record(n: number, status: ToolItem["status"] = "succeeded"): ToolItem {
  return { type: "tool", id: `c${n}`, name: n % 3 === 0 ? "refund" : "lookup", input: { n }, status, result: n, error: null, interrupts: [] };
}

function turn(n: number, status: ToolItem["status"] = "succeeded"): Item[] {
  const call = record(n, status);
  return [{ type: "assistant", text: "", tool_calls: [{ id: call.id, name: call.name, input: call.input }] }, call];
}

function transcript(calls: number): Item[] {
  const items: Item[] = [{ type: "user", text: "go" }];
  for (let n = 1; n <= calls; n += 1) items.push(...turn(n, n % 25 === 0 ? "failed" : "succeeded"));
  return items;
}

/** The kernel's answer: the steps at `positions`, as it sends them. */
function found(items: Item[], positions: number[]): FoundItem[] {
  return positions.map((position) => ({ position, call: (position + 1) / 2, item: items[position] }));
}

function live(calls: number) {
  const items = transcript(calls);
  const model = new FakeModel({ status: "running", items });
  const dispose = initialize(model);
  const view = mount(model);
  return { items, model, view, dispose };
}

const shownCalls = (root: ParentNode) =>
  within(root)
    .qa("pp-tool-call")
    .map((c) => c.dataset.toolCallId);

describe("the find bar", () => {
  it("is offered on a transcript longer than the view draws, and not on a short one", () => {
    const short = mount(new FakeModel({ items: transcript(5) }));
    expect(short.q("pp-find")).toBeNull();
    short.cleanup();
    const long = mount(new FakeModel({ items: transcript(WINDOW) }));
    expect(long.get("pp-find").getAttribute("role")).toBe("search");
    const options = [...long.get("pp-find-tool").querySelectorAll("option")].map((o) => o.value);
    expect(options).toEqual(["", "lookup", "refund"]);
    // Every control has a label a screen reader reads.
    for (const id of ["pp-find-tool", "pp-find-status", "pp-find-text", "pp-jump-call"]) {
      expect(long.get(id).closest("label")?.textContent?.trim().length).toBeGreaterThan(0);
    }
    long.cleanup();
  });

  it("asks the kernel for a status and shows its page in place of the live tail", async () => {
    const { items, model, view, dispose } = live(100);
    choose(view.get("pp-find-status"), "failed");
    expect(model.lastRequest()).toMatchObject({ type: "find", filter: { status: "failed" }, from: 0, count: PAGE });
    await model.respond({ ok: true, value: { total: 4, calls: 100, from: 0, items: found(items, [50, 100, 150, 200]), ms: 3.5 } });
    expect(shownCalls(view.get("pp-found"))).toEqual(["c25", "c50", "c75", "c100"]);
    expect(view.q("pp-earlier")).toBeNull();
    expect(shownCalls(view.el)).toEqual(["c25", "c50", "c75", "c100"]);
    const counted = view.get("pp-find-count");
    expect(counted.textContent).toBe("4 of 100 calls");
    expect(counted.dataset.kernelMs).toBe("3.5");
    // Clear goes back to the live tail.
    click(view.get("pp-find-clear"));
    expect(view.q("pp-found")).toBeNull();
    expect(shownCalls(view.el).at(-1)).toBe("c100");
    expect(view.q("pp-earlier")).not.toBeNull();
    view.cleanup();
    dispose();
  });

  it("draws each found row from the view's current record, so it changes as the run goes on", async () => {
    const { items, model, view, dispose } = live(100);
    choose(view.get("pp-find-tool"), "refund");
    expect(model.lastRequest().filter).toEqual({ tool: "refund" });
    await model.respond({ ok: true, value: { total: 1, calls: 100, from: 0, items: found(items, [6]), ms: 1 } });
    expect(view.get("pp-found").querySelector<HTMLElement>('[data-tool-call-id="c3"]')!.dataset.status).toBe("succeeded");
    model.message({ type: "items", start: 6, items: [record(3, "failed")] });
    expect(view.get("pp-found").querySelector<HTMLElement>('[data-tool-call-id="c3"]')!.dataset.status).toBe("failed");
    view.cleanup();
    dispose();
  });

  it("pages with Previous and Next, and says which page it shows", async () => {
    const { items, model, view, dispose } = live(300);
    const failed = Array.from({ length: 120 }, (_, i) => 2 * (i + 1));
    choose(view.get("pp-find-tool"), "lookup");
    await model.respond({ ok: true, value: { total: 120, calls: 300, from: 0, items: found(items, failed.slice(0, PAGE)), ms: 2 } });
    expect(view.get("pp-find-count").textContent).toBe("120 of 300 calls · showing 1–50");
    expect((view.get("pp-find-previous") as HTMLButtonElement).disabled).toBe(true);
    click(view.get("pp-find-next"));
    expect(model.lastRequest()).toMatchObject({ filter: { tool: "lookup" }, from: PAGE });
    await model.respond({ ok: true, value: { total: 120, calls: 300, from: PAGE, items: found(items, failed.slice(PAGE, 2 * PAGE)), ms: 2 } });
    expect(view.get("pp-find-count").textContent).toBe("120 of 300 calls · showing 51–100");
    expect((view.get("pp-find-previous") as HTMLButtonElement).disabled).toBe(false);
    view.cleanup();
    dispose();
  });

  it("searches for text once typing pauses, or at once on Enter; Escape clears", async () => {
    vi.useFakeTimers();
    const { items, model, view, dispose } = live(60);
    const box = view.get("pp-find-text");
    typeInto(box, "refund 4");
    const before = model.sent.length;
    vi.advanceTimersByTime(TYPING_MS - 10);
    expect(model.sent.length).toBe(before);
    vi.advanceTimersByTime(20);
    expect(model.lastRequest().filter).toEqual({ text: "refund 4" });
    typeInto(box, "refund 42");
    pressEnter(box);
    expect(model.lastRequest().filter).toEqual({ text: "refund 42" });
    vi.useRealTimers();
    await model.respond({ ok: true, value: { total: 1, calls: 60, from: 0, items: found(items, [84]), ms: 1 } });
    expect(shownCalls(view.get("pp-found"))).toEqual(["c42"]);
    box.focus();
    pressEnter(box, { key: "Escape" });
    expect(view.q("pp-found")).toBeNull();
    expect((box as HTMLInputElement).value).toBe("");
    expect(document.activeElement).toBe(box);
    view.cleanup();
    dispose();
  });

  it("asks again while the run works, at most once a second", async () => {
    vi.useFakeTimers();
    const { items, model, view, dispose } = live(60);
    choose(view.get("pp-find-status"), "failed");
    await model.respond({ ok: true, value: { total: 2, calls: 60, from: 0, items: found(items, [50, 100]), ms: 1 } });
    const asked = model.sent.filter((m) => m.type === "find").length;
    model.message({ type: "items", start: items.length, items: turn(61) });
    model.message({ type: "items", start: items.length + 2, items: turn(62) });
    vi.advanceTimersByTime(LIVE_EVERY_MS + 10);
    expect(model.sent.filter((m) => m.type === "find").length).toBe(asked + 1);
    expect(model.lastRequest()).toMatchObject({ filter: { status: "failed" }, from: 0 });
    view.cleanup();
    dispose();
  });

  it("jumps to a call number and marks it among its neighbours, keeping the focus in the bar", async () => {
    const { items, model, view, dispose } = live(100);
    const number = view.get("pp-jump-call");
    typeInto(number, "1");
    number.focus();
    pressEnter(number);
    expect(model.lastRequest()).toMatchObject({ type: "find", jump: { call: 1 } });
    await model.respond({
      ok: true,
      value: { target: 2, call: 1, calls: 100, items: found(items, [0, 1, 2, 3, 4]).map((f) => ({ ...f, call: null })), ms: 1 },
    });
    const page = view.get("pp-found");
    expect(within(page).qa("pp-item")[0].dataset.type).toBe("user");
    expect(shownCalls(page)).toEqual(["c1", "c2"]);
    const target = page.querySelector<HTMLElement>('[data-target="true"]')!;
    expect(within(target).get("pp-tool-call").dataset.toolCallId).toBe("c1");
    expect(view.get("pp-find-count").textContent).toBe("Call 1 of 100");
    expect(document.activeElement).toBe(number);
    view.cleanup();
    dispose();
  });

  it("says when there is no failure to jump to, and shows a refused jump's reason", async () => {
    const { model, view, dispose } = live(60);
    click(view.get("pp-jump-last-failure"));
    expect(model.lastRequest()).toMatchObject({ jump: "last-failure" });
    await model.respond({ ok: true, value: { target: null, call: null, calls: 60, items: [], ms: 1 } });
    expect(view.get("pp-find-count").textContent).toBe("No failure in this run");
    typeInto(view.get("pp-jump-call"), "900");
    click(view.get("pp-jump-go"));
    await model.respond({ ok: false, error: { name: "NotFound", message: "This run has 60 tool calls; there is no call 900.", code: "not-found" } });
    expect(view.get("pp-find-error").textContent).toContain("there is no call 900");
    view.cleanup();
    dispose();
  });
});

describe("rows a person opened or pinned", () => {
  it("an opened row stays drawn and open while the run goes on far past it", () => {
    const { items, model, view, dispose } = live(WINDOW);
    const summary = view.el.querySelector<HTMLElement>('[data-tool-call-id="c5"] summary')!;
    click(summary);
    summary.focus();
    for (let n = WINDOW + 1; n <= WINDOW + 100; n += 1) model.message({ type: "items", start: items.length + 2 * (n - WINDOW - 1), items: turn(n) });
    const row = view.el.querySelector<HTMLDetailsElement>('[data-tool-call-id="c5"]');
    expect(row?.open).toBe(true);
    expect(within(row!).q("pp-tool-result")).not.toBeNull();
    // The same element, so the focus stayed on it.
    expect(document.activeElement).toBe(row!.querySelector("summary"));
    // A row nobody opened slid out of sight as usual.
    expect(view.el.querySelector('[data-tool-call-id="c6"]')).toBeNull();
    view.cleanup();
    dispose();
  });

  it("a row a person closed stays closed when it is drawn again", () => {
    const items = transcript(WINDOW);
    items[20] = { ...(items[20] as ToolItem), status: "failed" };
    const model = new FakeModel({ status: "running", items });
    const dispose = initialize(model);
    const view = mount(model);
    const failed = () => view.el.querySelector<HTMLDetailsElement>('[data-tool-call-id="c10"]')!;
    expect(failed().open).toBe(true);
    click(failed().querySelector("summary")!);
    expect(failed().open).toBe(false);
    model.message({ type: "items", start: 20, items: [{ ...(items[20] as ToolItem), attempts: 2 }] });
    expect(failed().open).toBe(false);
    view.cleanup();
    dispose();
  });

  it("a pinned row is listed in the Pinned strip, kept current and open as it was left", () => {
    const { items, model, view, dispose } = live(WINDOW);
    const row = view.el.querySelector<HTMLElement>('[data-tool-call-id="c3"]')!;
    const pin = within(row).get("pp-pin");
    expect(pin.getAttribute("aria-pressed")).toBe("false");
    click(pin);
    const strip = view.get("pp-pinned");
    expect(strip.getAttribute("aria-label")).toBe("Pinned steps");
    const pinned = () => strip.querySelector<HTMLDetailsElement>('[data-tool-call-id="c3"]')!;
    expect(within(pinned()).get("pp-pin").getAttribute("aria-pressed")).toBe("true");
    click(pinned().querySelector("summary")!);
    for (let n = WINDOW + 1; n <= WINDOW + 60; n += 1) model.message({ type: "items", start: items.length + 2 * (n - WINDOW - 1), items: turn(n) });
    model.message({ type: "items", start: 6, items: [record(3, "failed")] });
    expect(pinned().dataset.status).toBe("failed");
    expect(pinned().open).toBe(true);
    // Far behind the tail, the strip alone draws it (it is not kept in the tail as well).
    expect(view.el.querySelectorAll('[data-tool-call-id="c3"]')).toHaveLength(1);
    click(within(pinned()).get("pp-pin"));
    expect(view.q("pp-pinned")).toBeNull();
    view.cleanup();
    dispose();
  });

  it("a pinned call that waits keeps its card at its place in the transcript, not in the strip", () => {
    const items = transcript(3);
    items[2] = { ...(items[2] as ToolItem), status: "interrupted" };
    const card = {
      id: "int-1",
      kind: "tool-approval",
      canResolve: true,
      message: "Go?",
      data: null,
      toolCallId: "c1",
      toolName: "lookup",
      args: { n: 1 },
      inputSchema: null,
      responseSchema: null,
      createdAt: "2024-01-01T00:00:00Z",
      expiresAt: null,
    };
    const model = new FakeModel({ status: "interrupted", items, pending: [card] });
    const view = mount(model);
    click(within(view.el.querySelector<HTMLElement>('[data-tool-call-id="c1"]')!).get("pp-pin"));
    expect(within(view.get("pp-pinned")).q("pp-card")).toBeNull();
    expect(view.qa("pp-card")).toHaveLength(1);
    view.cleanup();
  });
});
