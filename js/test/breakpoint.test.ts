import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { click, FakeModel, initialize, isDisabled, mount, openDebug, typeInto, within } from "./helpers";

/** Opens the Debug panel as a click on its summary does. */

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

function setup() {
  const model = new FakeModel({ status: "interrupted", pending: [breakpointCard] });
  const dispose = initialize(model);
  const view = mount(model);
  return { model, view, done: () => (view.cleanup(), dispose()) };
}

describe("breakpoint card", () => {
  it("shows the action and offers Continue, Step, Skip and Edit arguments", () => {
    const { view, done } = setup();
    const card = view.get("pp-card");
    expect(card.dataset.kind).toBe("breakpoint");
    expect(within(card).get("pp-args").textContent).toContain("12000");
    for (const id of ["pp-debug-continue", "pp-debug-step", "pp-debug-skip", "pp-debug-edit"]) {
      expect(view.get(id).tagName).toBe("BUTTON");
    }
    expect(view.q("pp-approve")).toBeNull();
    done();
  });

  for (const action of ["continue", "step", "skip"]) {
    it(`${action} sends one resume with that action and disables the buttons`, async () => {
      const { model, view, done } = setup();
      click(view.get(`pp-debug-${action}`));
      click(view.get(`pp-debug-${action}`));
      expect(model.sent).toHaveLength(1);
      expect(model.sent[0]).toEqual({ type: "resume", data: { action }, interrupt: "int-bp", requestId: expect.any(String) });
      expect(isDisabled(view.get("pp-debug-continue"))).toBe(true);
      await model.respond({ ok: true });
      expect(view.get("pp-sent")).toBeTruthy();
      done();
    });
  }

  it("Edit arguments sends the edited arguments", async () => {
    const model = new FakeModel({ status: "interrupted", pending: [{ ...breakpointCard, inputSchema: null }] });
    const dispose = initialize(model);
    const view = mount(model);
    const done = () => (view.cleanup(), dispose());
    click(view.get("pp-debug-edit"));
    const editor = view.get("pp-json-editor") as HTMLTextAreaElement;
    expect(JSON.parse(editor.value)).toEqual({ cents: 12000 });
    typeInto(editor, '{"cents": 500}');
    click(view.get("pp-debug-run-edited"));
    expect(model.lastRequest()).toEqual({ type: "resume", data: { action: "edit", args: { cents: 500 } }, interrupt: "int-bp", requestId: expect.any(String) });
    await model.respond({ ok: true });
    done();
  });

  it("shows a refused answer and lets the person try again", async () => {
    const { model, view, done } = setup();
    click(view.get("pp-debug-continue"));
    await model.respond({ ok: false, error: { name: "RunBusyError", message: "The run is busy." } });
    expect(view.get("pp-card-error").textContent).toContain("The run is busy.");
    expect(isDisabled(view.get("pp-debug-continue"))).toBe(false);
    done();
  });
});

describe("pause before the model request", () => {
  it("shows Step and Continue while paused, and Step sends a debug request", async () => {
    const model = new FakeModel({ status: "paused", pending: [] });
    const dispose = initialize(model);
    const view = mount(model);
    expect(view.get("pp-model-pause")).toBeTruthy();
    click(view.get("pp-debug-step"));
    expect(model.lastRequest()).toEqual({ type: "debug", action: "step", requestId: expect.any(String) });
    expect(isDisabled(view.get("pp-debug-continue"))).toBe(true);
    await model.respond({ ok: true });
    view.cleanup();
    dispose();
  });

  it("is not shown when the run is not paused", () => {
    const model = new FakeModel({ status: "interrupted", pending: [breakpointCard] });
    const dispose = initialize(model);
    const view = mount(model);
    expect(view.q("pp-model-pause")).toBeNull();
    view.cleanup();
    dispose();
  });
});

describe("debug panel", () => {
  const items = [
    { type: "user", text: "Refund" },
    {
      type: "assistant",
      text: "",
      tool_calls: [{ id: "c1", name: "refund", input: { cents: 1 } }],
      call: {
        model: "gpt-x",
        started_at: "2025-01-01T00:00:00.000Z",
        ended_at: "2025-01-01T00:00:01.500Z",
        usage: { input_tokens: 7 },
        finish_reason: "tool_calls",
      },
    },
    {
      type: "tool",
      id: "c1",
      name: "refund",
      input: { cents: 1 },
      status: "succeeded",
      interrupts: [
        {
          id: "int-1",
          kind: "tool-approval",
          message: "ok?",
          data: null,
          state: null,
          response_schema: null,
          created_at: null,
          expires_at: null,
          resolution: { type: "resume", data: true, at: "2025-01-01T00:00:02Z" },
        },
      ],
    },
  ];

  it("shows each turn's model, duration and usage, and fetches its request on demand", async () => {
    const model = new FakeModel({ status: "completed", items, forks: [] });
    const dispose = initialize(model);
    const view = mount(model);
    expect(view.qa("pp-debug-turn")).toEqual([]); // closed: nothing drawn until asked
    openDebug(view);
    const turn = view.get("pp-debug-turn");
    expect(turn.textContent).toContain("gpt-x");
    expect(turn.textContent).toContain("1.500 s");
    expect(turn.textContent).toContain("input_tokens 7");
    const rows = view.qa("pp-waterfall-row");
    expect(rows.map((b) => b.dataset.kind)).toEqual(["model"]);
    expect(rows[0]!.getAttribute("title")).toBe("Step 1 of 1, model turn: gpt-x · 7 tokens · 1.50 s, began as the run did (input_tokens 7)");
    click(view.get("pp-show-request"));
    expect(model.lastRequest()).toEqual({ type: "model_request", turn: 0, requestId: expect.any(String) });
    await model.respond({ ok: true, value: { turn: 0, instructions: "Be kind.", items: [], actions: [] } });
    expect(view.get("pp-model-request").textContent).toContain("Be kind.");
    view.cleanup();
    dispose();
  });

  it("offers Fork here on answered interrupts and lists the forks", async () => {
    const model = new FakeModel({ status: "completed", items, forks: [] });
    const dispose = initialize(model);
    const view = mount(model);
    openDebug(view);
    expect(view.get("pp-answered").dataset.interruptId).toBe("int-1");
    click(view.get("pp-fork-here"));
    expect(model.lastRequest()).toEqual({ type: "fork", interrupt: "int-1", requestId: expect.any(String) });
    await model.respond({ ok: true, value: { runId: "run-2", interruptId: "int-1" } });
    act(() => model.set("forks", [{ runId: "run-2", interruptId: "int-1", status: "interrupted" }]));
    expect(view.get("pp-fork").dataset.runId).toBe("run-2");
    view.cleanup();
    dispose();
  });
});
