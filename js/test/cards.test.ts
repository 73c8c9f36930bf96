import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { approvalCard, choose, click, FakeModel, flushMicrotasks, initialize, isDisabled, mount, pressEnter, typeInto, widgetOf, within } from "./helpers";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

function setup(cards: unknown[]) {
  const model = new FakeModel({ status: "interrupted", pending: cards });
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

const genericCard = (responseSchema: unknown, extra: Record<string, unknown> = {}) => ({
  id: "int-generic",
  kind: "generic",
  canResolve: true,
  message: "Tell me more",
  readOnlyReason: null,
  data: { hint: "x" },
  toolCallId: "call-2",
  toolName: "ask",
  args: null,
  inputSchema: null,
  responseSchema,
  createdAt: "2025-01-01T00:00:00Z",
  expiresAt: null,
  ...extra,
});

describe("tool approval card", () => {
  it("shows the tool and its arguments", () => {
    const { view, done } = setup([approvalCard]);
    const card = view.get("pp-card");
    expect(card.dataset.kind).toBe("tool-approval");
    expect(card.dataset.interruptId).toBe("int-approve");
    expect(card.textContent).toContain("delete_file");
    expect(within(card).get("pp-args").textContent).toContain("/tmp/a.txt");
    for (const id of ["pp-approve", "pp-reject", "pp-edit-args"]) expect(view.get(id).tagName).toBe("BUTTON");
    done();
  });

  it("Approve sends one resume even when clicked twice, and disables the controls in flight", async () => {
    const { model, view, done } = setup([approvalCard]);
    const approve = view.get("pp-approve");
    act(() => {
      approve.click();
      approve.click();
    });
    click(approve);
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0]).toEqual({ type: "resume", data: true, interrupt: "int-approve", requestId: expect.any(String) });
    expect(isDisabled(view.get("pp-approve"))).toBe(true);
    expect(isDisabled(view.get("pp-reject"))).toBe(true);
    expect(isDisabled(view.get("pp-reject-reason"))).toBe(true);
    expect(isDisabled(view.get("pp-edit-args"))).toBe(true);

    await model.respond({ ok: false, error: { name: "RunBusyError", message: "The run is busy." } });
    expect(view.get("pp-card-error").textContent).toContain("The run is busy.");
    expect(isDisabled(view.get("pp-approve"))).toBe(false);
    expect(isDisabled(view.get("pp-reject"))).toBe(false);

    click(view.get("pp-approve"));
    expect(model.sent).toHaveLength(2);
    expect(model.sent[1].requestId).not.toBe(model.sent[0].requestId);
    expect(view.q("pp-card-error")).toBeNull();
    await model.respond({ ok: true });
    expect(view.get("pp-sent")).toBeTruthy();
    expect(isDisabled(view.get("pp-approve"))).toBe(true);
    click(view.get("pp-approve"));
    expect(model.sent).toHaveLength(2);
    expect(widgetOf(model).pendingRequests()).toBe(0);
    done();
  });

  it("Reject sends the reason, or null without one", async () => {
    const { model, view, done } = setup([approvalCard]);
    typeInto(view.get("pp-reject-reason"), "  too risky ");
    click(view.get("pp-reject"));
    expect(model.lastRequest()).toEqual({ type: "reject", interrupt: "int-approve", reason: "too risky", requestId: expect.any(String) });
    await model.respond({ ok: false, error: { name: "RunBusyError", message: "busy" } });
    typeInto(view.get("pp-reject-reason"), "");
    click(view.get("pp-reject"));
    expect(model.lastRequest().reason).toBeNull();
    await model.respond({ ok: true });
    done();
  });

  it("Respond sends the person's words as the approval's response, never while empty", async () => {
    const { model, view, done } = setup([approvalCard]);
    expect(view.q("pp-respond-box")).toBeNull();
    click(view.get("pp-respond"));
    const send = view.get("pp-respond-send");
    expect(isDisabled(send)).toBe(true);
    typeInto(view.get("pp-respond-text"), "   ");
    expect(isDisabled(view.get("pp-respond-send"))).toBe(true);
    typeInto(view.get("pp-respond-text"), "  Refund half, and tell them why. ");
    click(view.get("pp-respond-send"));
    expect(model.lastRequest()).toEqual({
      type: "resume",
      interrupt: "int-approve",
      data: { approved: false, payload: { response: "Refund half, and tell them why." } },
      requestId: expect.any(String),
    });
    await model.respond({ ok: true });
    done();
  });

  it("Edit arguments opens a prefilled form and approving sends editedArgs", async () => {
    const { model, view, done } = setup([approvalCard]);
    const toggle = view.get("pp-edit-args");
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    click(toggle);
    expect(view.get("pp-edit-args").getAttribute("aria-expanded")).toBe("true");
    const path = view.get("pp-field-path") as HTMLInputElement;
    expect(path.value).toBe("/tmp/a.txt");
    expect((view.get("pp-field-force") as HTMLInputElement).checked).toBe(false);

    typeInto(path, "");
    expect(isDisabled(view.get("pp-approve"))).toBe(true);
    expect(view.get("pp-field-error").textContent).toContain("Field required");
    typeInto(path, "/tmp/b.txt");
    click(view.get("pp-field-force"));
    expect(isDisabled(view.get("pp-approve"))).toBe(false);
    click(view.get("pp-approve"));
    expect(model.lastRequest()).toEqual({
      type: "resume",
      interrupt: "int-approve",
      data: { approved: true, editedArgs: { path: "/tmp/b.txt", force: true } },
      requestId: expect.any(String),
    });
    await model.respond({ ok: true });
    done();
  });

  it("edits arguments as JSON when there is no input schema", () => {
    const { model, view, done } = setup([{ ...approvalCard, inputSchema: null }]);
    click(view.get("pp-edit-args"));
    const editor = view.get("pp-json-editor") as HTMLTextAreaElement;
    expect(JSON.parse(editor.value)).toEqual(approvalCard.args);
    typeInto(editor, '{"path": "/x"');
    expect(isDisabled(view.get("pp-approve"))).toBe(true);
    expect(view.get("pp-field-error").textContent).toContain("Not valid JSON");
    typeInto(editor, '{"path": "/x"}');
    click(view.get("pp-approve"));
    expect(model.lastRequest().data).toEqual({ approved: true, editedArgs: { path: "/x" } });
    done();
  });

  it("an already-resolved answer keeps the card closed", async () => {
    const { model, view, done } = setup([approvalCard]);
    click(view.get("pp-approve"));
    await model.respond({ ok: false, error: { name: "InterruptAlreadyResolvedError", message: "answered in another view" } });
    expect(view.get("pp-card-error").textContent).toContain("already been answered");
    expect(isDisabled(view.get("pp-approve"))).toBe(true);
    expect(isDisabled(view.get("pp-reject"))).toBe(true);
    click(view.get("pp-approve"));
    expect(model.sent).toHaveLength(1);
    done();
  });

  it("times out with a clear error when the kernel never answers", async () => {
    vi.useFakeTimers();
    const { model, view, done } = setup([approvalCard]);
    click(view.get("pp-approve"));
    await act(async () => {
      vi.advanceTimersByTime(60_000);
      await flushMicrotasks();
    });
    expect(view.get("pp-card-error").textContent).toMatch(/did not answer within 60 s/);
    expect(isDisabled(view.get("pp-approve"))).toBe(false);
    expect(model.sent).toHaveLength(1);
    done();
  });
});

