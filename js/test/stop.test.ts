import { afterEach, describe, expect, it } from "vitest";
import { click, FakeModel, initialize, mount } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

describe("the Stop button", () => {
  it("shows only while the run is running", () => {
    const model = new FakeModel({ status: "completed" });
    const view = mount(model);
    expect(view.q("pp-stop")).toBeNull();
    model.setTrait("status", "running");
    expect(view.q("pp-stop")).not.toBeNull();
    view.cleanup();
  });

  it("asks the kernel to cancel, and the view shows Stopped once it has stopped", async () => {
    const model = new FakeModel({ status: "running", started_at: Date.now() });
    const stopInit = initialize(model);
    const view = mount(model);

    click(view.get("pp-stop"));

    expect(model.lastRequest().type).toBe("cancel");
    expect(typeof model.lastRequest().requestId).toBe("string");
    expect((view.get("pp-stop") as HTMLButtonElement).disabled).toBe(true);
    expect(view.get("pp-stop").textContent).toContain("Stopping");
    model.setTrait("status", "cancelled");
    await model.respond({ ok: true });
    expect(view.q("pp-stop")).toBeNull();
    expect(view.get("pp-status").textContent).toContain("Stopped");
    expect(view.get("pp-status").dataset.status).toBe("cancelled");
    view.cleanup();
    stopInit();
  });

  it("shows the kernel's error and can be clicked again", async () => {
    const model = new FakeModel({ status: "running" });
    const stopInit = initialize(model);
    const view = mount(model);
    click(view.get("pp-stop"));
    await model.respond({ ok: false, error: { name: "NoEventLoop", message: "no loop" } });
    expect(view.get("pp-stop-error").textContent).toContain("NoEventLoop: no loop");
    expect((view.get("pp-stop") as HTMLButtonElement).disabled).toBe(false);
    view.cleanup();
    stopInit();
  });
});

describe("a cancelled tool call", () => {
  it("has its own badge and shows why it was cancelled", () => {
    const model = new FakeModel({
      status: "cancelled",
      items: [
        { type: "assistant", text: "", tool_calls: [{ id: "c1", name: "refund", input: {} }] },
        {
          type: "tool",
          id: "c1",
          name: "refund",
          input: {},
          status: "cancelled",
          result: null,
          error: { name: "Cancelled", message: "The run was cancelled by the user." },
          interrupts: [],
        },
      ],
    });
    const view = mount(model);
    expect(view.get("pp-tool-status").textContent).toBe("cancelled");
    expect(view.get("pp-tool-error").textContent).toContain("cancelled by the user");
    view.cleanup();
  });
});
