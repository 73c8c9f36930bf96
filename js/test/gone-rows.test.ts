/** Once the kernel is gone, a tool row's status is told as the header tells the run's:
 * what it was doing, in neutral, since nothing can move it any more. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { DISCONNECTED_CLASS } from "../src/kernel/liveness";
import type { Item, ToolStatus } from "../src/types";
import { FakeModel, FakeSignal, initialize, mount, widgetOf, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

function tool(status: ToolStatus, waiting = false): Item {
  return {
    type: "tool",
    id: `c-${status}`,
    name: "refund_order",
    input: { order_id: 42 },
    status,
    result: status === "succeeded" ? "ok" : null,
    error: null,
    interrupts: waiting
      ? [
          {
            id: "i1",
            kind: "tool-approval",
            message: "Refund order 42?",
            data: null,
            state: null,
            response_schema: null,
            created_at: "2026-12-01T16:22:15Z",
            expires_at: null,
            resolution: null,
          },
        ]
      : [],
  } as unknown as Item;
}

const ITEMS = [tool("interrupted", true), tool("running"), tool("succeeded")];

function model(): FakeModel {
  const m = new FakeModel({ status: "interrupted", items: ITEMS });
  initialize(m);
  return m;
}

/** Renders into an element that ipywidgets already marked as having no live comm. */
function mountDisconnected(m: FakeModel) {
  const el = document.createElement("div");
  el.classList.add(DISCONNECTED_CLASS);
  document.body.appendChild(el);
  let cleanup: () => void = () => {};
  act(() => {
    cleanup = widgetOf(m).render({ model: m, el });
  });
  return { el, cleanup: () => act(() => cleanup()), ...within(el) };
}

function badges(view: { qa(testid: string): HTMLElement[] }) {
  return view.qa("pp-tool-call").map((row) => {
    const badge = within(row).get("pp-tool-status");
    return [row.dataset.status, badge.className, badge.textContent];
  });
}

describe("a tool row after its kernel is gone", () => {
  it("tells what a waiting or running call was doing, in neutral; a settled one keeps its colour", () => {
    const view = mountDisconnected(model());
    expect(badges(view)).toEqual([
      ["interrupted", "pp-badge pp-badge-gone", "was waiting for you"],
      ["running", "pp-badge pp-badge-gone", "was running"],
      ["succeeded", "pp-badge pp-badge-succeeded", "succeeded"],
    ]);
    expect(view.el.querySelector(".pp-badge-interrupted, .pp-badge-running")).toBeNull();
    // The waiting call's history says the same, not that it still waits.
    const pending = within(view.qa("pp-tool-call")[0]!).get("pp-resolution");
    expect(pending.textContent).toBe("Was waiting for an answer when its kernel stopped");
    expect(pending.classList.contains("pp-resolution-pending")).toBe(false);
    view.cleanup();
  });

  it("keeps its colours while the kernel lives, and loses them when it dies", () => {
    const m = model();
    const sessionContext = { statusChanged: new FakeSignal(), kernelChanged: new FakeSignal() };
    (m as unknown as { widget_manager: unknown }).widget_manager = { context: { sessionContext } };
    const view = mount(m);
    expect(badges(view)).toEqual([
      ["interrupted", "pp-badge pp-badge-interrupted", "waiting for you"],
      ["running", "pp-badge pp-badge-running", "running"],
      ["succeeded", "pp-badge pp-badge-succeeded", "succeeded"],
    ]);
    expect(within(view.qa("pp-tool-call")[0]!).get("pp-resolution").classList.contains("pp-resolution-pending")).toBe(true);

    sessionContext.statusChanged.emit("dead");
    expect(badges(view).map(([, className]) => className)).toEqual(["pp-badge pp-badge-gone", "pp-badge pp-badge-gone", "pp-badge pp-badge-succeeded"]);
    view.cleanup();
  });

  it("is neutral in the theme's own colours", () => {
    const css = readFileSync(resolve(__dirname, "../src/widget.css"), "utf8");
    const rule = /\.pp-badge\.pp-badge-gone\s*\{([^}]*)\}/.exec(css);
    expect(rule).not.toBeNull();
    expect(rule![1]).toMatch(/color:\s*var\(--jp-ui-font-color2\)/);
  });
});