describe("generic card with a response schema", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", description: "Who asks", minLength: 2 },
      email: { type: "string", format: "email" },
      code: { type: "string", pattern: "^[A-Z]{3}$" },
      count: { type: "integer", minimum: 1, maximum: 5, default: 2 },
      ratio: { type: "number", minimum: 0, maximum: 1 },
      urgent: { type: "boolean", default: true },
      color: { type: "string", enum: ["red", "green", "blue"], default: "green" },
      address: {
        type: "object",
        title: "Address",
        properties: { city: { type: "string" }, zip: { type: "string" } },
        required: ["city"],
      },
      tags: { type: "array", items: { type: "string" }, title: "Tags" },
    },
    required: ["name", "count"],
  };

  it("builds the form: kinds, labels, help, defaults, required marks, bounds, enum select", () => {
    const { view, done } = setup([genericCard(schema)]);
    const name = view.get("pp-field-name") as HTMLInputElement;
    expect(name.type).toBe("text");
    expect(name.getAttribute("aria-required")).toBe("true");
    const label = view.el.querySelector(`label[for="${name.id}"]`);
    expect(label?.textContent).toContain("Name");
    expect(label?.querySelector(".pp-required")).not.toBeNull();
    expect(view.el.textContent).toContain("Who asks");
    expect(view.el.querySelector(`label[for="${view.get("pp-field-email").id}"]`)?.textContent).toContain("Email");
    const count = view.get("pp-field-count") as HTMLInputElement;
    expect(count.type).toBe("number");
    expect(count.value).toBe("2");
    expect(count.min).toBe("1");
    expect(count.max).toBe("5");
    expect(count.step).toBe("1");
    expect((view.get("pp-field-urgent") as HTMLInputElement).checked).toBe(true);
    const color = view.get("pp-field-color") as HTMLSelectElement;
    expect(color.tagName).toBe("SELECT");
    expect([...color.options].map((o) => o.textContent)).toContain("blue");
    expect(color.options[color.selectedIndex].textContent).toBe("green");
    expect(view.get("pp-fieldset-address").tagName).toBe("FIELDSET");
    expect(view.get("pp-field-address.city")).toBeTruthy();
    expect(isDisabled(view.get("pp-submit"))).toBe(true);
    expect(view.get("pp-form-hint").textContent).toBe("Still needed: Name");
    done();
  });

  it("validates as the user types and enables Submit once valid", async () => {
    const { model, view, done } = setup([genericCard(schema)]);
    const name = view.get("pp-field-name");
    typeInto(name, "A");
    expect(isDisabled(view.get("pp-submit"))).toBe(true);
    const error = view.get("pp-field-error");
    expect(error.dataset.path).toBe("name");
    expect(error.textContent).toMatch(/at least 2 characters/);
    expect(name.getAttribute("aria-invalid")).toBe("true");
    typeInto(name, "Ada");
    expect(view.q("pp-field-error")).toBeNull();
    expect(isDisabled(view.get("pp-submit"))).toBe(false);

    typeInto(view.get("pp-field-email"), "not-an-email");
    expect(view.get("pp-field-error").textContent).toMatch(/email/);
    expect(isDisabled(view.get("pp-submit"))).toBe(true);
    typeInto(view.get("pp-field-email"), "ada@example.org");
    typeInto(view.get("pp-field-code"), "abc");
    expect(view.get("pp-field-error").dataset.path).toBe("code");
    typeInto(view.get("pp-field-code"), "ABC");
    typeInto(view.get("pp-field-count"), "9");
    expect(view.get("pp-field-error").textContent).toMatch(/less than or equal to 5/);
    typeInto(view.get("pp-field-count"), "3");
    typeInto(view.get("pp-field-ratio"), "0.5");
    choose(view.get("pp-field-color"), "2");
    typeInto(view.get("pp-field-address.zip"), "12345");
    expect(view.get("pp-field-error").dataset.path).toBe("address.city");
    typeInto(view.get("pp-field-address.city"), "Paris");
    click(view.get("pp-add-tags"));
    click(view.get("pp-add-tags"));
    typeInto(view.get("pp-field-tags.0"), "a");
    typeInto(view.get("pp-field-tags.1"), "b");
    click(view.get("pp-remove-tags.0"));
    expect((view.get("pp-field-tags.0") as HTMLInputElement).value).toBe("b");
    expect(view.q("pp-field-tags.1")).toBeNull();
    expect(isDisabled(view.get("pp-submit"))).toBe(false);

    click(view.get("pp-submit"));
    expect(model.lastRequest()).toEqual({
      type: "resume",
      interrupt: "int-generic",
      requestId: expect.any(String),
      data: {
        name: "Ada",
        email: "ada@example.org",
        code: "ABC",
        count: 3,
        ratio: 0.5,
        urgent: true,
        color: "blue",
        address: { city: "Paris", zip: "12345" },
        tags: ["b"],
      },
    });
    await model.respond({ ok: true });
    done();
  });

  it("Enter submits a valid form and does nothing while it is invalid", () => {
    const { model, view, done } = setup([genericCard(schema)]);
    const name = view.get("pp-field-name");
    pressEnter(name);
    expect(model.sent).toHaveLength(0);
    expect(view.qa("pp-field-error").map((e) => e.dataset.path)).toContain("name");
    typeInto(name, "Ada");
    pressEnter(name);
    expect(model.sent).toHaveLength(1);
    expect(model.lastRequest().data).toMatchObject({ name: "Ada", count: 2 });
    pressEnter(name);
    expect(model.sent).toHaveLength(1);
    done();
  });

  it("shows the kernel's problems by path and stays usable", async () => {
    const { model, view, done } = setup([genericCard(schema)]);
    typeInto(view.get("pp-field-name"), "Ada");
    click(view.get("pp-submit"));
    await model.respond({
      ok: false,
      error: { name: "InvalidResolutionError", message: "The answer does not match.", problems: [{ path: "$.name", message: "is taken" }] },
    });
    const error = view.get("pp-card-error");
    expect(error.textContent).toContain("The answer does not match.");
    expect(within(error).get("pp-problem").dataset.path).toBe("name");
    expect(within(error).get("pp-problem").textContent).toContain("is taken");
    expect(view.qa("pp-field-error").some((e) => e.dataset.path === "name" && e.textContent!.includes("is taken"))).toBe(true);
    expect(isDisabled(view.get("pp-submit"))).toBe(false);
    typeInto(view.get("pp-field-name"), "Bea");
    expect(view.qa("pp-field-error").some((e) => e.textContent!.includes("is taken"))).toBe(false);
    click(view.get("pp-reject"));
    expect(model.lastRequest().type).toBe("reject");
    done();
  });

  it("resolves pydantic $defs/$ref into a form", () => {
    const pydantic = {
      $defs: { Address: { title: "Address", type: "object", properties: { city: { title: "City", type: "string" } }, required: ["city"] } },
      title: "Answer",
      type: "object",
      properties: { home: { $ref: "#/$defs/Address" }, note: { anyOf: [{ type: "string" }, { type: "null" }], default: null } },
      required: ["home"],
    };
    const { model, view, done } = setup([genericCard(pydantic)]);
    expect(view.q("pp-json-editor")).toBeNull();
    typeInto(view.get("pp-field-home.city"), "Oslo");
    click(view.get("pp-submit"));
    expect(model.lastRequest().data).toEqual({ home: { city: "Oslo" }, note: null });
    done();
  });

  it("falls back to a JSON editor for oneOf, validated the same way", () => {
    const { model, view, done } = setup([genericCard({ oneOf: [{ type: "string", minLength: 1 }, { type: "integer" }] })]);
    const editor = view.get("pp-json-editor");
    expect(editor.tagName).toBe("TEXTAREA");
    expect(isDisabled(view.get("pp-submit"))).toBe(true);
    typeInto(editor, "{oops");
    expect(view.get("pp-field-error").textContent).toContain("Not valid JSON");
    typeInto(editor, "1.5");
    expect(view.get("pp-field-error").textContent).toBeTruthy();
    expect(isDisabled(view.get("pp-submit"))).toBe(true);
    pressEnter(editor);
    expect(model.sent).toHaveLength(0);
    typeInto(editor, '"yes"');
    expect(view.q("pp-field-error")).toBeNull();
    pressEnter(editor);
    expect(model.sent).toHaveLength(0);
    click(view.get("pp-submit"));
    expect(model.lastRequest().data).toBe("yes");
    done();
  });

  it("a primitive schema gets a single field", () => {
    const { model, view, done } = setup([genericCard({ type: "integer", minimum: 1 })]);
    typeInto(view.get("pp-field-$"), "4");
    click(view.get("pp-submit"));
    expect(model.lastRequest().data).toBe(4);
    done();
  });
});

