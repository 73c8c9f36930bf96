import { afterEach, describe, expect, it, vi } from "vitest";
import { FIELDS_PAGE, MANY_FIELDS } from "../src/components/SchemaForm";
import { FormState } from "../src/lib/form-state";
import { checkForm, describeSchema, type Field, fieldPaths, initialRaw, type RawValue } from "../src/lib/schema-form";
import { compileSchema, errorsByPath, type Validator } from "../src/lib/validation";
import { choose, click, FakeModel, initialize, isDisabled, mount, pressEnter, typeInto } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
  document.body.innerHTML = "";
});

const KINDS = [{ type: "string", minLength: 2 }, { type: "integer", minimum: 0 }, { type: "boolean" }, { enum: ["low", "high"] }];

/** `n` properties of four kinds in turn; every `step`-th one required. */
function bigSchema(n: number, step = 50) {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (let i = 0; i < n; i += 1) {
    properties[`field_${i}`] = KINDS[i % 4];
    if (i % step === 1 || i % step === 3) required.push(`field_${i}`);
  }
  return { type: "object", properties, required };
}

/** A smaller schema with every feature the form has, and rules about the whole object. */
const RICH = JSON.parse(
  JSON.stringify({
    type: "object",
    $defs: {
      Address: { type: "object", properties: { city: { type: "string", minLength: 2 }, zip: { type: "string", pattern: "^[0-9]{5}$" } }, required: ["city"] },
    },
    properties: {
      name: { type: "string", minLength: 2 },
      age: { type: "integer", minimum: 0, maximum: 150 },
      ratio: { anyOf: [{ type: "number", exclusiveMaximum: 1 }, { type: "null" }] },
      color: { enum: ["red", "green"] },
      home: { $ref: "#/$defs/Address" },
      tags: { type: "array", items: { type: "integer", minimum: 1 }, maxItems: 2 },
      __proto__: { type: "string", format: "email" },
      "a.b": { type: "string" },
    },
    required: ["name", "age"],
    minProperties: 4,
    dependentRequired: { color: ["a.b"] },
  }),
);

function checkedWhole(state: FormState, root: Field, raw: Record<string, RawValue>, validator: Validator) {
  const whole = checkForm(root, raw, validator);
  const paths = new Set([...fieldPaths(root), ...Object.keys(whole.errors), "tags.0", "tags.1", "tags.2"]);
  for (const path of paths) {
    expect(new Set(state.problemsAt(path)), `problems at ${JSON.stringify(path)}`).toEqual(new Set(whole.errors[path] ?? []));
  }
  expect(state.valid).toBe(whole.valid);
}

