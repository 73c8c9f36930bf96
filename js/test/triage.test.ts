import { afterEach, describe, expect, it, vi } from "vitest";
import { argumentsLine, confirmation, listHeight, PAGE_ROWS, pagesFor, ROW_HEIGHT, rangeOf, rowAt, rowTop, sortChoices, visibleRows } from "../src/lib/triage";
import { listedInbox, openedRun, triagePage } from "./fixtures-triage";
import { approvalCard, choose, click, typeInto, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
  vi.useRealTimers();
});

describe("the triage list's arithmetic", () => {
  it("draws only the rows a scrolled window shows, an opened row pushing the rest down", () => {
    expect(visibleRows(0, 10 * ROW_HEIGHT, 10_000, null)).toEqual([0, 16]);
    const [first, last] = visibleRows(5000 * ROW_HEIGHT, 10 * ROW_HEIGHT, 10_000, null);
    expect([first, last]).toEqual([4994, 5016]);
    expect(visibleRows(0, 400, 0, null)).toEqual([0, -1]);
    const opened = { index: 2, extra: 300 };
    expect(rowTop(2, opened)).toBe(2 * ROW_HEIGHT);
    expect(rowTop(3, opened)).toBe(3 * ROW_HEIGHT + 300);
    expect(rowAt(3 * ROW_HEIGHT + 100, 100, opened)).toBe(2); // inside the opened panel
    expect(rowAt(3 * ROW_HEIGHT + 300, 100, opened)).toBe(3);
    expect(listHeight(100, opened)).toBe(100 * ROW_HEIGHT + 300);
  });

  it("asks for each page of the window once", () => {
    expect(pagesFor(0, 20, () => false)).toEqual([0]);
    expect(pagesFor(95, 130, () => false)).toEqual([0, PAGE_ROWS]);
    expect(pagesFor(95, 130, (offset) => offset === 0)).toEqual([PAGE_ROWS]);
  });

  it("selects a shift-click range either way, of the rows known", () => {
    const rows = new Map([0, 1, 2, 4].map((i) => [i, { runId: `r${i}` }]));
    expect(rangeOf(rows, 4, 1).map((r) => r.runId)).toEqual(["r1", "r2", "r4"]);
  });

  it("offers each key argument both ways as a sort, and writes arguments in a line", () => {
    expect(sortChoices(["amount"]).map(([value]) => value)).toEqual(["newest", "oldest", "amount", "-amount"]);
    expect(argumentsLine({ amount: 1200.5, customer: "Ann", ok: true })).toBe("amount 1,200.5 · customer Ann · ok true");
    expect(argumentsLine({ a: 1, b: 2, c: 3, d: 4, e: 5 })).toBe("a 1 · b 2 · c 3 · d 4 · +1");
  });

  it("confirms how many runs and names the first few", () => {
    expect(confirmation("approve", ["A", "B", "C", "D", "E"])).toBe("Approve 5 runs: “A”, “B”, “C” and 2 more?");
    expect(confirmation("decline", ["A", "B"])).toBe("Decline 2 runs: “A” and “B”?");
    expect(confirmation("respond", ["A"])).toBe("Respond to 1 run: “A”?");
  });
});

