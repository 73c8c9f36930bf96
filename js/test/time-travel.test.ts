import type { Host } from "@anywidget/types";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { forkAtStep } from "../src/components/Scrubber";
import { stepsOf } from "../src/lib/past";
import { finished } from "./fixtures-past";
import { click, FakeModel, flushMicrotasks, initialize, isDisabled, type Mounted, mount, openDebug, typeInto, widgetOf, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

function setup(attrs: Record<string, unknown> = {}) {
  const model = new FakeModel({ status: "completed", items: finished, ...attrs });
  const dispose = initialize(model);
  const view = mount(model);
  return { model, view, done: () => (view.cleanup(), dispose()) };
}

/** A view drawn with anywidget's host, which draws another widget's view on request. */
function mountWithHost(model: FakeModel, drawn: string[]): Mounted {
  const host: Host = {
    getModel: () => Promise.reject(new Error("not used")),
    getWidget: async (ref: string) => ({
      exports: undefined,
      render: async ({ el }: { el: HTMLElement }) => {
        drawn.push(ref);
        const inner = document.createElement("div");
        inner.dataset.testid = "child-view";
        inner.textContent = `the view of ${ref}`;
        el.appendChild(inner);
      },
    }),
  } as unknown as Host;
  const el = document.createElement("div");
  document.body.appendChild(el);
  let cleanup: () => void = () => {};
  act(() => {
    cleanup = widgetOf(model).render({ model, el, host });
  });
  return { el, cleanup: () => act(() => (cleanup(), el.remove())), ...within(el) };
}

const named = [
  { runId: "run-a", name: "edited cents at refund", interruptId: null, toolCallId: "c-refund", turn: null, status: "completed", items: 6, open: false },
  { runId: "run-b", name: "asked again at turn 1", interruptId: null, toolCallId: null, turn: 1, status: "paused", items: 3, open: true },
];

describe("Go back here", () => {
  it("on a tool call row of the live transcript asks for a fork at that call", () => {
    const { model, view, done } = setup();
    const refund = view.qa("pp-tool-call").find((row) => row.dataset.name === "refund")!;
    const button = within(refund).get("pp-go-back-call");
    expect(button.textContent).toBe("Go back here");
    click(button);
    expect(model.lastRequest()).toMatchObject({ type: "fork", call: "c-refund", open: true });
    expect(refund.hasAttribute("open")).toBe(false); // the click did not open the row
    done();
  });

  it("shows the kernel's refusal beside the call", async () => {
    const { model, view, done } = setup();
    click(view.qa("pp-go-back-call")[0]!);
    await model.respond({ ok: false, error: { name: "UsageError", message: "A remote run cannot be forked from here" } });
    expect(view.get("pp-go-back-error").textContent).toContain("cannot be forked");
    done();
  });

  it("is not offered on the read-only past the slider shows, nor on a remote run", () => {
    const { view, done } = setup();
    openDebug(view);
    typeInto(view.get("pp-scrubber-range") as HTMLInputElement, "4");
    expect(within(view.get("pp-past")).qa("pp-go-back-call")).toHaveLength(0);
    done();
    const remote = setup({ meta: { remote: "http://example.test/agent" } });
    expect(remote.view.qa("pp-go-back-call")).toHaveLength(0);
    remote.done();
  });

  it("on each turn row of the Debug panel asks for a fork before that turn", () => {
    const { model, view, done } = setup();
    openDebug(view);
    const turns = view.qa("pp-debug-turn");
    expect(turns.map((t) => within(t).get("pp-go-back-turn").textContent)).toEqual(["Go back here", "Go back here", "Go back here"]);
    click(within(turns[1]!).get("pp-go-back-turn"));
    expect(model.lastRequest()).toMatchObject({ type: "fork", turn: 1, open: true });
    done();
  });

  it("on the slider's step asks for a fork at what that step was", async () => {
    const { model, view, done } = setup();
    openDebug(view);
    const range = view.get("pp-scrubber-range") as HTMLInputElement;
    expect(view.q("pp-go-back-step")).toBeNull(); // live: nothing to go back to
    const asked: unknown[] = [];
    for (const step of ["0", "1", "2", "3", "4", "5", "6"]) {
      typeInto(range, step);
      click(view.get("pp-go-back-step"));
      const { type: _type, requestId: _id, open, ...at } = model.lastRequest();
      expect(open).toBe(true);
      asked.push(at);
      await model.respond({ ok: true, value: { runId: "run-x", name: "x", interruptId: null } });
    }
    expect(asked).toEqual([{ turn: 0 }, { interrupt: "bp" }, { call: "c-lookup" }, { turn: 1 }, { interrupt: "ap" }, { call: "c-refund" }, { turn: 2 }]);
    done();
  });

  it("finds no fork point for a step the transcript no longer holds", () => {
    const steps = stepsOf(finished);
    expect(forkAtStep(finished.slice(0, 2), steps[5]!)).toBeNull();
    expect(forkAtStep(finished, steps[5]!)).toEqual({ call: "c-refund" });
  });
});

describe("forks named by what made them", () => {
  it("lists each fork by its name, the run id on hover, with Open here and Compare", () => {
    const { model, view, done } = setup({ forks: named });
    openDebug(view);
    const rows = view.qa("pp-fork");
    expect(rows.map((r) => within(r).get("pp-fork-name").textContent)).toEqual(["edited cents at refund", "asked again at turn 1"]);
    expect(within(rows[0]!).get("pp-fork-name").getAttribute("title")).toBe("Run run-a");
    expect(rows[0]!.textContent).not.toContain("run-a");
    expect(rows[0]!.textContent).toContain("Completed");
    expect(rows[1]!.textContent).toContain("Paused before the model request");
    expect(rows.map((r) => within(r).get("pp-fork-open").textContent)).toEqual(["Open here", "Close"]);
    click(within(rows[0]!).get("pp-fork-open"));
    expect(model.lastRequest()).toMatchObject({ type: "show_fork", fork: "run-a" });
    expect(within(rows[0]!).get("pp-compare").textContent).toBe("Compare");
    done();
  });

  it("closes the fork shown in place from its row", async () => {
    const { model, view, done } = setup({ forks: named });
    openDebug(view);
    click(within(view.qa("pp-fork")[1]!).get("pp-fork-open"));
    expect(model.lastRequest()).toMatchObject({ type: "show_fork", fork: null });
    done();
  });
});

describe("a fork shown in place", () => {
  it("draws the fork's own view through anywidget's host, below the Debug panel, closed or open", async () => {
    const model = new FakeModel({ status: "completed", items: finished, forks: named, fork_view: "IPY_MODEL_abc" });
    const dispose = initialize(model);
    const drawn: string[] = [];
    const view = mountWithHost(model, drawn);
    await act(async () => {
      await flushMicrotasks();
    });
    const shown = view.get("pp-fork-view");
    expect(drawn).toEqual(["anywidget:abc"]);
    expect(within(shown).get("child-view").textContent).toBe("the view of anywidget:abc");
    expect(within(shown).get("pp-fork-view-name").textContent).toBe("asked again at turn 1");
    expect(view.get("pp-debug").hasAttribute("open")).toBe(false);

    click(within(shown).get("pp-fork-view-close"));
    expect(model.lastRequest()).toMatchObject({ type: "show_fork", fork: null });
    act(() => model.setTrait("fork_view", null));
    expect(view.q("pp-fork-view")).toBeNull();
    view.cleanup();
    dispose();
  });

  it("says how to see the fork when the page cannot draw it", () => {
    const { view, done } = setup({ forks: named, fork_view: "IPY_MODEL_abc" });
    expect(view.get("pp-fork-view-problem").textContent).toContain("run.forks[i]");
    done();
  });
});

describe("comparing a fork that went back to a tool call", () => {
  it("says what each branch did at the call, in the kernel's words, under the fork's name", async () => {
    const { model, view, done } = setup({ forks: [named[0]] });
    openDebug(view);
    click(view.get("pp-compare"));
    expect(model.lastRequest()).toMatchObject({ type: "branches", fork: "run-a" });
    const refund = finished[4]!;
    await model.respond({
      ok: true,
      value: {
        interruptId: null,
        kind: "tool call",
        toolName: "refund",
        message: "Before refund ran",
        name: "edited cents at refund",
        parent: { runId: "run-1", status: "completed", answer: null, said: "Ran as the model asked (succeeded)", items: finished.slice(4) },
        fork: { runId: "run-a", status: "completed", answer: null, said: "Ran with edited arguments: cents 500 → 50", items: [refund] },
      },
    });
    expect(view.get("pp-branches").textContent).toContain("From before refund ran");
    const columns = view.qa("pp-branch");
    expect(columns.map((c) => within(c).get("pp-branch-answer").textContent!.trim())).toEqual([
      "Ran as the model asked (succeeded)",
      "Ran with edited arguments: cents 500 → 50",
    ]);
    expect(columns[1]!.querySelector("h4")!.textContent).toContain("edited cents at refund");
    done();
  });
});

/** A fork made at turn 1 of `finished`: its user message and the lookup, before turn 1. */
const atTurn = finished.slice(0, 3);

describe("Editing a fork made at a turn", () => {
  it("offers Edit on the message and Edit result on the call, and sends the new words", async () => {
    const { model, view, done } = setup({ status: "paused", items: atTurn, editable: [0, 2], edited: [] });
    const edits = view.qa("pp-edit-item");
    expect(edits.map((b) => [b.dataset.position, b.textContent])).toEqual([
      ["0", "Edit"],
      ["2", "Edit result"],
    ]);
    click(edits[0]!);
    const box = view.get("pp-edit-text") as HTMLTextAreaElement;
    expect(box.value).toBe("Refund order 42");
    typeInto(box, "Refund order 43");
    click(view.get("pp-edit-save"));
    expect(model.lastRequest()).toMatchObject({ type: "edit_item", position: 0, text: "Refund order 43" });
    await model.respond({ ok: true });
    expect(view.q("pp-item-editor")).toBeNull(); // closed once the kernel took it
    done();
  });

  it("edits a JSON result as JSON, and refuses to send what does not parse", () => {
    const { model, view, done } = setup({ status: "paused", items: atTurn, editable: [0, 2], edited: [] });
    click(view.qa("pp-edit-item")[1]!);
    const editor = view.get("pp-json-editor") as HTMLTextAreaElement;
    expect(JSON.parse(editor.value)).toEqual({ total: 12000 });
    typeInto(editor, "{ total: ");
    expect(isDisabled(view.get("pp-edit-save"))).toBe(true);
    typeInto(editor, '{"total": 9000}');
    click(view.get("pp-edit-save"));
    expect(model.lastRequest()).toMatchObject({ type: "edit_item", position: 2, result: { total: 9000 } });
    done();
  });

  it("shows the kernel's refusal in the editor and keeps the words", async () => {
    const { model, view, done } = setup({ status: "paused", items: atTurn, editable: [0, 2], edited: [] });
    click(view.qa("pp-edit-item")[0]!);
    typeInto(view.get("pp-edit-text"), "Refund order 44");
    click(view.get("pp-edit-save"));
    await model.respond({ ok: false, error: { name: "ForkMovedOnError", message: "This fork has moved on from turn 1" } });
    expect(view.get("pp-item-editor").textContent).toContain("moved on from turn 1");
    expect((view.get("pp-edit-text") as HTMLTextAreaElement).value).toBe("Refund order 44");
    done();
  });

  it("marks what a person edited, and offers nothing once the fork moved on", () => {
    const { model, view, done } = setup({ status: "paused", items: atTurn, editable: [0, 2], edited: [0] });
    expect(view.qa("pp-edited-mark").map((m) => m.textContent)).toEqual(["Message edited by a person"]);
    act(() => {
      model.set("editable", []);
      model.set("edited", [0, 2]);
    });
    expect(view.qa("pp-edit-item")).toHaveLength(0);
    expect(view.qa("pp-edited-mark").map((m) => m.textContent)).toEqual(["Message edited by a person", "Result edited by a person"]);
    done();
  });

  it("offers no editing on a run that is not a fork at a turn", () => {
    const { view, done } = setup();
    expect(view.qa("pp-edit-item")).toHaveLength(0);
    expect(view.qa("pp-edited-mark")).toHaveLength(0);
    done();
  });
});
