import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { DISCONNECTED_CLASS } from "../src/kernel/liveness";
import { approvalCard, click, FakeModel, initialize, widgetOf, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

/** Renders into an element ipywidgets already marked as having no live comm. */
function mountGone(model: FakeModel) {
  const el = document.createElement("div");
  el.classList.add(DISCONNECTED_CLASS);
  document.body.appendChild(el);
  let cleanup: () => void = () => {};
  act(() => {
    cleanup = widgetOf(model).render({ model, el });
  });
  return { el, cleanup: () => act(() => (cleanup(), el.remove())), ...within(el) };
}

const entry = (i: number) => ({
  runId: `run-${i}`,
  agent: "ops",
  title: `Delete ${i}`,
  createdAt: "2025-01-01T00:00:00Z",
  updatedAt: "2025-01-01T00:05:00Z",
  reason: null,
  cards: [{ ...approvalCard, id: `int-${i}` }],
});

function inbox(entries: unknown[], total?: number) {
  const traits: Record<string, unknown> = { view: "inbox", entries, refreshed_at: "2025-01-01T00:06:00Z" };
  if (total !== undefined) traits.total = total;
  const model = new FakeModel(traits);
  const dispose = initialize(model);
  // Once the kernel is gone, the inbox draws the runs it last listed (no list to ask for).
  const view = mountGone(model);
  return { model, view, done: () => (view.cleanup(), dispose()) };
}

const many = (n: number) => Array.from({ length: n }, (_, i) => entry(i));

describe("an inbox of many waiting runs, its kernel gone", () => {
  it("counts every waiting run and draws the kernel's window of the newest", () => {
    const { view, done } = inbox(many(50), 2000);
    expect(view.get("pp-inbox-count").textContent).toContain("2,000 runs waiting");
    expect(view.qa("pp-inbox-entry")).toHaveLength(50);
    expect(view.get("pp-inbox-shown").textContent).toContain("Showing 50 of 2,000");
    expect(view.get("pp-inbox-more").textContent).toContain("Show 50 more");
    done();
  });

  it("draws a window of a long list the kernel sent whole (a saved page), widened without asking", () => {
    const { model, view, done } = inbox(many(120));
    expect(view.qa("pp-inbox-entry")).toHaveLength(50);
    expect(view.get("pp-inbox-count").textContent).toContain("120 runs waiting");
    click(view.get("pp-inbox-more"));
    click(view.get("pp-inbox-more"));
    expect(view.qa("pp-inbox-entry")).toHaveLength(120);
    expect(view.q("pp-inbox-more")).toBeNull();
    expect(model.sent.filter((r) => r.type === "show")).toEqual([]);
    done();
  });

  it("offers no Show more when every waiting run is drawn", () => {
    const { view, done } = inbox(many(3), 3);
    expect(view.qa("pp-inbox-entry")).toHaveLength(3);
    expect(view.q("pp-inbox-more")).toBeNull();
    done();
  });
});
