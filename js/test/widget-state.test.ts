import { afterEach, describe, expect, it, vi } from "vitest";
import createWidget from "../src/index";
import { approvalCard, click, FakeModel, initialize, mount, widgetOf } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

function paused() {
  const model = new FakeModel({ status: "interrupted", pending: [approvalCard] });
  const dispose = initialize(model);
  return { model, dispose };
}

describe("state per widget", () => {
  it("the module's default export makes a new widget each time, as anywidget asks it once per model", () => {
    const one = createWidget();
    const two = createWidget();
    expect(one).not.toBe(two);
    expect(typeof one.initialize).toBe("function");
    expect(typeof one.render).toBe("function");
  });

  it("a pending request of one widget is not answered by another widget's response", async () => {
    const a = paused();
    const b = paused();
    const viewA = mount(a.model);
    const viewB = mount(b.model);

    click(viewA.get("pp-approve"));
    const request = a.model.lastRequest();
    expect(widgetOf(a.model).pendingRequests()).toBe(1);
    expect(widgetOf(b.model).pendingRequests()).toBe(0);

    await b.model.respond({ ok: true }, request);
    expect(viewA.get("pp-card").dataset.phase).toBe("sending");
    expect(widgetOf(a.model).pendingRequests()).toBe(1);
    expect(viewB.get("pp-card").dataset.phase).toBe("idle");

    await a.model.respond({ ok: true }, request);
    expect(viewA.get("pp-card").dataset.phase).toBe("sent");
    expect(widgetOf(a.model).pendingRequests()).toBe(0);
    viewA.cleanup();
    viewB.cleanup();
    a.dispose();
    b.dispose();
  });

  it("two views of one model share its requests: a view's request is answered through the model's initialize", async () => {
    const { model, dispose } = paused();
    const first = mount(model);
    const second = mount(model);

    click(second.get("pp-approve"));
    click(first.get("pp-approve"));
    expect(widgetOf(model).pendingRequests()).toBe(2);
    await model.respond({ ok: true }, model.sent[0]);
    expect(second.get("pp-card").dataset.phase).toBe("sent");
    expect(first.get("pp-card").dataset.phase).toBe("sending");
    await model.respond({ ok: false, error: { name: "InterruptAlreadyResolvedError", message: "already answered" } }, model.sent[1]);
    expect(first.get("pp-card-error").textContent).toContain("already answered");
    expect(widgetOf(model).pendingRequests()).toBe(0);
    first.cleanup();
    second.cleanup();
    dispose();
  });

  it("cleanup releases the widget's pending requests and their timers", async () => {
    vi.useFakeTimers();
    const { model, dispose } = paused();
    const view = mount(model);
    click(view.get("pp-approve"));
    expect(widgetOf(model).pendingRequests()).toBe(1);
    expect(vi.getTimerCount()).toBeGreaterThan(0);

    view.cleanup();
    dispose();
    expect(widgetOf(model).pendingRequests()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(model.listenerCount()).toBe(0);
    // A reply that arrives after the widget has gone finds nothing to settle.
    await model.respond({ ok: true });
    expect(widgetOf(model).pendingRequests()).toBe(0);
  });
});
