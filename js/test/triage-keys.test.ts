/** The triage list's grid from the keyboard: one Tab stop, the arrow keys, Space, Enter. */
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ROW_HEIGHT } from "../src/lib/triage";
import { listedInbox, openedRun, triagePage } from "./fixtures-triage";
import { click, type FakeModel, type Mounted, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

/** Answers the newest request for the page at `offset`, once the list has asked for it. */
async function answerPage(model: FakeModel, offset: number, total: number) {
  const asked = () => model.sent.filter((r) => r.type === "list" && r.offset === offset).at(-1);
  await vi.waitFor(() => expect(asked()).toBeDefined());
  await model.respond({ ok: true, value: triagePage(offset, total) }, asked());
}

function press(key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const target = document.activeElement as HTMLElement;
  const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init });
  act(() => {
    target.dispatchEvent(event);
  });
  return event;
}

function focusRow(view: Mounted, index: number): HTMLElement {
  const el = rowAt(view, index)!;
  act(() => el.focus());
  return el;
}

const rowAt = (view: Mounted, index: number) => view.el.querySelector<HTMLElement>(`[role="row"][data-index="${index}"]`);
const focusedIndex = () => (document.activeElement as HTMLElement | null)?.dataset.index;
const tabStops = (view: Mounted) => view.qa("pp-triage-row").filter((r) => r.tabIndex === 0);

