import { describe, expect, it } from "vitest";
import { buildValue, checkForm, describeSchema, type Field, initialRaw } from "../src/lib/schema-form";
import { checkJsonText, compileSchema, errorsByPath } from "../src/lib/validation";

const schema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Full name", description: "As on the passport", minLength: 2 },
    email: { type: "string", format: "email" },
    code: { type: "string", pattern: "^[A-Z]{3}$", default: "ABC" },
    age: { type: "integer", minimum: 0, maximum: 150 },
    ratio: { type: "number", exclusiveMaximum: 1 },
    subscribe: { type: "boolean", default: true },
    color: { enum: ["red", "green"] },
    address: {
      type: "object",
      properties: { city: { type: "string" }, zip: { type: "string" } },
      required: ["city"],
    },
    tags: { type: "array", items: { type: "string" }, maxItems: 3 },
  },
  required: ["name", "age"],
};

function byPath(field: Field): Record<string, Field> {
  const out: Record<string, Field> = {};
  const visit = (f: Field) => {
    out[f.path] = f;
    f.children?.forEach(visit);
  };
  visit(field);
  return out;
}

describe("describeSchema", () => {
  it("turns properties into field descriptors", () => {
    const root = describeSchema(schema)!;
    const f = byPath(root);
    expect(root.kind).toBe("object");
    expect(f.name).toMatchObject({ kind: "string", label: "Full name", description: "As on the passport", required: true, minLength: 2 });
    expect(f.email).toMatchObject({ kind: "string", label: "Email", format: "email", required: false });
    expect(f.code).toMatchObject({ pattern: "^[A-Z]{3}$", default: "ABC" });
    expect(f.age).toMatchObject({ kind: "integer", minimum: 0, maximum: 150, required: true });
    expect(f.ratio).toMatchObject({ kind: "number", exclusiveMaximum: 1 });
    expect(f.subscribe).toMatchObject({ kind: "boolean", default: true });
    expect(f.color).toMatchObject({ kind: "enum", options: ["red", "green"] });
    expect(f.address.kind).toBe("object");
    expect(f["address.city"]).toMatchObject({ kind: "string", required: true });
    expect(f.tags).toMatchObject({ kind: "array", maxItems: 3 });
    expect(f.tags.item?.kind).toBe("string");
  });

  it("resolves pydantic's $defs refs for nested models and enums", () => {
    const pydantic = {
      $defs: {
        Address: {
          title: "Address",
          type: "object",
          properties: { city: { title: "City", type: "string" } },
          required: ["city"],
        },
        Color: { title: "Color", enum: ["red", "blue"], type: "string" },
      },
      title: "Answer",
      type: "object",
      properties: {
        home: { $ref: "#/$defs/Address", description: "Where you live" },
        color: { $ref: "#/$defs/Color", default: "blue" },
        note: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Note" },
      },
      required: ["home"],
    };
    const f = byPath(describeSchema(pydantic)!);
    expect(f.home).toMatchObject({ kind: "object", label: "Address", description: "Where you live", required: true });
    expect(f["home.city"]).toMatchObject({ kind: "string", label: "City", required: true });
    expect(f.color).toMatchObject({ kind: "enum", options: ["red", "blue"], default: "blue" });
    expect(f.note).toMatchObject({ kind: "string", nullable: true });
  });

  it("gives up (JSON editor) on what the form cannot express", () => {
    expect(describeSchema({ oneOf: [{ type: "string" }, { type: "number" }] })).toBeNull();
    expect(describeSchema({ type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "number" }] } } })).toBeNull();
    expect(describeSchema({ type: "object", properties: { a: { allOf: [{ type: "string" }, { minLength: 1 }] } } })).toBeNull();
    expect(describeSchema({ type: "object", properties: { a: { $ref: "#/$defs/Missing" } } })).toBeNull();
    expect(describeSchema({ type: "object", properties: { a: { $ref: "https://example.org/s.json" } } })).toBeNull();
    expect(describeSchema({ type: "object", additionalProperties: { type: "string" } })).toBeNull();
    expect(
      describeSchema({ type: "object", properties: { rows: { type: "array", items: { type: "object", properties: { x: { type: "string" } } } } } }),
    ).toBeNull();
    const recursive = { $defs: { Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" } } } }, $ref: "#/$defs/Node" };
    expect(describeSchema(recursive)).toBeNull();
  });

  it("supports a primitive root", () => {
    expect(describeSchema({ type: "string", minLength: 1 })).toMatchObject({ kind: "string", path: "" });
  });
});

