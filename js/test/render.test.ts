import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Item } from "../src/types";
import { click, FakeModel, flushMicrotasks, initialize, mount, within } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

const transcript: Item[] = [
  { type: "user", text: "Clean up **tmp**" },
  {
    type: "assistant",
    text: "Sure.",
    tool_calls: [
      { id: "c1", name: "list_files", input: {} },
      { id: "c2", name: "delete_file", input: { path: "a" } },
      { id: "c3", name: "later", input: {} },
    ],
  },
  { type: "tool", id: "c1", name: "list_files", input: {}, status: "succeeded", result: ["a", "b"], error: null, interrupts: [] },
  {
    type: "tool",
    id: "c2",
    name: "delete_file",
    input: { path: "a" },
    status: "failed",
    result: null,
    error: { name: "PermissionError", message: "read-only" },
    interrupts: [
      {
        id: "i1",
        kind: "tool-approval",
        message: "Delete a?",
        data: { path: "a" },
        state: { step: 1 },
        response_schema: null,
        created_at: "2025-01-01T00:00:00Z",
        expires_at: null,
        resolution: { type: "resume", data: { approved: true }, at: "2025-01-01T00:01:00Z" },
      },
      {
        id: "i2",
        kind: "generic",
        message: "Really?",
        data: null,
        state: null,
        response_schema: null,
        created_at: "2025-01-01T00:02:00Z",
        expires_at: null,
        resolution: { type: "reject", error: { name: "Rejected", message: "changed my mind" }, at: "2025-01-01T00:03:00Z" },
      },
    ],
  },
];

describe("header", () => {
  it("shows running with a spinner and the elapsed time from started_at", () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2025-01-01T00:00:00Z"));
    const model = new FakeModel({ status: "running", started_at: Date.now() - 65_000 });
    const view = mount(model);
    const status = view.get("pp-status");
    expect(status.dataset.status).toBe("running");
    expect(status.getAttribute("aria-live")).toBe("polite");
    expect(status.querySelector(".pp-spinner")).not.toBeNull();
    expect(view.get("pp-elapsed").textContent).toBe("1:05");
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(view.get("pp-elapsed").textContent).toBe("1:07");
    view.cleanup();
  });

  it("shows interrupted with the number of pending interrupts", () => {
    const model = new FakeModel({
      status: "interrupted",
      pending: [
        { id: "a", kind: "unbound", canResolve: false, message: "m" },
        { id: "b", kind: "unbound", canResolve: false, message: "n" },
      ],
    });
    const view = mount(model);
    expect(view.get("pp-status").textContent).toContain("Waiting for an answer");
    // Another producer's pauses are shown, but no click here answers them.
    expect(view.get("pp-pending-jump").textContent).toContain("2 pauses are shown, not answerable here");
    view.cleanup();
  });

  it("shows completed, and failed with the error", () => {
    const model = new FakeModel({ status: "completed" });
    const view = mount(model);
    expect(view.get("pp-status").textContent).toContain("Completed");
    model.setTrait("error", { name: "ModelError", message: "rate limited" });
    model.setTrait("status", "failed");
    expect(view.get("pp-status").dataset.status).toBe("failed");
    expect(view.get("pp-status").textContent).toContain("ModelError: rate limited");
    expect(view.q("pp-elapsed")).toBeNull();
    view.cleanup();
  });

  it("shows the run id", () => {
    const view = mount(new FakeModel({ run_id: "run-42" }));
    expect(view.get("pp-run-id").textContent).toBe("run-42");
    view.cleanup();
  });

  it("copies the prompt as pretty JSON and says so", async () => {
    const writeText = vi.fn(async (_text: string) => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const model = new FakeModel({ items: [{ type: "user", text: "hi" }] });
    const view = mount(model);
    const button = view.get("pp-copy");
    expect(button.tagName).toBe("BUTTON");
    expect(button.getAttribute("aria-label")).toBeTruthy();
    await act(async () => {
      button.click();
      await flushMicrotasks();
    });
    const text = writeText.mock.calls[0][0];
    expect(JSON.parse(text)).toEqual({ ...model.get("meta"), items: [{ type: "user", text: "hi" }] });
    expect(text).toContain('\n  "items"');
    expect(button.textContent).toContain("Copied");
    view.cleanup();
  });

  it("falls back to a selection copy without the clipboard API", async () => {
    Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
    const exec = vi.fn(() => true);
    (document as any).execCommand = exec;
    const view = mount(new FakeModel());
    await act(async () => {
      view.get("pp-copy").click();
      await flushMicrotasks();
    });
    expect(exec).toHaveBeenCalledWith("copy");
    expect(view.get("pp-copy").textContent).toContain("Copied");
    expect(document.querySelectorAll("textarea:not([data-testid])")).toHaveLength(0);
    view.cleanup();
  });
});