describe("generic card without a schema", () => {
  it("asks for words, not JSON, and sends them as a string", () => {
    const { model, view, done } = setup([genericCard(null)]);
    const box = view.get("pp-text-answer");
    expect(box.tagName).toBe("TEXTAREA");
    expect(view.get("pp-card").querySelector(`label[for="${box.id}"]`)?.textContent).toBe("Your answer");
    expect(view.get("pp-card").textContent).not.toContain("JSON,");
    expect(view.q("pp-json-editor")).toBeNull();
    typeInto(box, "  Yes, go ahead  ");
    click(view.get("pp-resume"));
    expect(model.lastRequest()).toEqual({ type: "resume", interrupt: "int-generic", data: "Yes, go ahead", requestId: expect.any(String) });
    done();
  });

  it("keeps Send disabled while the answer is empty or only whitespace", () => {
    const { model, view, done } = setup([genericCard(null)]);
    expect(isDisabled(view.get("pp-resume"))).toBe(true);
    click(view.get("pp-resume"));
    typeInto(view.get("pp-text-answer"), "   \n ");
    expect(isDisabled(view.get("pp-resume"))).toBe(true);
    view.get("pp-text-answer").dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }));
    expect(model.sent).toHaveLength(0);
    typeInto(view.get("pp-text-answer"), "ok");
    expect(isDisabled(view.get("pp-resume"))).toBe(false);
    done();
  });

  it("answers as JSON on request, with Send disabled until the JSON parses", () => {
    const { model, view, done } = setup([genericCard(null)]);
    const toggle = view.get("pp-answer-as-json");
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    click(toggle);
    expect(view.get("pp-answer-as-json").getAttribute("aria-pressed")).toBe("true");
    expect(view.q("pp-text-answer")).toBeNull();
    const editor = view.get("pp-json-editor");
    expect(isDisabled(view.get("pp-resume"))).toBe(true);
    typeInto(editor, "[1,");
    expect(isDisabled(view.get("pp-resume"))).toBe(true);
    typeInto(editor, '{"a": 1}');
    click(view.get("pp-resume"));
    expect(model.lastRequest().data).toEqual({ a: 1 });
    done();
  });
});

