import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { approvalCard, FakeModel, flushMicrotasks, initialize, mount } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

describe("cleanup", () => {
  it("removes every listener and timer that initialize and render added", async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2025-01-01T00:00:00Z"));
    Object.defineProperty(navigator, "clipboard", { value: { writeText: async () => {} }, configurable: true });
    const model = new FakeModel({
      status: "running",
      started_at: Date.now() - 5000,
      pending: [{ ...approvalCard, expiresAt: "2025-01-01T00:10:00Z" }],
    });
    const dispose = initialize(model);
    const a = mount(model);
    const b = mount(model);
    await act(async () => {
      a.get("pp-copy").click();
      await flushMicrotasks();
    });
    model.message({ type: "text", delta: "hi" });
    model.setTrait("items", [{ type: "user", text: "again" }]);
    act(() => {
      vi.advanceTimersByTime(1500);
    });

    expect(model.listenerCount()).toBeGreaterThan(2);
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    const element = a.el;
    a.cleanup();
    b.cleanup();
    dispose();

    expect(model.listenerCount()).toBe(0);
    expect(model.offCalls).toBe(model.onCalls);
    expect(vi.getTimerCount()).toBe(0);
    expect(element.childElementCount).toBe(0);
  });

  it("a view's cleanup leaves the other views and initialize listening", () => {
    const model = new FakeModel();
    const dispose = initialize(model);
    const a = mount(model);
    const b = mount(model);
    a.cleanup();
    model.message({ type: "items", start: 0, items: [{ type: "user", text: "still here" }] });
    expect(b.get("pp-item").textContent).toContain("still here");
    b.cleanup();
    dispose();
    expect(model.listenerCount()).toBe(0);
  });
});
