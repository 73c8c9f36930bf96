import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { answerText } from "../src/components/Branches";
import { argsBefore, decisionOf, decisionWords, effectiveInput, runsAction, shownStatus } from "../src/lib/answers";
import type { InterruptEntry, Json, JsonObject, Resolution, ToolItem } from "../src/types";
import { approvalCard, click, FakeModel, initialize, isDisabled, type Mounted, mount, typeInto, within } from "./helpers";

interface Case {
  name: string;
  kind: string;
  before: JsonObject;
  resolution: Resolution;
  expect: { kind: string; words: string; args: JsonObject; runs: boolean; by?: string; reason?: string; value?: Json; changes?: unknown[] };
}

/** The same table the kernel's tests read (tests/test_decisions.py). */
const table = JSON.parse(readFileSync(resolve(__dirname, "../../tests/fixtures/decisions.json"), "utf8")) as { cases: Case[] };

function entryOf(c: Case, id = "int-1"): InterruptEntry {
  return {
    id,
    kind: c.kind,
    message: "Go ahead?",
    data: null,
    state: null,
    response_schema: null,
    created_at: "2026-12-01T09:59:00Z",
    expires_at: null,
    resolution: c.resolution,
  };
}

function callOf(c: Case): ToolItem {
  const ran = c.expect.runs;
  return {
    type: "tool",
    id: "c1",
    name: "refund",
    input: c.before,
    status: ran ? "succeeded" : c.expect.kind === "responded" ? "responded" : "rejected",
    result: ran ? "done" : c.expect.kind === "responded" ? (c.expect.value ?? null) : null,
    error: ran || c.expect.kind === "responded" ? null : { name: "Rejected", message: "not run" },
    interrupts: [entryOf(c)],
  };
}

describe("the shared table of answers", () => {
  for (const c of table.cases) {
    it(`reads ${c.name} as the kernel does`, () => {
      const decision = decisionOf(entryOf(c), c.before);
      expect(decision).not.toBeNull();
      expect(decision!.kind).toBe(c.expect.kind);
      expect(decisionWords(decision!)).toBe(c.expect.words);
      expect(runsAction(decision!)).toBe(c.expect.runs);
      expect(decision!.by).toBe(c.expect.by ?? null);
      expect(decision!.changes).toEqual(c.expect.changes ?? []);
      expect(decision!.reason?.message ?? undefined).toBe(c.expect.reason);
      if ("value" in c.expect) expect(decision!.value).toEqual(c.expect.value);
      expect(effectiveInput(callOf(c))).toEqual(c.expect.args);
    });
  }
});

describe("every reader says the same", () => {
  let view: Mounted | null = null;
  afterEach(() => {
    view?.cleanup();
    view = null;
  });

  for (const c of table.cases) {
    it(`shows ${c.name} in the transcript row, its history and Compare`, () => {
      const call = callOf(c);
      view = mount(
        new FakeModel({
          items: [{ type: "user", text: "go" }, { type: "assistant", text: "", tool_calls: [{ id: "c1", name: "refund", input: c.before }] }, call],
          status: "completed",
        }),
      );
      // The decision is a line in the conversation, in words, saying who answered.
      const line = view.get("pp-decision");
      expect(line.textContent).toContain(c.expect.words);
      expect(line.dataset.decision).toBe(c.expect.kind);
      expect(line.dataset.by).toBe(c.expect.by ?? "");
      if (c.expect.by === "view") expect(line.textContent).toContain("You");
      const row = view.get("pp-tool-call");
      click(row.querySelector("summary") as HTMLElement);
      const resolution = within(view.get("pp-tool-call")).get("pp-resolution");
      expect(resolution.textContent).toContain(c.expect.words);
      expect(resolution.dataset.decision).toBe(c.expect.kind);
      expect(within(view.get("pp-tool-call")).get("pp-tool-status").textContent).toBe(shownStatus(call));
      // The collapsed row names the arguments that ran, not the model's first ask.
      const first = Object.entries(c.expect.args)[0];
      if (first) expect(within(row).q("pp-tool-args")?.textContent).toContain(String(first[1]));
      expect(answerText(c.kind, c.resolution, argsBefore([call], "int-1"))).toBe(c.expect.words);
    });
  }

  it("names a call that never ran by the decision that stopped it", () => {
    const skip = table.cases.find((c) => c.expect.kind === "skipped")!;
    const declined = table.cases.find((c) => c.name.includes("declined with False"))!;
    expect(shownStatus(callOf(skip))).toBe("skipped");
    expect(shownStatus(callOf(declined))).toBe("declined");
  });
});

