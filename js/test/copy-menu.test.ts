/** The header's Copy menu closes as menus do: on a click outside it and on Escape. */
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { FakeModel, flushMicrotasks, mount } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

/** Lets the details element's toggle event, queued as a task, reach the view. */
async function settle(): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await flushMicrotasks();
  });
}

async function openMenu() {
  const view = mount(new FakeModel({ run_id: "run-42" }));
  const menu = view.get("pp-copy-menu") as HTMLDetailsElement;
  const summary = menu.querySelector("summary")!;
  summary.focus();
  act(() => summary.click());
  await settle();
  expect(menu.open).toBe(true);
  return { view, menu, summary };
}

function pointerDown(target: EventTarget): void {
  act(() => {
    target.dispatchEvent(new Event("pointerdown", { bubbles: true, cancelable: true }));
  });
}

function press(target: HTMLElement, key: string): KeyboardEvent {
  const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
  act(() => {
    target.dispatchEvent(event);
  });
  return event;
}

describe("the Copy menu", () => {
  it("closes on a click outside it", async () => {
    const { view, menu } = await openMenu();
    const elsewhere = document.createElement("button");
    document.body.appendChild(elsewhere);
    pointerDown(elsewhere);
    expect(menu.open).toBe(false);
    view.cleanup();
  });

  it("closes on a click elsewhere in the same view, even one whose handler stops it", async () => {
    const { view, menu } = await openMenu();
    const status = view.get("pp-status");
    status.addEventListener("pointerdown", (event) => event.stopPropagation());
    pointerDown(status);
    expect(menu.open).toBe(false);
    view.cleanup();
  });

  it("stays open for a click inside it", async () => {
    const { view, menu } = await openMenu();
    pointerDown(view.get("pp-copy-run-id"));
    expect(menu.open).toBe(true);
    view.cleanup();
  });

  it("closes on Escape from one of its items and gives focus back to its button", async () => {
    const { view, menu, summary } = await openMenu();
    const item = view.get("pp-copy");
    item.focus();
    let seenByNotebook = false;
    const notebook = () => {
      seenByNotebook = true;
    };
    document.addEventListener("keydown", notebook);
    press(item, "Escape");
    document.removeEventListener("keydown", notebook);
    expect(menu.open).toBe(false);
    expect(document.activeElement).toBe(summary);
    // JupyterLab would take the same Escape to leave the cell.
    expect(seenByNotebook).toBe(false);
    view.cleanup();
  });

  it("closes on Escape pressed elsewhere without taking focus", async () => {
    const { view, menu } = await openMenu();
    const elsewhere = document.createElement("input");
    document.body.appendChild(elsewhere);
    elsewhere.focus();
    press(elsewhere, "Escape");
    expect(menu.open).toBe(false);
    expect(document.activeElement).toBe(elsewhere);
    view.cleanup();
  });

  it("ignores other keys, closes however it was opened, and stops listening once gone", async () => {
    const { view, menu, summary } = await openMenu();
    press(view.get("pp-copy"), "ArrowDown");
    expect(menu.open).toBe(true);
    act(() => summary.click());
    await settle();
    expect(menu.open).toBe(false);
    // Opened at once, before any toggle event: a click outside closes it all the same.
    menu.open = true;
    pointerDown(document.body);
    expect(menu.open).toBe(false);
    // Once the view is gone its listeners are too: a detached menu is left alone.
    view.cleanup();
    menu.open = true;
    pointerDown(document.body);
    expect(menu.open).toBe(true);
  });
});