describe("values", () => {
  it("start from defaults, or from the given value", () => {
    const root = describeSchema(schema)!;
    const raw = initialRaw(root);
    expect(raw).toMatchObject({ name: "", code: "ABC", subscribe: true, color: "", age: "", tags: [] });
    const prefilled = initialRaw(root, { name: "Ada", age: 36, color: "green", address: { city: "London" }, tags: ["x"] });
    expect(prefilled).toMatchObject({ name: "Ada", age: "36", color: "1", "address.city": "London", tags: ["x"] });
  });

  it("leave out empty optional inputs and parse numbers", () => {
    const root = describeSchema(schema)!;
    const raw = { ...initialRaw(root), name: "Ada", age: "36", color: "0", tags: ["a", "b"] };
    expect(buildValue(root, raw).value).toEqual({ name: "Ada", code: "ABC", age: 36, subscribe: true, color: "red", tags: ["a", "b"] });
    const bad = buildValue(root, { ...raw, age: "abc" });
    expect(bad.parseErrors).toEqual({ age: "Enter a number" });
  });

  it("make an empty nullable input null", () => {
    const root = describeSchema({ type: "object", properties: { note: { type: ["string", "null"] } }, required: ["note"] })!;
    expect(buildValue(root, initialRaw(root)).value).toEqual({ note: null });
  });
});

describe("validation", () => {
  const root = describeSchema(schema)!;
  const validator = compileSchema(schema);

  it("maps the validator's errors to field paths", () => {
    const raw = { ...initialRaw(root), name: "A", age: "200", email: "nope", code: "abc", address: undefined as never, "address.zip": "1", tags: ["a"] };
    const check = checkForm(root, raw, validator);
    expect(check.valid).toBe(false);
    expect(Object.keys(check.errors).sort()).toEqual(["address.city", "age", "code", "email", "name"]);
    expect(check.errors["address.city"]).toEqual(["Field required"]);
    expect(check.errors.email[0]).toMatch(/email/);
  });

  it("reports required fields that are left empty", () => {
    const check = checkForm(root, initialRaw(root), validator);
    expect(check.errors.name).toEqual(["Field required"]);
    expect(check.errors.age).toEqual(["Field required"]);
  });

  it("accepts a valid answer", () => {
    const check = checkForm(root, { ...initialRaw(root), name: "Ada", age: "36" }, validator);
    expect(check).toMatchObject({ valid: true, errors: {} });
  });

  it("puts array item errors on the row", () => {
    const s = { type: "object", properties: { n: { type: "array", items: { type: "integer", minimum: 1 } } } };
    const check = checkForm(describeSchema(s)!, { n: ["2", "0"] }, compileSchema(s));
    expect(Object.keys(check.errors)).toEqual(["n.1"]);
  });

  it("hides the null branch of nullable fields", () => {
    const s = { type: "object", properties: { x: { anyOf: [{ type: "string", maxLength: 2 }, { type: "null" }] } } };
    const v = compileSchema(s);
    expect(v).not.toBeInstanceOf(Error);
    const errors = errorsByPath((v as any).validate({ x: "long" }));
    expect(errors).toEqual({ x: ["String should have at most 2 characters"] });
  });

  it("checks the numeric formats, in nested fields too", () => {
    const v = compileSchema({
      type: "object",
      properties: { n: { type: "integer", format: "int32" }, rows: { type: "array", items: { type: "number", format: "int64" } } },
    });
    expect(v).not.toBeInstanceOf(Error);
    const check = (value: unknown) => errorsByPath((v as any).validate(value));
    expect(check({ n: 7, rows: [1, 2] })).toEqual({});
    expect(check({ n: 2 ** 31, rows: [1, 1.5] })).toEqual({ n: ["Input should be a valid int32"], "rows.1": ["Input should be a valid int64"] });
  });

  it("compiles schemas that carry $schema and $id, twice", () => {
    const s = { $schema: "http://json-schema.org/draft-07/schema#", $id: "urn:pp:x", type: "string" };
    expect(compileSchema(s)).not.toBeInstanceOf(Error);
    expect(compileSchema({ ...s, minLength: 1 })).not.toBeInstanceOf(Error);
  });

  it("checks JSON text: parse errors, schema errors, empty", () => {
    const v = compileSchema({ oneOf: [{ type: "string" }, { type: "integer" }] });
    expect(checkJsonText("{", v, undefined).errors[0]).toMatch(/Not valid JSON/);
    expect(checkJsonText('"x"', v, undefined)).toMatchObject({ valid: true, value: "x" });
    expect(checkJsonText("1.5", v, undefined).valid).toBe(false);
    expect(checkJsonText("", null, null)).toMatchObject({ valid: true, value: null });
    expect(checkJsonText("  ", v, undefined).valid).toBe(false);
  });
});