describe("the inbox's triage list", () => {
  it("draws a small window of 10,000 rows, each with title, agent, what it waits for and status", async () => {
    const { view, done } = await listedInbox(10_000);
    const rows = view.qa("pp-triage-row");
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(40);
    expect(view.el.querySelectorAll("*").length).toBeLessThan(1500);
    expect(rows[0]!.textContent).toContain("Refund customer 0");
    expect(rows[0]!.textContent).toContain("payments");
    expect(within(rows[0]!).get("pp-triage-args").textContent).toBe("amount 0 · customer customer 0");
    expect(rows[0]!.textContent).toContain("waiting");
    expect(view.get("pp-triage-count").textContent).toBe("10,000 waiting");
    expect(view.get("pp-triage-window").getAttribute("aria-rowcount")).toBe("10000");
    done();
  });

  it("asks again for a filter once typing pauses, and for a sort at once", async () => {
    vi.useFakeTimers();
    const { model, view, done } = await listedInbox(500);
    typeInto(view.get("pp-triage-text"), "cust");
    typeInto(view.get("pp-triage-text"), "customer 4");
    const before = model.sent.length;
    await vi.advanceTimersByTimeAsync(350);
    const typed = model.sent.slice(before).filter((r) => r.type === "list");
    expect(typed).toHaveLength(1);
    expect(typed[0]).toMatchObject({ filter: { text: "customer 4", status: "waiting" }, offset: 0 });
    choose(view.get("pp-triage-sort"), "3"); // amount, largest first
    expect(model.lastRequest()).toMatchObject({ type: "list", sort: "-amount" });
    choose(view.get("pp-triage-agent"), "0");
    expect(model.lastRequest()).toMatchObject({ type: "list", filter: { agent: "payments", text: "customer 4" } });
    await model.respond({ ok: true, value: { ...triagePage(0, 11, 11) } });
    expect(view.get("pp-triage-count").textContent).toBe("11 of 500 waiting match");
    done();
  });

  it("selects a shift-click range and approves it after one confirmation naming the runs", async () => {
    const { model, view, done } = await listedInbox(300);
    const boxes = view.qa("pp-triage-select");
    click(boxes[0]!);
    boxes[4]!.dispatchEvent(new MouseEvent("click", { bubbles: true, shiftKey: true }));
    await Promise.resolve();
    expect(view.get("pp-triage-selected").textContent).toBe("5 selected");
    click(view.get("pp-bulk-approve"));
    expect(view.get("pp-bulk-confirm-text").textContent).toBe("Approve 5 runs: “Refund customer 0”, “Refund customer 1”, “Refund customer 2” and 2 more?");
    expect(model.sent.some((r) => r.type === "bulk")).toBe(false); // nothing before the confirmation
    click(view.get("pp-bulk-confirm-yes"));
    expect(model.lastRequest()).toMatchObject({ type: "bulk", answer: "approve", runs: ["run-0", "run-1", "run-2", "run-3", "run-4"] });
    await model.respond({ ok: true, value: { runs: 5 } });
    model.setTrait("bulk", {
      id: "b",
      answer: "approve",
      total: 5,
      outcomes: [0, 1, 2, 3, 4].map((i) => ({ runId: `run-${i}`, outcome: i === 3 ? "not-waiting" : "answered", message: "" })),
    });
    const report = view.get("pp-bulk-progress");
    expect(report.textContent).toContain("Approved 4 of 5");
    expect(report.textContent).toContain("run-3: not-waiting");
    expect(view.get("pp-triage-selected").textContent).toBe("");
    done();
  });

  it("responds only with words, and declines with an optional reason", async () => {
    const { model, view, done } = await listedInbox(3);
    click(view.qa("pp-triage-select")[1]!);
    click(view.get("pp-bulk-respond"));
    expect((view.get("pp-bulk-confirm-yes") as HTMLButtonElement).disabled).toBe(true);
    typeInto(view.get("pp-bulk-words"), "Refund half.");
    click(view.get("pp-bulk-confirm-yes"));
    expect(model.lastRequest()).toMatchObject({ type: "bulk", answer: "respond", runs: ["run-1"], text: "Refund half." });
    done();
  });

  it("opens a row in place into its thread and an answerable card", async () => {
    const { model, view, done } = await listedInbox(50);
    click(within(view.qa("pp-triage-row")[2]!).get("pp-triage-open"));
    expect(model.lastRequest()).toMatchObject({ type: "open", run: "run-2" });
    await model.respond({ ok: true, value: openedRun(2) });
    const panel = view.get("pp-inbox-entry");
    expect(panel.dataset.runId).toBe("run-2");
    expect(within(panel).get("pp-triage-thread").textContent).toContain("Refund customer 2");
    expect(within(view.qa("pp-triage-row")[2]!).get("pp-triage-open").getAttribute("aria-expanded")).toBe("true");
    click(within(panel).get("pp-approve"));
    expect(model.lastRequest()).toEqual({ type: "resume", interrupt: "int-2", run: "run-2", data: true, requestId: expect.any(String) });
    done();
  });

  it("closes an opened run once it is answered, and says what became of it", async () => {
    const { model, view, done } = await listedInbox(50);
    click(within(view.qa("pp-triage-row")[2]!).get("pp-triage-open"));
    const entry = {
      runId: "run-2",
      agent: "payments",
      title: "Refund customer 2",
      createdAt: "2025-01-01T00:00:00Z",
      updatedAt: "2025-01-01T00:05:00Z",
      reason: null,
      thread: { items: [{ role: "user", text: "Refund customer 2" }], earlier: 0 },
    };
    await model.respond({ ok: true, value: { ...entry, status: "interrupted", cards: [{ ...approvalCard, id: "int-2", runId: "run-2" }] } });
    click(within(view.get("pp-inbox-entry")).get("pp-approve"));
    await model.respond({ ok: true, value: { answered: true } });
    expect(view.q("pp-triage-answered")).toBeNull();
    const before = model.sent.length;
    model.setTrait("revision", 2); // the kernel saw the run move on
    const again = model.sent.slice(before).filter((r) => r.type === "open");
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ run: "run-2" });
    await model.respond({ ok: true, value: { ...entry, status: "completed", cards: [] } }, again[0]);
    expect(view.q("pp-inbox-entry")).toBeNull(); // the row closed
    expect(view.q("pp-sent")).toBeNull();
    expect(within(view.qa("pp-triage-row")[2]!).get("pp-triage-open").getAttribute("aria-expanded")).toBe("false");
    expect(view.get("pp-triage-answered").textContent?.replace(/\s+/g, " ").trim()).toBe("“Refund customer 2”: nothing waits there now; the run completed.");
    click(within(view.qa("pp-triage-row")[3]!).get("pp-triage-open"));
    expect(view.q("pp-triage-answered")).toBeNull(); // opening another row clears it
    done();
  });

  it("keeps a row opened right away open once the typing pause has passed", async () => {
    vi.useFakeTimers();
    const { model, view, done } = await listedInbox(5);
    click(within(view.qa("pp-triage-row")[1]!).get("pp-triage-open"));
    const sent = model.sent.length;
    await vi.advanceTimersByTimeAsync(400);
    expect(view.get("pp-inbox-entry").dataset.runId ?? null).toBeNull(); // still loading, still open
    expect(model.sent.slice(sent).filter((r) => r.type === "list")).toEqual([]);
    done();
  });

  it("ignores the selected runs and Undo lists them again", async () => {
    const { model, view, done } = await listedInbox(3);
    click(view.qa("pp-triage-select")[0]!);
    click(view.get("pp-bulk-ignore"));
    click(view.get("pp-bulk-confirm-yes"));
    expect(model.lastRequest()).toMatchObject({ type: "ignore", run: "run-0" });
    await model.respond({ ok: true });
    click(view.get("pp-ignore-undo"));
    expect(model.lastRequest()).toMatchObject({ type: "unignore", run: "run-0" });
    await model.respond({ ok: true });
    expect(view.q("pp-ignore-undo")).toBeNull();
    done();
  });

  it("asks for the shown page again when the store changed", async () => {
    const { model, done } = await listedInbox(120);
    model.setTrait("revision", 2);
    expect(model.lastRequest()).toMatchObject({ type: "list", offset: 0 });
    done();
  });
});
