import { afterEach, describe, expect, it, vi } from "vitest";
import { formatBytes, previewOf } from "../src/components/Preview";
import type { Item } from "../src/types";
import { approvalCard, click, FakeModel, flushMicrotasks, initialize, isDisabled, mount } from "./helpers";

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = "";
});

const FIVE_MIB = 5 * 1024 * 1024;
const marker = (text: string, bytes: number, ref: string) => ({ "pausepoint:preview": { text, bytes, ref } });

function toolWith(result: unknown, extra: Record<string, unknown> = {}): Item {
  return {
    type: "tool",
    id: "c1",
    name: "fetch_log",
    input: { topic: "a" },
    status: "succeeded",
    result,
    error: null,
    interrupts: [],
    ...extra,
  } as Item;
}

function setup(attrs: Record<string, unknown>) {
  const model = new FakeModel(attrs);
  const dispose = initialize(model);
  const view = mount(model);
  return {
    model,
    view,
    done() {
      view.cleanup();
      dispose();
    },
  };
}

function openTool(view: ReturnType<typeof mount>) {
  click(view.el.querySelector<HTMLElement>(".pp-tool-summary")!);
}

describe("previews of large values", () => {
  it("shows the start of a large result with its whole size, and Show all fetches it", async () => {
    const { model, view, done } = setup({ status: "completed", items: [toolWith(marker("rrrr", FIVE_MIB, "item/0/result"))] });
    openTool(view);
    const preview = view.get("pp-preview");
    expect(view.get("pp-preview-text").textContent).toBe("rrrr…");
    expect(view.get("pp-preview-size").textContent).toContain("5.0 MiB");
    expect(preview.textContent).not.toContain("pausepoint:preview");

    click(view.get("pp-preview-show-all"));
    expect(model.lastRequest()).toMatchObject({ type: "value", ref: "item/0/result" });
    expect(view.get("pp-preview").dataset.state).toBe("loading");
    await model.respond({ ok: true, value: "r".repeat(100) });

    expect(view.get("pp-preview-text").textContent).toBe("r".repeat(100));
    expect(view.get("pp-preview-size").textContent).toBe("All 5.0 MiB");
    expect(view.q("pp-preview-show-all")).toBeNull();
    done();
  });

  it("shows a long message as a preview of its words, fetched whole on request", async () => {
    const items = [{ type: "user", text: marker("Dear team, ", 80_000, "item/0/text") }] as Item[];
    const { model, view, done } = setup({ status: "completed", items });
    const message = view.get("pp-item");
    expect(message.textContent).not.toContain("[object Object]");
    expect(view.get("pp-preview-text").textContent).toBe("Dear team, …");
    click(view.get("pp-preview-show-all"));
    expect(model.lastRequest()).toMatchObject({ type: "value", ref: "item/0/text" });
    await model.respond({ ok: true, value: "Dear team, all of it" });
    expect(view.get("pp-preview-text").textContent).toBe("Dear team, all of it");
    done();
  });

  it("shows a whole JSON value indented", async () => {
    const { model, view, done } = setup({ status: "completed", items: [toolWith(marker("{", 40_000, "item/0/result"))] });
    openTool(view);
    click(view.get("pp-preview-show-all"));
    await model.respond({ ok: true, value: { rows: [1, 2] } });
    expect(view.get("pp-preview-text").textContent).toBe(JSON.stringify({ rows: [1, 2] }, null, 2));
    done();
  });

  it("says why when the kernel cannot give the whole value", async () => {
    const { model, view, done } = setup({ status: "completed", items: [toolWith(marker("r", FIVE_MIB, "item/0/result"))] });
    openTool(view);
    click(view.get("pp-preview-show-all"));
    await model.respond({ ok: false, error: { name: "UsageError", message: "The view has no value there any more." } });
    expect(view.get("pp-preview-error").textContent).toContain("no value there any more");
    expect(isDisabled(view.get("pp-preview-show-all"))).toBe(false);
    done();
  });

  it("copies the whole value, not the preview", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    const { model, view, done } = setup({ status: "completed", items: [toolWith(marker("ab", FIVE_MIB, "item/0/result"))] });
    openTool(view);
    click(view.get("pp-preview-copy"));
    expect(model.lastRequest()).toMatchObject({ type: "value", ref: "item/0/result" });
    await model.respond({ ok: true, value: "abcdef" });
    await flushMicrotasks();
    expect(writeText).toHaveBeenCalledWith("abcdef");
    expect(view.get("pp-preview-copied").textContent).toBe("Copied");
    done();
  });

  it("shows an assistant's long text and a long error message as previews", () => {
    const items: Item[] = [
      { type: "assistant", text: marker("Once upon", 90_000, "item/0/text") as unknown as string },
      toolWith(null, { status: "failed", error: { name: "DumpError", message: marker("Traceback", 70_000, "item/1/error/message") } }),
    ];
    const { view, done } = setup({ status: "completed", items });
    const previews = view.el.querySelectorAll<HTMLElement>('[data-testid="pp-preview"]');
    expect([...previews].map((p) => p.dataset.bytes)).toEqual(["90000", "70000"]);
    expect(view.el.textContent).toContain("Once upon…");
    expect(view.el.textContent).toContain("Traceback…");
    expect(view.el.textContent).not.toContain("[object Object]");
    done();
  });

  it("lets no one edit arguments that arrived as a preview, and approving sends no preview back", () => {
    const card = { ...approvalCard, args: marker('{\n  "body": "bbb', 3 * 32 * 1024, "card/int-approve/args") };
    const { model, view, done } = setup({ status: "interrupted", pending: [card] });
    expect(isDisabled(view.get("pp-edit-args"))).toBe(true);
    expect(view.get("pp-too-large-to-edit").textContent).toContain("96.0 KiB");
    click(view.get("pp-approve"));
    expect(model.lastRequest()).toMatchObject({ type: "resume", interrupt: "int-approve", data: true });
    done();
  });

  it("says why small arguments holding the preview key arrived as a preview of themselves", () => {
    const own = '{\n  "pausepoint:preview": {\n    "text": "{\\"path\\": \\"/tmp\\"}"\n  },\n  "path": "/"\n}';
    const card = { ...approvalCard, args: marker(own, 120, "card/int-approve/args") };
    const { view, done } = setup({ status: "interrupted", pending: [card] });
    expect(isDisabled(view.get("pp-edit-args"))).toBe(true);
    const note = view.get("pp-too-large-to-edit").textContent ?? "";
    expect(note).toContain("hold the key pausepoint:preview");
    expect(note).not.toContain("too large");
    expect(view.get("pp-args").textContent).toContain('"path": "/"');
    done();
  });

  it("keeps editing for arguments that came whole", () => {
    const { view, done } = setup({ status: "interrupted", pending: [approvalCard] });
    expect(isDisabled(view.get("pp-edit-args"))).toBe(false);
    expect(view.q("pp-too-large-to-edit")).toBeNull();
    done();
  });
});

