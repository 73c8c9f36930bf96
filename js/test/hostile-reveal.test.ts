/**
 * Every string the view draws that came from a model, a tool, a person or a store file
 * goes through the reveal path: no raw hidden character reaches a text node or an
 * attribute, whatever surface draws it. Only what an edit field holds stays exact.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Item } from "../src/types";
import { T } from "./fixtures-past";
import { approvalCard, click, FakeModel, initialize, mount, openDebug, typeInto, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

const RAW = /[\u202E\u200B]/;
/** A string with a right-to-left override and a zero-width space in it. */
const X = (s: string) => `${s}\u202Eli\u200Bve`;

/** Where a raw hidden character is left in `root`: text nodes and attributes, except the
 * values edit fields hold (kept exact, with a warning beside them). */
function rawHidden(root: HTMLElement): string[] {
  const found: string[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
    if (node.nodeType === Node.TEXT_NODE) {
      if (node.parentElement?.closest("textarea")) continue;
      if (RAW.test(node.nodeValue ?? ""))
        found.push(`text in <${node.parentElement?.tagName.toLowerCase()} class="${node.parentElement?.className}">: ${JSON.stringify(node.nodeValue)}`);
      continue;
    }
    const element = node as HTMLElement;
    for (const attr of element.attributes) {
      if (attr.name === "value" && /^(INPUT|TEXTAREA)$/.test(element.tagName)) continue;
      if (RAW.test(attr.value)) found.push(`${element.tagName.toLowerCase()}[${attr.name}]: ${JSON.stringify(attr.value.slice(0, 80))}`);
    }
  }
  return found;
}

const entry = (id: string, kind: string, created: number, resolution: unknown, extra: Record<string, unknown> = {}) => ({
  id: X(id),
  kind,
  message: X(`message of ${id}`),
  data: { [X("data key")]: X("data value") },
  state: null,
  response_schema: null,
  created_at: T(created),
  expires_at: null,
  resolution,
  ...extra,
});

const schema = {
  type: "object",
  title: X("Schema title"),
  properties: {
    [X("note")]: { type: "string", title: X("Note"), description: X("What to say"), default: X("said") },
    choice: { type: "string", enum: [X("one"), "two"], title: X("Choice") },
    tags: { type: "array", items: { type: "string", format: X("fmt") }, title: X("Tags"), default: [X("tag")] },
    nested: { type: "object", title: X("Nested"), properties: { deep: { type: "string", pattern: X("^(a+)+$") } } },
  },
  required: [X("note")],
};

const items = [
  { type: "user", text: X("go") },
  {
    type: "assistant",
    text: X("Doing it"),
    tool_calls: [
      { id: X("c-1"), name: X("lookup"), input: { [X("query")]: X("q") } },
      { id: X("c-2"), name: X("refund"), input: { to: X("alice") } },
    ],
    call: { model: X("model"), started_at: T(0), ended_at: T(0.5), usage: { [X("input_tokens")]: 5 }, finish_reason: X("tool_calls") },
  },
  {
    type: "tool",
    id: X("c-1"),
    name: X("lookup"),
    input: { [X("query")]: X("q") },
    status: "failed",
    result: { "pausepoint:preview": { text: X("start of a large value"), bytes: 1_000_000, ref: "item/2/result" } },
    error: { name: X("LookupError"), message: X("no such thing") },
    started_at: T(1),
    ended_at: T(2),
    interrupts: [
      entry("bp", "breakpoint", 0.6, { type: "resume", data: { action: "edit", args: { [X("query")]: X("edited") } }, at: T(0.9) }),
      entry("ap", "tool-approval", 0.95, { type: "reject", error: { name: X("Rejected"), message: X("not that") }, at: T(0.99) }),
    ],
  },
  {
    type: "tool",
    id: X("c-2"),
    name: X("refund"),
    input: { to: X("alice") },
    status: "interrupted",
    started_at: T(3),
    interrupts: [entry("ap2", "tool-approval", 3, null), entry("q", "generic", 3, null), entry("b2", "breakpoint", 3, null)],
  },
] as unknown as Item[];

const pending = [
  { ...approvalCard, id: X("ap2"), toolCallId: X("c-2"), toolName: X("refund"), message: X("Refund?"), args: { to: X("alice") }, inputSchema: null },
  {
    ...approvalCard,
    id: X("q"),
    kind: "generic",
    toolCallId: null,
    toolName: X("refund"),
    message: X("Which?"),
    args: null,
    data: { [X("k")]: X("v") },
    responseSchema: schema,
  },
  { ...approvalCard, id: X("b2"), kind: "breakpoint", toolCallId: null, toolName: X("refund"), message: X("Paused"), args: { to: X("alice") } },
  {
    ...approvalCard,
    id: X("u"),
    kind: "unbound",
    canResolve: false,
    toolCallId: null,
    toolName: null,
    message: X("Deploy?"),
    readOnlyReason: X("another producer"),
    args: null,
  },
];