describe("the message box", () => {
  it("sends the next message of a completed run and empties itself once it is recorded", async () => {
    const model = new FakeModel({
      status: "completed",
      items: [
        { type: "user", text: "hi" },
        { type: "assistant", text: "Hello." },
      ],
    });
    const dispose = initialize(model);
    const view = mount(model);
    const send = view.get("pp-message-send");
    expect(isDisabled(send)).toBe(true); // nothing to send yet
    typeInto(view.get("pp-message-text"), "  And refund order 8 too. ");
    click(view.get("pp-message-send"));
    expect(model.lastRequest()).toEqual({ type: "say", text: "And refund order 8 too.", requestId: expect.any(String) });
    expect(view.q("pp-continue")).toBeNull(); // Continue is for a stop or a failure
    await model.respond({ ok: true });
    expect((view.get("pp-message-text") as HTMLTextAreaElement).value).toBe("");
    view.cleanup();
    dispose();
  });

  it("offers Continue after a stop, and is gone while the run works or waits on someone", async () => {
    const model = new FakeModel({ status: "cancelled", items: [{ type: "user", text: "hi" }] });
    const dispose = initialize(model);
    const view = mount(model);
    click(view.get("pp-continue"));
    expect(model.lastRequest()).toEqual({ type: "say", text: null, requestId: expect.any(String) });
    await model.respond({ ok: false, error: { name: "RunBusyError", message: "The run is executing.", code: "busy" } });
    expect(view.get("pp-message-box").textContent).toContain("executing");
    act(() => model.set("status", "running"));
    expect(view.q("pp-message-box")).toBeNull();
    act(() => {
      model.set("status", "interrupted");
      model.set("pending", [approvalCard]);
    });
    expect(view.q("pp-message-box")).toBeNull();
    view.cleanup();
    dispose();
  });
});

describe("a reply cut short by Stop", () => {
  it("keeps what the model wrote, marked stopped", () => {
    const stopped = {
      type: "assistant",
      text: "Here is the start",
      call: { model: "m", started_at: "2026-12-01T10:00:00Z", ended_at: "2026-12-01T10:00:01Z", usage: null, finish_reason: "cancelled" },
    };
    const view = mount(new FakeModel({ status: "cancelled", items: [{ type: "user", text: "hi" }, stopped] }));
    const reply = view.qa("pp-item")[1]!;
    expect(reply.textContent).toContain("Here is the start");
    expect(reply.dataset.stopped).toBe("true");
    const note = within(reply).get("pp-stopped-note");
    expect(note.textContent).toContain("Continue shows the model this part and asks it to go on");
    expect(note.dataset.latest).toBe("true");
    view.cleanup();
  });

  it("says what Continue did once the run went on, and offers nothing it no longer can", () => {
    const stopped = {
      type: "assistant",
      text: "Here is the start",
      call: { model: "m", started_at: "2026-12-01T10:00:00Z", ended_at: "2026-12-01T10:00:01Z", usage: null, finish_reason: "cancelled" },
    };
    const model = new FakeModel({ status: "cancelled", items: [{ type: "user", text: "hi" }, stopped] });
    const view = mount(model);
    model.setTrait("status", "running");
    expect(view.get("pp-stopped-note").textContent).not.toContain("Retry");
    model.setTrait("items", [{ type: "user", text: "hi" }, stopped, { type: "assistant", text: "and the rest." }]);
    model.setTrait("status", "completed");
    const note = view.get("pp-stopped-note");
    expect(note.dataset.latest).toBe("false");
    expect(note.textContent).toBe("Stopped here; the model was shown this part when it was asked again.");
    expect(view.q("pp-continue")).toBeNull();
    view.cleanup();
  });
});

describe("Retry", () => {
  const call = { model: "m", started_at: "2026-12-01T10:00:00Z", ended_at: "2026-12-01T10:00:01Z", usage: null, finish_reason: null };

  it("is offered beside Continue after a failure and asks the kernel to retry", async () => {
    const model = new FakeModel({ status: "failed", items: [{ type: "user", text: "hi" }] });
    const dispose = initialize(model);
    const view = mount(model);
    click(view.get("pp-retry"));
    expect(model.lastRequest()).toEqual({ type: "retry", requestId: expect.any(String) });
    expect(isDisabled(view.get("pp-continue"))).toBe(true); // one request at a time
    await model.respond({ ok: true });
    view.cleanup();
    dispose();
  });

  it("is not offered after a run that completed", () => {
    const view = mount(
      new FakeModel({
        status: "completed",
        items: [
          { type: "user", text: "hi" },
          { type: "assistant", text: "Done." },
        ],
      }),
    );
    expect(view.q("pp-retry")).toBeNull();
    view.cleanup();
  });

  it("leaves the turn it set aside readable, marked, with its calls marked too", () => {
    const aside = { at: "2026-12-01T10:00:02Z", by: "view" };
    const items = [
      { type: "user", text: "hi" },
      { type: "assistant", text: "", tool_calls: [{ id: "c1", name: "lookup", input: {} }], call, set_aside: aside },
      { type: "tool", id: "c1", name: "lookup", input: {}, status: "cancelled", interrupts: [] },
      { type: "assistant", text: "A better answer.", call },
    ];
    const view = mount(new FakeModel({ status: "completed", items }));
    const [, turn, answer] = view.qa("pp-item");
    // A turn that only called tools gets a row of its own once set aside, to say so.
    expect(turn!.dataset.setAside).toBe("true");
    expect(within(turn!).get("pp-set-aside-note").textContent).toContain("Retry asked the model again");
    expect(within(turn!).get("pp-when").getAttribute("datetime")).toBe(aside.at);
    expect(view.get("pp-row").dataset.setAside).toBe("true");
    expect(answer!.dataset.setAside).toBeUndefined();
    expect(answer!.textContent).toContain("A better answer.");
    view.cleanup();
  });
});