describe("a form checked in parts", () => {
  it("finds what the whole check finds, edit after edit", () => {
    const root = describeSchema(RICH)!;
    const validator = compileSchema(RICH) as Validator;
    expect(validator.parts).not.toBeNull();
    const raw = initialRaw(root);
    const state = new FormState(root, validator, raw);
    const edits: Array<[string, RawValue]> = [
      ["name", "A"],
      ["age", "abc"],
      ["age", "200"],
      ["color", "0"],
      ["home.zip", "12"],
      ["tags", ["3", "0", "x"]],
      ["ratio", "2"],
      ["__proto__", "nope"],
      ["a~1b", "x"],
      ["name", "Ada"],
      ["age", "36"],
      ["home.city", "Oslo"],
      ["home.zip", "12345"],
      ["tags", ["3"]],
      ["ratio", ""],
      ["__proto__", "ada@example.org"],
      ["color", ""],
      ["a~1b", ""],
      ["home.city", ""],
      ["home.zip", ""],
      ["tags", []],
    ];
    checkedWhole(state, root, raw, validator);
    for (const [path, value] of edits) {
      state.set(path, value);
      checkedWhole(state, root, raw, validator);
    }
    expect(state.check().valid).toBe(state.valid);
  });

  it("re-checks only the property edited, and the object's rules only when a property comes or goes", () => {
    const schema = bigSchema(2_000);
    const root = describeSchema(schema)!;
    const validator = compileSchema(schema) as Validator;
    const parts = validator.parts!;
    const state = new FormState(root, validator, initialRaw(root));
    const property = vi.spyOn(parts, "property");
    const rules = vi.spyOn(parts, "objectRules");
    state.set("field_4", "h");
    expect(property.mock.calls).toEqual([["field_4", "h"]]);
    expect(rules).toHaveBeenCalledTimes(1);
    state.set("field_4", "he");
    expect(property).toHaveBeenCalledTimes(2);
    expect(rules).toHaveBeenCalledTimes(1);
  });

  it("tells a field's listeners, and no other field's, that it changed", () => {
    const schema = bigSchema(1_000);
    const root = describeSchema(schema)!;
    const state = new FormState(root, compileSchema(schema), initialRaw(root));
    const heard: string[] = [];
    for (const path of ["field_4", "field_5", "field_8"]) state.subscribe(path, () => heard.push(path));
    state.set("field_4", "x");
    state.set("field_4", "xy");
    expect(heard).toEqual(["field_4", "field_4"]);
  });

  it("lists what is still needed in form order, the first few by name", () => {
    const schema = bigSchema(1_000);
    const root = describeSchema(schema)!;
    const state = new FormState(root, compileSchema(schema), initialRaw(root));
    const needed = state.stillNeeded(3);
    // Required: 1 and 3 of every 50; booleans (3) always have a value.
    expect(needed.first.map((f) => f.path)).toEqual(["field_1", "field_3", "field_51"]);
    expect(needed.count).toBe(40);
    state.set("field_1", "5");
    expect(state.stillNeeded(1)).toMatchObject({ count: 39, first: [{ path: "field_3" }] });
  });

  it("checks a root with rules it cannot split, whole", () => {
    for (const schema of [
      { type: "object", properties: { a: { type: "string" } }, allOf: [{ required: ["a"] }] },
      { type: "object", properties: { a: { type: "string" } }, dependentSchemas: { a: { required: ["b"] } } },
      { type: "object", properties: { a: { type: "string" } }, unevaluatedProperties: false },
    ]) {
      expect((compileSchema(schema) as Validator).parts, JSON.stringify(schema)).toBeNull();
    }
    const schema = { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, allOf: [{ required: ["a"] }] };
    const { allOf: _rule, ...form } = schema;
    const root = describeSchema(form)!;
    const validator = compileSchema(schema) as Validator;
    const raw = initialRaw(root);
    const state = new FormState(root, validator, raw);
    checkedWhole(state, root, raw, validator);
    state.set("a", "x");
    checkedWhole(state, root, raw, validator);
  });

  it("names each missing required property once", () => {
    const schema = bigSchema(4_000, 2);
    const problems = (compileSchema(schema) as Validator).validate({});
    const byPath = errorsByPath(problems);
    expect(Object.keys(byPath)).toHaveLength(2_000);
    expect(problems).toHaveLength(2_000);
    expect(byPath.field_1).toEqual(["Field required"]);
  });
});

function bigCard(n: number) {
  return {
    id: "int-big",
    kind: "generic",
    canResolve: true,
    message: "Survey",
    readOnlyReason: null,
    data: null,
    toolCallId: "call-1",
    toolName: "survey",
    args: null,
    inputSchema: null,
    responseSchema: bigSchema(n),
    createdAt: "2025-01-01T00:00:00Z",
    expiresAt: null,
  };
}

function shownFields(root: ParentNode): string[] {
  return [...root.querySelectorAll<HTMLElement>("[data-testid^='pp-field-field_']")].map((e) => e.dataset.testid!.slice("pp-field-".length));
}

