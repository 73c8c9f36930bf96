import { afterEach, describe, expect, it } from "vitest";
import { approvalCard, click, FakeModel, initialize, mount } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

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
  const view = mount(model);
  return { model, view, done: () => (view.cleanup(), dispose()) };
}

const many = (n: number) => Array.from({ length: n }, (_, i) => entry(i));

describe("an inbox of many waiting runs", () => {
  it("counts every waiting run and draws the kernel's window of the newest", () => {
    const { view, done } = inbox(many(50), 2000);
    expect(view.get("pp-inbox-count").textContent).toContain("2,000 runs waiting");
    expect(view.qa("pp-inbox-entry")).toHaveLength(50);
    expect(view.get("pp-inbox-shown").textContent).toContain("Showing 50 of 2,000");
    expect(view.get("pp-inbox-more").textContent).toContain("Show 50 more");
    done();
  });

  it("Show more asks the kernel to list the next runs, and draws them when they come", () => {
    const { model, view, done } = inbox(many(50), 2000);
    click(view.get("pp-inbox-more"));
    expect(model.lastRequest()).toEqual({ type: "show", count: 100, requestId: expect.any(String) });
    model.setTrait("entries", many(100));
    expect(view.qa("pp-inbox-entry")).toHaveLength(100);
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
    expect(model.sent).toEqual([]);
    done();
  });

  it("offers no Show more when every waiting run is drawn", () => {
    const { view, done } = inbox(many(3), 3);
    expect(view.qa("pp-inbox-entry")).toHaveLength(3);
    expect(view.q("pp-inbox-more")).toBeNull();
    done();
  });
});