describe("the triage list from the keyboard", () => {
  it("is one Tab stop: the first row, not the window, nor any other row or a row's controls", async () => {
    const { view, done } = await listedInbox(300);
    const stops = tabStops(view);
    expect(stops.map((r) => r.dataset.index)).toEqual(["0"]);
    expect(view.get("pp-triage-window").tabIndex).toBe(-1);
    for (const testid of ["pp-triage-select", "pp-triage-open"]) {
      expect(view.qa(testid).every((el) => el.tabIndex === -1)).toBe(true);
    }
    expect(view.get("pp-triage-window").getAttribute("role")).toBe("grid");
    done();
  });

  it("moves focus and the Tab stop with ArrowDown, ArrowUp, PageDown, PageUp, End and Home", async () => {
    const { model, view, done } = await listedInbox(300);
    focusRow(view, 0);
    const down = press("ArrowDown");
    expect(down.defaultPrevented).toBe(true); // the window does not scroll by itself
    expect(focusedIndex()).toBe("1");
    expect(tabStops(view).map((r) => r.dataset.index)).toEqual(["1"]);
    expect(rowAt(view, 0)!.tabIndex).toBe(-1);
    press("ArrowUp");
    expect(focusedIndex()).toBe("0");
    press("ArrowUp"); // the first row stays
    expect(focusedIndex()).toBe("0");
    press("PageDown"); // a window shows 12 rows
    expect(focusedIndex()).toBe("12");
    press("PageUp");
    expect(focusedIndex()).toBe("0");

    press("End");
    await answerPage(model, 200, 300);
    await vi.waitFor(() => expect(focusedIndex()).toBe("299"));
    const grid = view.get("pp-triage-window");
    const top = 299 * ROW_HEIGHT;
    expect(grid.scrollTop).toBeLessThanOrEqual(top);
    expect(grid.scrollTop + 432).toBeGreaterThanOrEqual(top + ROW_HEIGHT);
    expect(tabStops(view).map((r) => r.dataset.index)).toEqual(["299"]);
    press("ArrowDown"); // the last row stays
    expect(focusedIndex()).toBe("299");

    press("Home");
    await vi.waitFor(() => expect(focusedIndex()).toBe("0"));
    expect(grid.scrollTop).toBe(0);
    expect(tabStops(view).map((r) => r.dataset.index)).toEqual(["0"]);
    done();
  });

  it("End on 10,000 runs scrolls to the last one, asks for its page and focuses it once drawn", async () => {
    const { model, view, done } = await listedInbox(10_000);
    focusRow(view, 0);
    press("End");
    expect(rowAt(view, 9999)).toBeNull(); // not drawn before its page comes
    expect(document.activeElement).toBe(view.get("pp-triage-window")); // focus waits in the grid
    await answerPage(model, 9900, 10_000);
    await vi.waitFor(() => expect(focusedIndex()).toBe("9999"));
    const last = document.activeElement as HTMLElement;
    expect(last.getAttribute("aria-rowindex")).toBe("10000");
    expect(last.textContent).toContain("Refund customer 9999");
    expect(tabStops(view)).toEqual([last]);
    expect(view.get("pp-triage-window").tabIndex).toBe(-1);
    press("ArrowUp");
    expect(focusedIndex()).toBe("9998");
    done();
  });

  it("Space selects the focused row as a click on its checkbox does, Shift+Space a range as a shift-click", async () => {
    const { model, view, done } = await listedInbox(300);
    focusRow(view, 0);
    const space = press(" ");
    expect(space.defaultPrevented).toBe(true);
    expect(view.get("pp-triage-selected").textContent).toBe("1 selected");
    expect(rowAt(view, 0)!.getAttribute("aria-selected")).toBe("true");
    expect((within(rowAt(view, 0)!).get("pp-triage-select") as HTMLInputElement).checked).toBe(true);
    for (let i = 0; i < 4; i += 1) press("ArrowDown");
    press(" ", { shiftKey: true });
    expect(view.get("pp-triage-selected").textContent).toBe("5 selected");
    click(view.get("pp-bulk-approve"));
    click(view.get("pp-bulk-confirm-yes"));
    expect(model.lastRequest()).toMatchObject({ type: "bulk", answer: "approve", runs: ["run-0", "run-1", "run-2", "run-3", "run-4"] });
    done();
  });

  it("Space again clears the focused row's selection", async () => {
    const { view, done } = await listedInbox(3);
    focusRow(view, 1);
    press(" ");
    press(" ");
    expect(view.get("pp-triage-selected").textContent).toBe("");
    expect(rowAt(view, 1)!.getAttribute("aria-selected")).toBe("false");
    done();
  });

  it("Enter opens the focused row as its title button does, and closes it again", async () => {
    const { model, view, done } = await listedInbox(50);
    focusRow(view, 0);
    press("ArrowDown");
    press("ArrowDown");
    press("Enter");
    expect(model.lastRequest()).toMatchObject({ type: "open", run: "run-2" });
    await model.respond({
      ok: true,
      value: openedRun(2),
    });
    expect(view.get("pp-inbox-entry").dataset.runId).toBe("run-2");
    expect(within(rowAt(view, 2)!).get("pp-triage-open").getAttribute("aria-expanded")).toBe("true");
    expect(focusedIndex()).toBe("2"); // focus stays on the row it opened

    // The keys in the opened run's card are the card's.
    const approve = within(view.get("pp-inbox-entry")).get("pp-approve");
    act(() => approve.focus());
    expect(press("ArrowDown").defaultPrevented).toBe(false);
    expect(document.activeElement).toBe(approve);

    focusRow(view, 2);
    press("Enter");
    expect(view.q("pp-inbox-entry")).toBeNull();
    expect(within(rowAt(view, 2)!).get("pp-triage-open").getAttribute("aria-expanded")).toBe("false");
    done();
  });

  it("moves from a row to its checkbox, its open button and its other cells with ArrowRight, and back with ArrowLeft", async () => {
    const { view, done } = await listedInbox(5);
    const first = focusRow(view, 0);
    press("ArrowRight");
    expect(document.activeElement).toBe(within(first).get("pp-triage-select"));
    press("ArrowRight");
    expect(document.activeElement).toBe(within(first).get("pp-triage-open"));
    press("ArrowRight");
    expect((document.activeElement as HTMLElement).classList.contains("pp-triage-agent")).toBe(true);
    press(" "); // on a cell, Space is the row's
    expect(view.get("pp-triage-selected").textContent).toBe("1 selected");
    press("ArrowLeft");
    press("ArrowLeft");
    press("ArrowLeft");
    expect(document.activeElement).toBe(first);
    press("ArrowLeft"); // nothing before the row
    expect(document.activeElement).toBe(first);
    done();
  });

  it("makes a clicked row the Tab stop", async () => {
    const { view, done } = await listedInbox(20);
    click(within(rowAt(view, 3)!).get("pp-triage-select"));
    act(() => within(rowAt(view, 3)!).get("pp-triage-select").focus());
    expect(tabStops(view).map((r) => r.dataset.index)).toEqual(["3"]);
    press("ArrowDown");
    expect(focusedIndex()).toBe("4");
    done();
  });

  it("keeps focus on the active row when the store changes and the list is asked for again", async () => {
    const { model, view, done } = await listedInbox(120);
    focusRow(view, 3);
    model.setTrait("revision", 2);
    await answerPage(model, 0, 120);
    expect(focusedIndex()).toBe("3");
    expect(rowAt(view, 3)!.textContent).toContain("Refund customer 3");
    done();
  });

  it("holds focus in the grid while the active row is scrolled away, and gives it back when it is drawn again", async () => {
    const { model, view, done } = await listedInbox(10_000);
    const grid = view.get("pp-triage-window");
    // Rows 4,994 on are drawn in the places rows 2 to 24 had (slots are kept modulo 128).
    await scrollToRow(view, model, 5000, [4900, 5000]);
    await scrollToRow(view, model, 0, []);

    focusRow(view, 3);
    await scrollToRow(view, model, 5000, []); // row 3's element now shows another row
    expect(rowAt(view, 3)).toBeNull();
    expect(document.activeElement).toBe(grid);
    expect(grid.tabIndex).toBe(0); // the grid stays one Tab stop
    expect(tabStops(view)).toEqual([]);

    await scrollToRow(view, model, 0, []);
    expect(focusedIndex()).toBe("3");
    expect(grid.tabIndex).toBe(-1);

    await scrollToRow(view, model, 1000, [900, 1000]); // row 3's element is removed
    expect(document.activeElement).toBe(grid);
    press("ArrowDown");
    await vi.waitFor(() => expect(focusedIndex()).toBe("4"));
    expect(grid.scrollTop).toBeLessThanOrEqual(4 * ROW_HEIGHT);
    done();
  });
});

/** Scrolls the window as a person does to row `index`, answering the pages at `offsets`
 * (none: the rows are listed already), and waits until that row is drawn. */
async function scrollToRow(view: Mounted, model: FakeModel, index: number, offsets: number[]) {
  const grid = view.get("pp-triage-window");
  act(() => {
    grid.scrollTop = index * ROW_HEIGHT;
    grid.dispatchEvent(new Event("scroll"));
  });
  for (const offset of offsets) await answerPage(model, offset, 10_000);
  await vi.waitFor(() => expect(rowAt(view, index)).not.toBeNull());
}
