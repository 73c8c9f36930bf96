/**
 * The logic of schema forms, free of the DOM: a JSON Schema becomes field descriptors
 * (or `null` when the form builder does not support it and a JSON editor takes over),
 * the inputs' raw values become the answer, and the validator's problems land on fields.
 *
 * Paths are field paths (see field-path.ts: `address.city`, `tags.0`; the root is "").
 * Property names are data: every record keyed by a name or a path has no prototype, and
 * values are built with own properties only, so `__proto__` or `constructor` are fields
 * like any other.
 */

import type { Json, JsonObject } from "../types";
import { joinPath } from "./field-path";
import { fieldLabel } from "./labels";
import { hasOwn, own, record, setOwn } from "./own";
import { errorsByPath, isSafePattern, type Validator } from "./validation";

export { joinPath };

export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "object" | "array";

export interface Field {
  kind: FieldKind;
  path: string;
  key: string;
  label: string;
  description?: string;
  required: boolean;
  /** An empty input means `null` (pydantic's `Optional[...]`). */
  nullable: boolean;
  default?: Json;
  format?: string;
  pattern?: string;
  /** The pattern is not run here (it could take exponential time); the kernel checks it. */
  patternByKernel?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  options?: Json[];
  children?: Field[];
  item?: Field;
  minItems?: number;
  maxItems?: number;
}

export type RawValue = string | boolean | Array<string | boolean>;
export type RawState = Record<string, RawValue>;

