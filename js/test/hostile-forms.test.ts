import { afterEach, describe, expect, it, vi } from "vitest";
import { domId } from "../src/components/fields";
import { problemPath } from "../src/kernel/protocol";
import { patternPlan } from "../src/lib/patterns";
import { buildValue, checkForm, describeSchema, type Field, initialRaw } from "../src/lib/schema-form";
import { checkJsonText, compileSchema, errorsByPath, FORMAT_MAX_LENGTH, isSafePattern, type Validator } from "../src/lib/validation";
import { click, FakeModel, initialize, mount, typeInto, within } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
  document.body.innerHTML = "";
});

const NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "", "a.b", "x~y"];

/** A schema whose properties are the names above, all required strings. */
function namesSchema(extra: Record<string, unknown> = {}) {
  // As the kernel's JSON arrives: `__proto__` an own key like any other.
  const properties = Object.fromEntries(NAMES.map((name) => [name, { type: "string", minLength: 2 }]));
  return JSON.parse(JSON.stringify({ type: "object", properties, required: NAMES, ...extra }));
}

function byPath(field: Field): Map<string, Field> {
  const out = new Map<string, Field>();
  const visit = (f: Field) => {
    out.set(f.path, f);
    f.children?.forEach(visit);
  };
  visit(field);
  return out;
}

// The field path of each name (see field-path.ts); a Map, since an object literal's
// `__proto__:` would set its prototype.
const PATH = new Map<string, string>([
  ["__proto__", "__proto__"],
  ["constructor", "constructor"],
  ["toString", "toString"],
  ["hasOwnProperty", "hasOwnProperty"],
  ["valueOf", "valueOf"],
  ["", "~"],
  ["a.b", "a~1b"],
  ["x~y", "x~0y"],
]);
const pathOf = (name: string): string => PATH.get(name)!;