describe("hidden characters on every surface", () => {
  it("are markers in every text and attribute of a run view, the Debug panel, the slider, Compare and Show all", async () => {
    const model = new FakeModel({
      run_id: X("run-1"),
      status: "failed",
      error: { name: X("RunError"), message: X("it broke") },
      items,
      pending,
      forks: [{ runId: X("run-fork"), interruptId: X("ap"), status: "completed", items: 3 }],
    });
    const dispose = initialize(model);
    const view = mount(model);
    const check = (where: string) => expect(rawHidden(view.el), where).toEqual([]);
    check("at first");
    expect(view.get("pp-status").textContent).toContain("U+202E");

    for (const call of view.el.querySelectorAll<HTMLDetailsElement>("details.pp-tool:not([open])")) click(call.querySelector("summary")!);
    check("tool calls open");

    click(view.get("pp-preview-show-all"));
    await model.respond({ ok: true, value: X("the whole value") });
    expect(view.get("pp-preview").dataset.state).toBe("shown");
    check("after Show all");

    openDebug(view);
    expect(view.get("pp-debug-model").textContent).toContain("U+202E");
    check("Debug panel open");
    const range = view.get("pp-scrubber-range") as HTMLInputElement;
    for (let step = 0; step < Number(range.max); step += 1) {
      typeInto(range, String(step));
      check(`slider at step ${step}`);
    }
    expect(view.qa("pp-past-card").length).toBeGreaterThan(0);

    click(view.get("pp-compare"));
    const branch = (runId: string) => ({
      runId,
      status: "completed",
      answer: { type: "reject", error: { name: X("Rejected"), message: X("why") }, at: T(5) },
      items: [{ type: "tool", id: X("c-9"), name: X("lookup"), input: {}, status: "succeeded", result: { [X("k")]: X("v") }, interrupts: [] }],
    });
    await model.respond({
      ok: true,
      value: {
        interruptId: X("ap"),
        kind: "tool-approval",
        toolName: X("lookup"),
        message: X("Look?"),
        parent: branch(X("run-1")),
        fork: branch(X("run-fork")),
      },
    });
    expect(view.qa("pp-branch")).toHaveLength(2);
    check("Compare open");

    const approval = view.qa("pp-card").find((c) => c.dataset.kind === "tool-approval")!;
    click(within(approval).get("pp-edit-args"));
    const breakpoint = view.qa("pp-card").find((c) => c.dataset.kind === "breakpoint")!;
    click(within(breakpoint).get("pp-debug-edit"));
    check("edit fields open");
    // Each edit field keeps its value exact and says what it holds.
    const editors = view.qa("pp-json-editor") as HTMLTextAreaElement[];
    expect(editors.length).toBeGreaterThan(0);
    for (const editor of editors) {
      expect(editor.value).toMatch(RAW);
      expect(within(editor.parentElement!).get("pp-value-hidden").textContent).toContain("U+202E");
    }
    const question = view.qa("pp-card").find((c) => c.dataset.kind === "generic")!;
    const note = question.querySelector<HTMLInputElement>("input.pp-input")!;
    expect(note.value).toBe(X("said"));
    expect(within(note.parentElement!).get("pp-value-hidden").textContent).toContain("U+200B");

    click(within(approval).get("pp-approve"));
    await model.respond({ ok: false, error: { name: X("Refused"), message: X("no"), problems: [{ path: ["editedArgs", X("to")], message: X("bad") }] } });
    expect(within(approval).get("pp-card-error").textContent).toContain("U+202E");
    check("after an error");

    for (const card of [approval, breakpoint, question]) expect(within(card).q("pp-hidden-warning"), card.dataset.kind).not.toBeNull();
    view.cleanup();
    dispose();
  });

  it("are markers in every text and attribute of the inbox's rows and opened run", async () => {
    const model = new FakeModel({ view: "inbox", refreshed_at: "2025-01-01T00:06:00Z", entries: [], bulk: {} });
    const dispose = initialize(model);
    const view = mount(model);
    const row = {
      runId: X("run-a"),
      title: X("Delete a"),
      agent: X("ops"),
      status: X("waiting"),
      kind: X("tool-approval"),
      tool: X("delete"),
      message: X("Delete?"),
      pauses: 1,
      arguments: { [X("path")]: X("/a") },
      since: X("2025-01-01T00:05:00Z"),
      ignoredBy: null,
      ignoredAt: null,
      damaged: null,
      answerable: true,
    };
    const value = { rows: [row], total: 1, offset: 0, agents: [[X("ops"), 1]], kinds: [[X("tool-approval"), 1]], keys: [X("path")] };
    await model.respond({ ok: true, value });
    click(view.get("pp-triage-open"));
    await model.respond({
      ok: true,
      value: {
        runId: X("run-a"),
        agent: X("ops"),
        title: X("Delete a"),
        createdAt: "2025-01-01T00:00:00Z",
        updatedAt: X("2025-01-01T00:05:00Z"),
        reason: X("unknown agent"),
        cards: [{ ...approvalCard, id: X("int-a"), toolName: X("delete"), message: X("Delete?"), args: { [X("path")]: X("/a") } }],
        thread: { items: [{ role: X("user"), text: X("Delete a") }], earlier: 0 },
      },
    });
    expect(rawHidden(view.el)).toEqual([]);
    expect(view.get("pp-inbox-title").textContent).toContain("U+202E");
    expect(view.get("pp-inbox-agent").textContent).toContain("U+200B");
    expect(view.get("pp-triage-thread").textContent).toContain("U+202E");
    view.cleanup();
    dispose();
  });

  it("show a warning on a breakpoint card as on an approval card, and none on a plain one", () => {
    const card = { ...approvalCard, kind: "breakpoint", toolCallId: null };
    const plain = mount(new FakeModel({ status: "interrupted", pending: [card] }));
    expect(plain.q("pp-hidden-warning")).toBeNull();
    plain.cleanup();
    const marked = mount(new FakeModel({ status: "interrupted", pending: [{ ...card, args: { path: X("/tmp") } }] }));
    expect(marked.get("pp-card").dataset.kind).toBe("breakpoint");
    expect(marked.get("pp-hidden-warning").textContent).toContain("This card contains hidden or direction-changing characters");
    marked.cleanup();
  });
});