describe("a yes/no question", () => {
  it("a boolean schema is two buttons that send true or false", async () => {
    const { model, view, done } = setup([genericCard({ type: "boolean" })]);
    expect(view.q("pp-submit")).toBeNull();
    expect(view.get("pp-card").querySelector('input[type="checkbox"]')).toBeNull();
    expect(view.get("pp-answer-yes").textContent).toBe("Yes");
    expect(view.get("pp-answer-no").textContent).toBe("No");
    click(view.get("pp-answer-no"));
    expect(model.lastRequest()).toEqual({ type: "resume", interrupt: "int-generic", data: false, requestId: expect.any(String) });
    await model.respond({ ok: false, error: { name: "RunBusyError", message: "busy" } });
    click(view.get("pp-answer-yes"));
    expect(model.lastRequest().data).toBe(true);
    done();
  });

  it("an object with one required boolean sends {property: choice}, the buttons in its words", () => {
    const schema = { title: "Confirm", type: "object", properties: { dry_run: { title: "Dry run", type: "boolean" } }, required: ["dry_run"] };
    const { model, view, done } = setup([genericCard(schema)]);
    expect(view.get("pp-answer-yes").textContent).toBe("Yes, dry run");
    click(view.get("pp-answer-yes"));
    expect(model.lastRequest().data).toEqual({ dry_run: true });
    done();
  });

  it("a question in the title is shown above plain Yes and No, which name it", () => {
    const schema = { type: "object", properties: { ship: { title: "Ship it today?", type: "boolean", description: "Costs extra" } }, required: ["ship"] };
    const { model, view, done } = setup([genericCard(schema)]);
    expect(view.get("pp-card").textContent).toContain("Ship it today?");
    expect(view.get("pp-card").textContent).toContain("Costs extra");
    expect(view.get("pp-answer-no").getAttribute("aria-label")).toBe("No: Ship it today?");
    click(view.get("pp-answer-no"));
    expect(model.lastRequest().data).toEqual({ ship: false });
    done();
  });

  it("an optional boolean, or one beside other fields, stays a form", () => {
    for (const schema of [
      { type: "object", properties: { ok: { type: "boolean" } } },
      { type: "object", properties: { ok: { type: "boolean" }, note: { type: "string" } }, required: ["ok"] },
    ]) {
      const { view, done } = setup([genericCard(schema)]);
      expect(view.q("pp-answer-yes")).toBeNull();
      expect(view.get("pp-submit")).toBeTruthy();
      done();
    }
  });
});