type Schema = JsonObject;

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pointerLookup(root: Schema, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  const pointer = ref.slice(1);
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = Array.isArray(node) ? node[Number(part)] : own(node as Record<string, unknown>, part);
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * Follows local `$ref`s (`#/$defs/...`, `#/definitions/...`); the referring schema's own
 * keywords (title, description, default) win over the target's. `null` when a ref cannot
 * be resolved here or loops back on itself.
 */
export function deref(schema: unknown, root: Schema, seen: ReadonlySet<string> = new Set()): Schema | null {
  if (!isObject(schema)) return null;
  let current: Schema = schema;
  // Copied only when there is a reference to follow: most schemas have none.
  let visited: Set<string> | null = null;
  while (typeof current.$ref === "string") {
    const ref = current.$ref;
    visited ??= new Set(seen);
    if (visited.has(ref)) return null;
    visited.add(ref);
    const target = pointerLookup(root, ref);
    if (!isObject(target)) return null;
    const { $ref: _drop, ...siblings } = current;
    void _drop;
    current = { ...target, ...siblings };
  }
  return current;
}

const PRIMITIVE_KINDS: ReadonlySet<FieldKind> = new Set(["string", "number", "integer", "boolean", "enum"]);

function isPrimitiveJson(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function num(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** `anyOf: [X, {type: "null"}]` or `type: [X, "null"]`: X, made nullable. */
function unwrapNullable(schema: Schema, root: Schema, seen: ReadonlySet<string>): { schema: Schema; nullable: boolean } | null {
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const resolved = branches.map((b) => deref(b, root, seen));
    if (resolved.some((b) => b === null)) return null;
    const nonNull = resolved.filter((b) => !(b && b.type === "null" && Object.keys(b).length === 1));
    if (resolved.length !== 2 || nonNull.length !== 1) return null;
    const { [keyword]: _drop, ...rest } = schema;
    void _drop;
    return { schema: { ...(nonNull[0] as Schema), ...rest }, nullable: true };
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    if (types.length !== 1 || schema.type.length !== 2) return null;
    return { schema: { ...schema, type: types[0] as Json }, nullable: true };
  }
  return { schema, nullable: false };
}

const UNSUPPORTED = ["anyOf", "oneOf", "allOf", "not", "if", "const", "$ref", "prefixItems", "patternProperties"];

function describe(raw: unknown, root: Schema, path: string, key: string, required: boolean, seen: ReadonlySet<string>): Field | null {
  let schema = deref(raw, root, seen);
  if (!schema) return null;
  const refs = isObject(raw) && typeof raw.$ref === "string" ? new Set(seen).add(raw.$ref) : seen;

  // pydantic v1 wraps a described nested model as `allOf: [{$ref}]`.
  if (Array.isArray(schema.allOf)) {
    if (schema.allOf.length !== 1) return null;
    const inner = deref(schema.allOf[0], root, refs);
    if (!inner) return null;
    const { allOf: _drop, ...rest } = schema;
    void _drop;
    schema = { ...inner, ...rest };
  }

  const unwrapped = unwrapNullable(schema, root, refs);
  if (!unwrapped) return null;
  schema = unwrapped.schema;
  const nullable = unwrapped.nullable;
  for (const unsupported of UNSUPPORTED) {
    if (hasOwn(schema, unsupported)) return null;
  }

  const base: Field = {
    kind: "string",
    path,
    key,
    label: fieldLabel(schema, key),
    description: str(schema.description),
    required,
    nullable,
  };
  if (hasOwn(schema, "default")) base.default = schema.default;

  if (Array.isArray(schema.enum)) {
    if (!schema.enum.every(isPrimitiveJson) || schema.enum.length === 0) return null;
    return Object.assign(base, { kind: "enum" as const, options: schema.enum });
  }

  const type = schema.type ?? (isObject(schema.properties) ? "object" : undefined);
  switch (type) {
    case "string":
      return Object.assign(base, {
        kind: "string" as const,
        format: str(schema.format),
        pattern: str(schema.pattern),
        patternByKernel: typeof schema.pattern === "string" && !isSafePattern(schema.pattern) ? true : undefined,
        minLength: num(schema.minLength),
        maxLength: num(schema.maxLength),
      });
    case "number":
    case "integer":
      return Object.assign(base, {
        kind: type,
        minimum: num(schema.minimum),
        maximum: num(schema.maximum),
        exclusiveMinimum: num(schema.exclusiveMinimum),
        exclusiveMaximum: num(schema.exclusiveMaximum),
        multipleOf: num(schema.multipleOf),
      });
    case "boolean":
      return nullable ? null : Object.assign(base, { kind: "boolean" as const });
    case "object": {
      if (nullable) return null;
      const properties = schema.properties;
      if (!isObject(properties) || Object.keys(properties).length === 0) return null;
      const extra = schema.additionalProperties;
      if (extra !== undefined && extra !== false && !(isObject(extra) && Object.keys(extra).length === 0)) {
        return null;
      }
      const requiredKeys = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
      const children: Field[] = [];
      for (const [childKey, childSchema] of Object.entries(properties)) {
        const child = describe(childSchema, root, joinPath(path, childKey), childKey, requiredKeys.has(childKey), refs);
        if (!child) return null;
        children.push(child);
      }
      return Object.assign(base, { kind: "object" as const, children });
    }
    case "array": {
      if (nullable) return null;
      const item = describe(schema.items, root, joinPath(path, "#"), "", true, refs);
      if (!item || !PRIMITIVE_KINDS.has(item.kind) || item.nullable) return null;
      return Object.assign(base, { kind: "array" as const, item, minItems: num(schema.minItems), maxItems: num(schema.maxItems) });
    }
    default:
      return null;
  }
}

/** The form for `schema`, or `null` when it needs the JSON editor. */
export function describeSchema(schema: unknown): Field | null {
  if (!isObject(schema)) return null;
  return describe(schema, schema, "", "", true, new Set());
}

/** Every field, depth first, the array rows' template included. */
export function flattenFields(field: Field): Field[] {
  return [field, ...(field.children ?? []).flatMap(flattenFields)];
}

function rawOf(field: Field, value: Json | undefined): string | boolean {
  switch (field.kind) {
    case "boolean":
      return value === true;
    case "enum": {
      if (value === undefined) return "";
      const index = (field.options ?? []).findIndex((o) => JSON.stringify(o) === JSON.stringify(value));
      return index >= 0 ? String(index) : "";
    }
    case "number":
    case "integer":
      return typeof value === "number" ? String(value) : "";
    default:
      return typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
  }
}

/** The inputs' starting values: `value` where given (e.g. a tool's args), else the schema's defaults. */
export function initialRaw(field: Field, value?: Json): RawState {
  const state = record<RawValue>();
  const visit = (f: Field, v: Json | undefined) => {
    const given = v !== undefined ? v : f.default;
    if (f.kind === "object") {
      const obj = isObject(given) ? given : {};
      for (const child of f.children ?? []) visit(child, own(obj, child.key));
    } else if (f.kind === "array") {
      const rows = Array.isArray(given) ? given : [];
      state[f.path] = rows.map((row) => rawOf(f.item as Field, row));
    } else {
      state[f.path] = rawOf(f, given);
    }
  };
  visit(field, value);
  return state;
}

/** A new empty row's raw value for an array field. */
export function emptyRow(field: Field): string | boolean {
  return rawOf(field.item as Field, field.item?.default);
}

export interface Built {
  value: Json | undefined;
  /** Inputs that do not even parse (a number field holding text), by path. */
  parseErrors: Record<string, string>;
}

function primitiveValue(field: Field, raw: RawValue | undefined, path: string, errors: Record<string, string>, inRow: boolean): Json | undefined {
  const empty = field.nullable ? null : undefined;
  switch (field.kind) {
    case "boolean":
      return raw === true;
    case "enum": {
      if (raw === "" || raw === undefined) {
        if (inRow) errors[path] = "Choose a value";
        return empty;
      }
      return (field.options ?? [])[Number(raw)] ?? empty;
    }
    case "number":
    case "integer": {
      const text = typeof raw === "string" ? raw.trim() : "";
      if (text === "") {
        if (inRow) errors[path] = "Enter a number";
        return empty;
      }
      const n = Number(text);
      if (!Number.isFinite(n)) {
        errors[path] = "Enter a number";
        return empty;
      }
      return n;
    }
    default: {
      const text = typeof raw === "string" ? raw : "";
      if (text === "" && !inRow) return empty;
      return text;
    }
  }
}

/** The part of the answer field `f` describes; inputs that do not parse are noted in `parseErrors`. */
export function buildFieldValue(f: Field, raw: Readonly<RawState>, parseErrors: Record<string, string>): Json | undefined {
  if (f.kind === "object") {
    const out: JsonObject = {};
    for (const child of f.children ?? []) {
      const v = buildFieldValue(child, raw, parseErrors);
      if (v !== undefined) setOwn(out, child.key, v);
    }
    if (f.path !== "" && !f.required && Object.keys(out).length === 0) return undefined;
    return out;
  }
  if (f.kind === "array") {
    const given = own(raw, f.path);
    const rows = Array.isArray(given) ? given : [];
    if (rows.length === 0 && !f.required) return undefined;
    return rows.map((row, i) => primitiveValue(f.item as Field, row, joinPath(f.path, i), parseErrors, true) ?? null);
  }
  return primitiveValue(f, own(raw, f.path), f.path, parseErrors, false);
}

/** The answer the inputs describe. Empty optional inputs are left out. */
export function buildValue(field: Field, raw: Readonly<RawState>): Built {
  const parseErrors = record<string>();
  return { value: buildFieldValue(field, raw, parseErrors), parseErrors };
}

export interface Check {
  valid: boolean;
  value: Json | undefined;
  /** By dotted path; "" holds what belongs to no field. */
  errors: Record<string, string[]>;
}

/** Every field path of the form (array rows' templates excepted). */
export function fieldPaths(field: Field): Set<string> {
  const known = new Set<string>();
  const collect = (f: Field) => {
    known.add(f.path);
    f.children?.forEach(collect);
  };
  collect(field);
  return known;
}

/**
 * Problems by the path they are shown at: an input that does not parse says only that;
 * errors inside an array row belong to the row; anything else unknown goes to the form ("").
 */
export function placeProblems(
  parseErrors: Readonly<Record<string, string>>,
  found: Readonly<Record<string, string[]>>,
  known: ReadonlySet<string>,
): Record<string, string[]> {
  const errors = record<string[]>();
  for (const [path, message] of Object.entries(parseErrors)) errors[path] = [message];
  for (const [path, messages] of Object.entries(found)) {
    if (hasOwn(errors, path)) continue;
    errors[path] = messages;
  }
  const placed = record<string[]>();
  for (const [path, messages] of Object.entries(errors)) {
    const arrayRow = /^(.*)\.(\d+)$/.exec(path);
    const target = known.has(path) || (arrayRow && known.has(arrayRow[1])) ? path : "";
    placed[target] = [...(own(placed, target) ?? []), ...messages];
  }
  return placed;
}

/** Builds the answer from the inputs and checks it against the schema. */
export function checkForm(field: Field, raw: Readonly<RawState>, validator: Validator | Error, known: ReadonlySet<string> = fieldPaths(field)): Check {
  const { value, parseErrors } = buildValue(field, raw);
  const found = validator instanceof Error ? record<string[]>() : errorsByPath(validator.validate(value === undefined ? null : value));
  const errors = placeProblems(parseErrors, found, known);
  return { valid: Object.keys(errors).length === 0, value, errors };
}

/** A yes/no question: a schema whose answer is one required boolean. */
export interface BooleanChoice {
  /** What is asked (the schema's or the property's title, else the property's name); "" when nothing says. */
  label: string;
  description?: string;
  /** The answer for a choice: the boolean itself, or `{property: choice}`. */
  answer(choice: boolean): Json;
}

/**
 * The schema as two buttons when its answer is a single required boolean:
 * `{"type": "boolean"}`, or an object with exactly one property, a required boolean.
 */
export function booleanChoice(schema: unknown): BooleanChoice | null {
  // An object of many properties is no yes/no question; it need not be described to tell.
  const properties = isObject(schema) ? schema.properties : undefined;
  if (isObject(properties) && Object.keys(properties).length !== 1) return null;
  const field = describeSchema(schema);
  if (!field) return null;
  if (field.kind === "boolean") {
    const title = isObject(schema) && typeof schema.title === "string" ? schema.title.trim() : "";
    return { label: title, description: field.description, answer: (choice) => choice };
  }
  const only = field.kind === "object" && field.children?.length === 1 ? field.children[0] : null;
  if (only?.kind !== "boolean" || !only.required) return null;
  return {
    label: only.label,
    description: only.description ?? field.description,
    answer: (choice) => {
      const value: JsonObject = {};
      setOwn(value, only.key, choice);
      return value;
    },
  };
}