describe("property names are data", () => {
  it("the schema as the kernel sends it has a __proto__ property", () => {
    const schema = namesSchema();
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(NAMES));
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
  });

  it("every name becomes a field with its own path", () => {
    const root = describeSchema(namesSchema())!;
    const fields = byPath(root);
    for (const name of NAMES) {
      expect(fields.get(pathOf(name)), name).toMatchObject({ key: name, kind: "string", required: true });
    }
    expect(root.children).toHaveLength(NAMES.length);
  });

  it("builds an answer with every name as an own key, and leaves Object.prototype alone", () => {
    const root = describeSchema(namesSchema())!;
    const raw = initialRaw(root);
    for (const name of NAMES) raw[pathOf(name)] = `v ${name}`;
    const { value } = buildValue(root, raw);
    const sent = JSON.parse(JSON.stringify(value));
    expect(Object.keys(sent).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) expect(Object.getOwnPropertyDescriptor(sent, name)?.value).toBe(`v ${name}`);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it("starts from given values under those names", () => {
    const root = describeSchema(namesSchema())!;
    const given = JSON.parse('{"__proto__": "p", "constructor": "c", "a.b": "d", "": "e"}');
    const raw = initialRaw(root, given);
    expect(raw.__proto__).toBe("p");
    expect(raw.constructor).toBe("c");
    expect(raw["a~1b"]).toBe("d");
    expect(raw["~"]).toBe("e");
    expect(raw.toString).toBe("");
  });

  it("puts the validator's problems beside those fields", () => {
    const schema = namesSchema();
    const root = describeSchema(schema)!;
    const raw = initialRaw(root);
    for (const name of NAMES) raw[pathOf(name)] = "x";
    const check = checkForm(root, raw, compileSchema(schema));
    expect(check.valid).toBe(false);
    expect(Object.keys(check.errors).sort()).toEqual([...PATH.values()].sort());
    for (const path of [...PATH.values()]) expect(check.errors[path]).toEqual(["String should have at least 2 characters"]);
  });

  it("reports a missing name and an extra name in JSON text", () => {
    const v = compileSchema(namesSchema({ additionalProperties: false }));
    const text = JSON.stringify(Object.fromEntries(NAMES.filter((n) => n !== "a.b").map((n) => [n, "ok"]))).replace("{", '{"__proto__x":"1",');
    const checked = checkJsonText(text, v, undefined);
    expect(checked.valid).toBe(false);
    expect(checked.errors).toEqual(expect.arrayContaining(["a~1b: Field required", "Extra inputs are not permitted (__proto__x)"]));
    const proto = checkJsonText('{"__proto__": 5}', compileSchema(namesSchema()), undefined);
    expect(proto.errors).toContain("__proto__: Input should be a valid string");
  });

  it("gives every path its own element id", () => {
    const ids = ["a.b", "a~1b", "a_46_b", "a_b", "~", "__proto__"].map((p) => domId("pp", p));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a schema part the validator cannot follow leaves the check to the kernel instead of throwing", () => {
    const v = compileSchema({ type: "object", properties: { a: { $ref: "#/$defs/Missing" } } });
    expect(v).not.toBeInstanceOf(Error);
    expect(() => (v as Validator).validate({ a: 1 })).not.toThrow();
    expect((v as Validator).validate({ a: 1 })).toEqual([]);
  });

  it("reads the kernel's paths for those names", () => {
    expect(problemPath('$["a.b"]')).toBe("a~1b");
    expect(problemPath("$.editedArgs.__proto__")).toBe("editedArgs.__proto__");
    expect(problemPath('$.editedArgs[""]')).toBe("editedArgs.~");
    expect(problemPath("/a.b/0")).toBe("a~1b.0");
    expect(problemPath(["a.b", 0])).toBe("a~1b.0");
  });

  it("a card with such fields renders, sends every name, and shows the kernel's problems beside them", async () => {
    const card = {
      id: "int-names",
      kind: "generic",
      canResolve: true,
      message: "Names",
      readOnlyReason: null,
      data: null,
      toolCallId: "call-1",
      toolName: "ask",
      args: null,
      inputSchema: null,
      responseSchema: namesSchema(),
      createdAt: "2025-01-01T00:00:00Z",
      expiresAt: null,
    };
    const model = new FakeModel({ status: "interrupted", pending: [card] });
    const dispose = initialize(model);
    const view = mount(model);
    const shown = view.get("pp-card");
    for (const name of NAMES) typeInto(within(shown).get(`pp-field-${pathOf(name)}`), `v ${name}`);
    click(view.get("pp-submit"));
    const sent = model.lastRequest();
    const data = JSON.parse(JSON.stringify(sent.data));
    expect(Object.keys(data).sort()).toEqual([...NAMES].sort());
    expect(data.__proto__).toBe("v __proto__");
    expect(view.get("pp-card").dataset.phase).toBe("sending");
    await model.respond({
      ok: false,
      error: {
        name: "InvalidResolutionError",
        message: "no",
        problems: [
          { path: '$["a.b"]', message: "taken" },
          { path: "$.__proto__", message: "proto taken" },
          { path: "$.constructor", message: "constructor taken" },
        ],
      },
    });
    expect(view.get("pp-card").dataset.phase).toBe("idle");
    const errors = new Map(view.qa("pp-field-error").map((e) => [e.dataset.path, e.textContent]));
    expect(errors.get("a~1b")).toBe("taken");
    expect(errors.get("__proto__")).toBe("proto taken");
    expect(errors.get("constructor")).toBe("constructor taken");
    view.cleanup();
    dispose();
  });
});

const STRING_FORMATS = [
  "date",
  "time",
  "date-time",
  "iso-time",
  "iso-date-time",
  "duration",
  "uri",
  "uri-reference",
  "uri-template",
  "url",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "regex",
  "uuid",
  "json-pointer",
  "json-pointer-uri-fragment",
  "relative-json-pointer",
  "byte",
];

describe("pathological patterns and formats", () => {
  const EVIL = "^(a+)+$";
  const schema = {
    type: "object",
    properties: {
      code: { type: "string", pattern: EVIL, default: `${"a".repeat(31)}!` },
      safe: { type: "string", pattern: "^[A-Z]{3}$" },
    },
  };

  it("tells safe patterns from ones with nested quantifiers", () => {
    expect(isSafePattern(EVIL)).toBe(false);
    expect(isSafePattern("^(a|b)*(c+)+$")).toBe(false);
    expect(isSafePattern("(unclosed")).toBe(false);
    expect(isSafePattern("^[A-Z]{3}$")).toBe(true);
    expect(isSafePattern("^[a-z0-9._-]+@[a-z]+$")).toBe(true);
  });

  it("runs a pattern only on texts short enough for its cost", () => {
    expect(patternPlan("^(a|a)*$").runs).toBe(false);
    expect(patternPlan("^(a|aa)+$").runs).toBe(false);
    expect(patternPlan("^(?:foo|bar)$")).toMatchObject({ runs: true });
    const linear = patternPlan("^[A-Z]{3}$");
    const cubic = patternPlan("^.*.*.*=$");
    expect(linear.maxLength).toBeGreaterThan(1_000_000);
    expect(cubic.runs).toBe(true);
    expect(cubic.maxLength).toBeLessThan(100);
    const v = compileSchema({ type: "string", pattern: "^.*.*.*=$" }) as Validator;
    expect(errorsByPath(v.validate("no equals sign"))).toEqual({ "": ["String should match pattern '^.*.*.*=$'"] });
    const started = performance.now();
    expect(v.validate("a".repeat(20_000))).toEqual([]);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("no pattern keeps the page busy, whatever the text", () => {
    const patterns = [
      "^(a+)+$",
      "^(a|a)*$",
      "^(a|aa)+$",
      "^.*.*.*.*=$",
      "^(\\w+\\s?)*$",
      "^([a-z0-9]+-?)*$",
      "^\\d*\\d*\\d*\\d*x$",
      "(x+x+)+y",
      "^[a-z]+@[a-z]+\\.[a-z]+$",
    ];
    const slow: string[] = [];
    for (const pattern of patterns) {
      const v = compileSchema({ type: "string", pattern }) as Validator;
      for (const text of [`${"a".repeat(31)}!`, `${"a".repeat(20_000)}!`, `${"1".repeat(5_000)}!`, "x".repeat(3_000)]) {
        const started = performance.now();
        v.validate(text);
        const took = performance.now() - started;
        if (took > 200) slow.push(`${pattern} on ${text.length} characters: ${took.toFixed(0)} ms`);
      }
    }
    expect(slow).toEqual([]);
  });

  it("never runs an unsafe pattern, and says the kernel checks it", () => {
    const sources: string[] = [];
    const test = RegExp.prototype.test;
    vi.spyOn(RegExp.prototype, "test").mockImplementation(function (this: RegExp, text: string) {
      sources.push(this.source);
      return test.call(this, text);
    });
    const root = describeSchema(schema)!;
    expect(root.children?.[0]).toMatchObject({ pattern: EVIL, patternByKernel: true });
    const validator = compileSchema(schema) as Validator;
    expect(validator.deferredPatterns).toEqual(["#/properties/code/pattern"]);
    const started = performance.now();
    const check = checkForm(root, { ...initialRaw(root), safe: "abc" }, validator);
    expect(performance.now() - started).toBeLessThan(500);
    expect(check.errors).toEqual({ safe: ["String should match pattern '^[A-Z]{3}$'"] });
    expect(sources).not.toContain(EVIL);
    expect(sources).toContain("^[A-Z]{3}$");
  });

  it("a card shows the note beside the field and the kernel's verdict there", async () => {
    const card = {
      id: "int-evil",
      kind: "generic",
      canResolve: true,
      message: "Code?",
      readOnlyReason: null,
      data: null,
      toolCallId: "call-1",
      toolName: "ask",
      args: null,
      inputSchema: null,
      responseSchema: schema,
      createdAt: "2025-01-01T00:00:00Z",
      expiresAt: null,
    };
    const model = new FakeModel({ status: "interrupted", pending: [card] });
    const dispose = initialize(model);
    const view = mount(model);
    const note = view.get("pp-kernel-check");
    expect(note.textContent).toContain(EVIL);
    expect(view.get("pp-field-code").getAttribute("aria-describedby")).toContain(note.id);
    click(view.get("pp-submit"));
    expect(model.lastRequest().data).toEqual({ code: `${"a".repeat(31)}!` });
    await model.respond({ ok: false, error: { name: "InvalidResolutionError", message: "no", problems: [{ path: "$.code", message: "does not match" }] } });
    const error = view.qa("pp-field-error").find((e) => e.dataset.path === "code");
    expect(error?.textContent).toBe("does not match");
    view.cleanup();
    dispose();
  });

  it("an array's rows say the kernel checks their pattern", () => {
    const list = { type: "object", properties: { codes: { type: "array", items: { type: "string", pattern: EVIL } } } };
    const root = describeSchema(list)!;
    expect(root.children?.[0].item).toMatchObject({ patternByKernel: true });
    const check = checkForm(root, { codes: [`${"a".repeat(40)}!`] }, compileSchema(list));
    expect(check.valid).toBe(true);
  });

  it("leaves formats of very long strings to the kernel", () => {
    const v = compileSchema({ type: "string", format: "email" }) as Validator;
    expect(errorsByPath(v.validate("not an email"))).toEqual({ "": ["Input should be a valid email"] });
    const long = `${"a".repeat(FORMAT_MAX_LENGTH * 25)}@`;
    const started = performance.now();
    expect(v.validate(long)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("checks every format in bounded time, whatever the string", () => {
    // Runs of the characters format regexes repeat, up to the length still checked here,
    // each spoiled at the end so that a backtracking regex tries every split.
    const units = ["a", "1", "a-", "a.", "1.", "1:", ":", "/", "%2", "a@", "-", " ", "ä", "{a", "a,"];
    const prefixes = ["", "http://", "https://a.", "a:", "#/", "P", "2020-01-01T"];
    const slow: string[] = [];
    for (const name of STRING_FORMATS) {
      const v = compileSchema({ type: "string", format: name }) as Validator;
      for (const prefix of prefixes) {
        for (const unit of units) {
          for (const length of [40, FORMAT_MAX_LENGTH - prefix.length - 1]) {
            const text = `${prefix}${unit.repeat(Math.ceil(length / unit.length)).slice(0, length)}!`;
            // The fastest of three runs, so that a pause of a busy machine is not counted.
            let took = Number.POSITIVE_INFINITY;
            for (let run = 0; run < 3 && took > 100; run += 1) {
              const started = performance.now();
              v.validate(text);
              took = Math.min(took, performance.now() - started);
            }
            if (took > 100) slow.push(`${name} ${JSON.stringify(text.slice(0, 24))}… (${text.length}): ${took.toFixed(0)} ms`);
          }
        }
      }
    }
    expect(slow).toEqual([]);
  });

  it("leaves a schema with an unsafe property-name pattern to the kernel", () => {
    const v = compileSchema({ type: "object", patternProperties: { "^(a+)+$": { type: "string" } } });
    expect(v).toBeInstanceOf(Error);
    expect((v as Error).message).toMatch(/could take too long/);
  });

  it("a JSON answer says which patterns the kernel checks", () => {
    const card = {
      id: "int-json",
      kind: "generic",
      canResolve: true,
      message: "Codes?",
      readOnlyReason: null,
      data: null,
      toolCallId: "call-1",
      toolName: "ask",
      args: null,
      inputSchema: null,
      responseSchema: { type: "array", items: { oneOf: [{ type: "string", pattern: EVIL }, { type: "integer" }] } },
      createdAt: "2025-01-01T00:00:00Z",
      expiresAt: null,
    };
    const model = new FakeModel({ status: "interrupted", pending: [card] });
    const dispose = initialize(model);
    const view = mount(model);
    expect(view.get("pp-kernel-check").textContent).toMatch(/A pattern of this schema could take too long/);
    const started = performance.now();
    typeInto(view.get("pp-json-editor"), JSON.stringify([`${"a".repeat(40)}!`, 3]));
    expect(performance.now() - started).toBeLessThan(500);
    expect(view.q("pp-field-error")).toBeNull();
    view.cleanup();
    dispose();
  });
});