describe("unbound card", () => {
  it("is read-only, with its message and reason and no buttons", () => {
    const { view, done } = setup([
      { ...genericCard(null), id: "int-x", kind: "unbound", canResolve: false, message: "From elsewhere", readOnlyReason: "no binding" },
    ]);
    const card = view.get("pp-card");
    expect(card.dataset.kind).toBe("unbound");
    expect(card.textContent).toContain("From elsewhere");
    expect(card.textContent).toContain("no binding");
    expect(card.textContent?.toLowerCase()).toContain("not answerable here");
    expect(card.querySelectorAll("button, input, textarea, select")).toHaveLength(0);
    done();
  });
});

describe("expiring card", () => {
  it("counts down and disables its controls at expiry", () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2025-01-01T00:00:00Z"));
    const { model, view, done } = setup([{ ...approvalCard, expiresAt: "2025-01-01T00:00:03Z" }]);
    expect(view.get("pp-countdown").textContent).toContain("0:03");
    expect(isDisabled(view.get("pp-approve"))).toBe(false);
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(view.get("pp-countdown").textContent).toContain("0:02");
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(view.get("pp-countdown").textContent).toContain("expired");
    for (const id of ["pp-approve", "pp-reject", "pp-edit-args", "pp-reject-reason"]) expect(isDisabled(view.get(id))).toBe(true);
    click(view.get("pp-approve"));
    expect(model.sent).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    done();
  });
});