describe("transcript", () => {
  it("renders every item type", () => {
    const view = mount(new FakeModel({ items: transcript }));
    const messages = view.qa("pp-item");
    expect(messages.map((m) => m.dataset.type)).toEqual(["user", "assistant"]);
    expect(messages[0].querySelector("strong")?.textContent).toBe("tmp");
    const calls = view.qa("pp-tool-call");
    expect(calls.map((c) => [c.dataset.name, c.dataset.status])).toEqual([
      ["list_files", "succeeded"],
      ["delete_file", "failed"],
      ["later", "pending"],
    ]);
    view.cleanup();
  });

  it("shows a tool call's input, result, error and interrupt history", () => {
    const view = mount(new FakeModel({ items: transcript }));
    const [ok, failed] = view.qa("pp-tool-call");
    expect(ok.tagName).toBe("DETAILS");
    // Collapsed by default, except a failed call; the summary opens it.
    expect((ok as HTMLDetailsElement).open).toBe(false);
    expect(within(ok).q("pp-tool-result")).toBeNull();
    expect((failed as HTMLDetailsElement).open).toBe(true);
    click(ok.querySelector("summary")!);
    expect((ok as HTMLDetailsElement).open).toBe(true);
    expect(ok.querySelector("summary")?.textContent).toContain("list_files");
    expect(within(ok).get("pp-tool-status").textContent).toBe("succeeded");
    expect(within(ok).get("pp-tool-result").textContent).toContain('"a"');
    expect(within(failed).get("pp-tool-error").textContent).toContain("PermissionError");
    const entries = within(failed).qa("pp-interrupt-entry");
    expect(entries).toHaveLength(2);
    expect(entries[0].textContent).toContain("Delete a?");
    expect(entries[0].textContent).toContain("Checkpoint");
    expect(entries[0].textContent).toContain('"step": 1');
    expect(within(entries[0]).get("pp-resolution").dataset.type).toBe("resume");
    expect(within(entries[0]).get("pp-resolution").textContent).toContain("Approved");
    expect(entries[0].textContent).toContain("Approval");
    expect(entries[0].textContent).not.toContain("tool-approval");
    expect(within(entries[1]).get("pp-resolution").dataset.type).toBe("reject");
    expect(within(entries[1]).get("pp-resolution").textContent).toContain("Declined: changed my mind");
    expect(entries[1].textContent).not.toContain("generic");
    view.cleanup();
  });

  it("marks a pending history entry and opens an interrupted call", () => {
    const items: Item[] = [
      {
        type: "tool",
        id: "c9",
        name: "ask",
        input: {},
        status: "interrupted",
        result: null,
        error: null,
        interrupts: [
          {
            id: "i9",
            kind: "generic",
            message: "Which?",
            data: null,
            state: null,
            response_schema: null,
            created_at: null,
            expires_at: null,
            resolution: null,
          },
        ],
      },
    ];
    const view = mount(new FakeModel({ items }));
    const call = view.get("pp-tool-call") as HTMLDetailsElement;
    expect(call.open).toBe(true);
    expect(within(call).get("pp-resolution").dataset.type).toBe("pending");
    view.cleanup();
  });

  it("updates two views of one model from items and text messages", () => {
    const model = new FakeModel({ status: "running", items: [{ type: "user", text: "hi" }] });
    const dispose = initialize(model);
    const a = mount(model);
    const b = mount(model);
    model.message({ type: "text", delta: "Hel" });
    model.message({ type: "text", delta: "lo there" });
    for (const view of [a, b]) expect(view.get("pp-streaming").textContent).toContain("Hello there");
    model.message({
      type: "items",
      start: 1,
      items: [
        { type: "assistant", text: "Hello there", tool_calls: [{ id: "c1", name: "search", input: { q: "x" } }] },
        { type: "tool", id: "c1", name: "search", input: { q: "x" }, status: "running", result: null, error: null, interrupts: [] },
      ],
    });
    for (const view of [a, b]) {
      expect(view.q("pp-streaming")).toBeNull();
      expect(view.qa("pp-item").map((i) => i.dataset.type)).toEqual(["user", "assistant"]);
      expect(view.get("pp-tool-call").dataset.status).toBe("running");
    }
    model.message({
      type: "items",
      start: 2,
      items: [{ type: "tool", id: "c1", name: "search", input: { q: "x" }, status: "succeeded", result: "found", error: null, interrupts: [] }],
    });
    for (const view of [a, b]) {
      expect(view.qa("pp-tool-call")).toHaveLength(1);
      expect(view.get("pp-tool-call").dataset.status).toBe("succeeded");
    }
    expect(model.saveCalls).toBe(0);
    a.cleanup();
    b.cleanup();
    dispose();
  });
});
