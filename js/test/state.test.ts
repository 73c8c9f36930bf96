import { describe, expect, it } from "vitest";
import { problemPath } from "../src/kernel/protocol";
import { applyMessage, FOLLOW_REQUEST_ID, STREAMING_KEY, spliceItems, streamingText } from "../src/kernel/state";
import type { Item } from "../src/types";
import { FakeModel, initialize, widgetOf } from "./helpers";

const user = (text: string): Item => ({ type: "user", text });

describe("items messages", () => {
  it("replace a range and append past the end", () => {
    const items = [user("a"), user("b"), user("c")];
    expect(spliceItems(items, 1, [user("B")]).map((i) => (i as any).text)).toEqual(["a", "B", "c"]);
    expect(spliceItems(items, 2, [user("C"), user("d")]).map((i) => (i as any).text)).toEqual(["a", "b", "C", "d"]);
    expect(spliceItems(items, 3, [user("d")]).map((i) => (i as any).text)).toEqual(["a", "b", "c", "d"]);
  });

  it("a start beyond the end appends without holes", () => {
    expect(spliceItems([user("a")], 5, [user("b")])).toHaveLength(2);
  });

  it("set a new items array on the model without saving", () => {
    const model = new FakeModel({ items: [user("hi")] });
    const before = model.get("items");
    applyMessage(model, { type: "items", start: 1, items: [{ type: "assistant", text: "hello", tool_calls: [] }] });
    expect(model.get("items")).toHaveLength(2);
    expect(model.get("items")).not.toBe(before);
    expect(before).toHaveLength(1);
    expect(model.saveCalls).toBe(0);
  });
});

describe("following the transcript", () => {
  it("tells the kernel once, as the view starts, that this front end keeps the transcript", () => {
    const model = new FakeModel();
    const dispose = initialize(model);
    expect(model.follows).toEqual([{ type: "follow", requestId: FOLLOW_REQUEST_ID }]);
    model.emit("msg:custom", { type: "items", start: 0, items: [user("x")] }, []);
    model.emit("msg:custom", { type: "items", start: 1, items: [user("y")] }, []);
    expect(model.follows).toHaveLength(1);
    expect(model.sent).toEqual([]);
    // Its response settles nothing that waits.
    model.emit("msg:custom", { type: "response", requestId: FOLLOW_REQUEST_ID, ok: true }, []);
    expect(widgetOf(model).pendingRequests()).toBe(0);
    dispose();
  });

  it("takes a whole transcript sent from the start over a copy the host kept from before", () => {
    const model = new FakeModel({ items: [user("hi"), { type: "assistant", text: "Calling", tool_calls: [] }] });
    const dispose = initialize(model);
    const now = [user("hi"), { type: "assistant", text: "Calling", tool_calls: [] }, { type: "assistant", text: "Done", tool_calls: [] }];
    model.emit("msg:custom", { type: "items", start: 0, items: now }, []);
    expect((model.get("items") as unknown[]).map((i) => (i as { text: string }).text)).toEqual(["hi", "Calling", "Done"]);
    dispose();
  });
});

describe("streamed text", () => {
  it("accumulates deltas and is cleared when an assistant message is appended", () => {
    const model = new FakeModel({ items: [user("hi")], status: "running" });
    applyMessage(model, { type: "text", delta: "Hel" });
    applyMessage(model, { type: "text", delta: "lo" });
    expect(streamingText(model)).toBe("Hello");
    applyMessage(model, { type: "items", start: 0, items: [user("hi (edited)")] });
    expect(streamingText(model)).toBe("Hello");
    applyMessage(model, { type: "items", start: 1, items: [{ type: "assistant", text: "Hello", tool_calls: [] }] });
    expect(streamingText(model)).toBe("");
    expect(model.saveCalls).toBe(0);
  });

  it("is cleared when the run stops running", () => {
    const model = new FakeModel({ status: "running" });
    const dispose = initialize(model);
    model.emit("msg:custom", { type: "text", delta: "partial" });
    expect(model.get(STREAMING_KEY)).toBe("partial");
    model.set("status", "failed");
    expect(model.get(STREAMING_KEY)).toBe("");
    dispose();
  });
});

describe("initialize", () => {
  it("listens to custom messages and its cleanup removes what it added", () => {
    const model = new FakeModel();
    const dispose = initialize(model);
    expect(model.listenerCount()).toBeGreaterThan(0);
    model.emit("msg:custom", { type: "items", start: 0, items: [user("x")] }, []);
    expect(model.get("items")).toEqual([user("x")]);
    dispose();
    expect(model.listenerCount()).toBe(0);
    expect(model.offCalls).toBe(model.onCalls);
  });

  it("ignores unknown messages", () => {
    const model = new FakeModel();
    const dispose = initialize(model);
    model.emit("msg:custom", { type: "mystery" }, []);
    model.emit("msg:custom", null, []);
    expect(model.get("items")).toEqual([]);
    dispose();
  });
});

describe("problem paths", () => {
  it("understand pointers, JSON paths, dotted strings and key arrays", () => {
    expect(problemPath("/a/b/0")).toBe("a.b.0");
    expect(problemPath("$.a.b[0]")).toBe("a.b.0");
    expect(problemPath("$")).toBe("");
    expect(problemPath("a.b")).toBe("a.b");
    expect(problemPath(["a", 0])).toBe("a.0");
    expect(problemPath(null)).toBe("");
  });
});
