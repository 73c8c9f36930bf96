import { afterEach, describe, expect, it } from "vitest";
import { click, FakeModel, initialize, isDisabled, mount, typeInto } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

const breakpointCard = {
  id: "int-bp",
  kind: "breakpoint",
  canResolve: true,
  message: "Paused before refund (breakpoint).",
  readOnlyReason: null,
  data: { toolName: "refund", args: { cents: 12000 }, why: "breakpoint" },
  toolCallId: "call-1",
  toolName: "refund",
  args: { cents: 12000 },
  inputSchema: { type: "object", properties: { cents: { type: "integer" } }, required: ["cents"] },
  responseSchema: null,
  createdAt: "2025-01-01T00:00:00Z",
  expiresAt: null,
};

function shown(attrs: Record<string, unknown>) {
  const model = new FakeModel(attrs);
  const dispose = initialize(model);
  const view = mount(model);
  return { model, view, done: () => (view.cleanup(), dispose()) };
}

describe("one way to send a request and show its outcome", () => {
  it("a breakpoint edit the kernel refuses shows the problem beside the cents field, and the edit can be sent again", async () => {
    const { model, view, done } = shown({ status: "interrupted", pending: [breakpointCard] });
    click(view.get("pp-debug-edit"));
    typeInto(view.get("pp-field-cents"), "-5");
    click(view.get("pp-debug-run-edited"));
    expect(model.lastRequest().data).toEqual({ action: "edit", args: { cents: -5 } });
    expect(view.get("pp-sending")).toBeTruthy();
    expect(isDisabled(view.get("pp-debug-run-edited"))).toBe(true);

    await model.respond({
      ok: false,
      error: {
        name: "InvalidResolutionError",
        message: "The edited arguments do not fit.",
        problems: [{ path: "$.args.cents", message: "Input should be greater than 0" }],
      },
    });
    const error = view.qa("pp-field-error").find((e) => e.dataset.path === "cents");
    expect(error?.textContent).toBe("Input should be greater than 0");
    const input = view.get("pp-field-cents");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toContain(error!.id);
    expect(view.get("pp-problem").dataset.path).toBe("cents");
    expect(view.q("pp-sending")).toBeNull();

    expect(isDisabled(view.get("pp-debug-run-edited"))).toBe(false);
    typeInto(view.get("pp-field-cents"), "5");
    click(view.get("pp-debug-run-edited"));
    expect(model.sent).toHaveLength(2);
    expect(model.lastRequest().data).toEqual({ action: "edit", args: { cents: 5 } });
    done();
  });

  it("a breakpoint answered elsewhere keeps its controls off", async () => {
    const { model, view, done } = shown({ status: "interrupted", pending: [breakpointCard] });
    click(view.get("pp-debug-skip"));
    await model.respond({ ok: false, error: { name: "InterruptAlreadyResolvedError", message: "answered in another view" } });
    expect(view.get("pp-card-error").textContent).toContain("already been answered");
    expect(view.get("pp-card").dataset.phase).toBe("closed");
    expect(isDisabled(view.get("pp-debug-continue"))).toBe(true);
    done();
  });

  it("the Stop button shows the kernel's error and can be used again", async () => {
    const { model, view, done } = shown({ status: "running", started_at: Date.now() });
    click(view.get("pp-stop"));
    expect(view.get("pp-stop").textContent).toContain("Stopping");
    expect(isDisabled(view.get("pp-stop"))).toBe(true);
    await model.respond({ ok: false, error: { name: "RunBusyError", message: "The run is saving." } });
    expect(view.get("pp-stop-error").textContent).toContain("The run is saving.");
    expect(view.get("pp-stop").textContent).toContain("Stop");
    expect(view.get("pp-stop").textContent).not.toContain("Stopping");
    expect(isDisabled(view.get("pp-stop"))).toBe(false);
    click(view.get("pp-stop"));
    expect(model.sent.map((m) => m.type)).toEqual(["cancel", "cancel"]);
    expect(view.q("pp-stop-error")).toBeNull();
    done();
  });

  it("a model pause shows Sending…, then the kernel's error, and its buttons work again", async () => {
    const { model, view, done } = shown({ status: "paused", pending: [] });
    click(view.get("pp-debug-step"));
    expect(view.get("pp-sending").textContent).toContain("Sending");
    expect(isDisabled(view.get("pp-debug-step"))).toBe(true);
    expect(isDisabled(view.get("pp-debug-continue"))).toBe(true);

    await model.respond({ ok: false, error: { name: "RunBusyError", message: "not paused any more" } });
    expect(view.get("pp-card-error").textContent).toContain("not paused any more");
    expect(view.q("pp-sending")).toBeNull();
    expect(isDisabled(view.get("pp-debug-step"))).toBe(false);

    click(view.get("pp-debug-continue"));
    expect(model.lastRequest()).toEqual({ type: "debug", action: "continue", requestId: expect.any(String) });
    expect(view.q("pp-card-error")).toBeNull();
    await model.respond({ ok: true });
    expect(isDisabled(view.get("pp-debug-continue"))).toBe(false);
    done();
  });

  it("the inbox's Refresh says so while it waits, shows the kernel's error, and works again", async () => {
    const { model, view, done } = shown({ view: "inbox", entries: [], refreshed_at: "" });
    click(view.get("pp-inbox-refresh"));
    expect(view.get("pp-inbox-refresh").textContent).toContain("Refreshing");
    expect(isDisabled(view.get("pp-inbox-refresh"))).toBe(true);
    await model.respond({ ok: false, error: { name: "StoreError", message: "the store is locked" } });
    expect(view.get("pp-inbox-error").textContent).toContain("the store is locked");
    expect(isDisabled(view.get("pp-inbox-refresh"))).toBe(false);
    click(view.get("pp-inbox-refresh"));
    await model.respond({ ok: true });
    expect(view.q("pp-inbox-error")).toBeNull();
    expect(view.get("pp-inbox-refresh").textContent).toBe("Refresh");
    done();
  });
});