describe("a form of many fields", () => {
  it("draws a page of fields, more on request, and finds any field by name", () => {
    const model = new FakeModel({ status: "interrupted", pending: [bigCard(1_000)] });
    const dispose = initialize(model);
    const view = mount(model);
    expect(1_000).toBeGreaterThan(MANY_FIELDS);
    expect(shownFields(view.el)).toEqual(Array.from({ length: FIELDS_PAGE }, (_, i) => `field_${i}`));
    expect(view.get("pp-field-count").textContent).toContain("1,000 fields");
    click(view.get("pp-show-more"));
    expect(shownFields(view.el)).toHaveLength(2 * FIELDS_PAGE);

    const filter = view.get("pp-field-filter") as HTMLInputElement;
    typeInto(filter, "field_99");
    expect(shownFields(view.el)).toEqual([
      "field_99",
      "field_990",
      "field_991",
      "field_992",
      "field_993",
      "field_994",
      "field_995",
      "field_996",
      "field_997",
      "field_998",
      "field_999",
    ]);
    expect(view.get("pp-field-count").textContent).toBe("11 of 1,000 fields match.");
    // Enter in the search box searches; it does not send the form.
    pressEnter(filter);
    expect(model.sent).toHaveLength(0);
    const label = view.el.querySelector(`label[for="${view.get("pp-field-field_996").id}"]`);
    expect(label?.textContent).toBe("Field 996");
    typeInto(filter, "");
    expect(shownFields(view.el)).toHaveLength(FIELDS_PAGE);
    view.cleanup();
    dispose();
  });

  it("takes a person to a required field that is not drawn, and focuses it", () => {
    const model = new FakeModel({ status: "interrupted", pending: [bigCard(1_000)] });
    const dispose = initialize(model);
    const view = mount(model);
    const hint = view.get("pp-form-hint");
    expect(hint.textContent).toBe(
      "Still needed: Field 1, Field 3, Field 51, Field 53, Field 101, Field 103, Field 151, Field 153, Field 201, Field 203 and 30 more",
    );
    expect(view.q("pp-field-field_201")).toBeNull();
    click(view.qa("pp-needed")[8]!);
    const far = view.get("pp-field-field_201");
    expect(document.activeElement).toBe(far);
    // Drawn where it belongs, after the page.
    expect(shownFields(view.el).slice(-1)).toEqual(["field_201"]);
    typeInto(far, "7");
    expect(view.get("pp-form-hint").textContent).not.toContain("Field 201,");
    view.cleanup();
    dispose();
  });

  it("a keystroke changes only its own field, the hint and the actions", () => {
    const model = new FakeModel({ status: "interrupted", pending: [bigCard(1_000)] });
    const dispose = initialize(model);
    const view = mount(model);
    const input = view.get("pp-field-field_1") as HTMLInputElement;
    typeInto(input, "x");
    const box = input.closest(".pp-field")!;
    const changed: Node[] = [];
    const observer = new MutationObserver((records) => changed.push(...records.map((r) => r.target)));
    observer.observe(view.el, { subtree: true, childList: true, attributes: true, characterData: true });
    typeInto(input, "xy");
    typeInto(input, "12");
    for (const record of observer.takeRecords()) changed.push(record.target);
    observer.disconnect();
    const outside = changed.filter(
      (n) => !box.contains(n) && !(n as Element).closest?.(".pp-form-hint, .pp-actions") && !n.parentElement?.closest(".pp-form-hint, .pp-actions"),
    );
    expect(outside).toEqual([]);
    expect(changed.length).toBeGreaterThan(0);
    view.cleanup();
    dispose();
  });

  it("is sent once every required field is filled, checked whole", () => {
    const model = new FakeModel({ status: "interrupted", pending: [bigCard(400)] });
    const dispose = initialize(model);
    const view = mount(model);
    expect(isDisabled(view.get("pp-submit"))).toBe(true);
    for (let round = 0; round < 16 && view.q("pp-form-hint"); round += 1) {
      click(view.qa("pp-needed")[0]!);
      const field = document.activeElement as HTMLInputElement | HTMLSelectElement;
      if (field.tagName === "SELECT") choose(field, "1");
      else typeInto(field, "5");
    }
    expect(view.q("pp-form-hint")).toBeNull();
    expect(isDisabled(view.get("pp-submit"))).toBe(false);
    pressEnter(view.get("pp-field-field_1"));
    const sent = model.lastRequest().data as Record<string, unknown>;
    expect(sent.field_1).toBe(5);
    expect(sent.field_3).toBe("high");
    expect(sent.field_53).toBe(5);
    expect(sent.field_351).toBe("high");
    expect(Object.keys(sent)).toHaveLength(100 + 16);
    view.cleanup();
    dispose();
  });
});