describe("Copy JSON with previews in the transcript", () => {
  it("copies the kernel's whole transcript instead of the previews", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    const { model, view, done } = setup({ status: "completed", items: [toolWith(marker("r", FIVE_MIB, "item/0/result"))] });
    click(view.get("pp-copy"));
    expect(model.lastRequest()).toMatchObject({ type: "value", ref: "prompt/json" });
    await model.respond({ ok: true, value: { run_id: "run-1", items: [{ result: "whole" }] } });
    await flushMicrotasks();
    expect(writeText).toHaveBeenCalledWith(JSON.stringify({ run_id: "run-1", items: [{ result: "whole" }] }, null, 2));
    done();
  });
});

describe("preview helpers", () => {
  it("reads only well-formed markers", () => {
    expect(previewOf(marker("a", 1, "r"))).toEqual({ text: "a", bytes: 1, ref: "r" });
    expect(previewOf({ "pausepoint:preview": { text: "a" } })).toBeNull();
    expect(previewOf({ other: 1 })).toBeNull();
    expect(previewOf("pausepoint:preview")).toBeNull();
    expect(previewOf([marker("a", 1, "r")])).toBeNull();
  });

  it("formats sizes in binary units", () => {
    expect(formatBytes(812)).toBe("812 bytes");
    expect(formatBytes(32 * 1024 + 512)).toBe("32.5 KiB");
    expect(formatBytes(50 * 1024 * 1024)).toBe("50.0 MiB");
  });
});
