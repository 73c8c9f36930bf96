/**
 * Checking answers in the browser with ajv, for instant feedback (the kernel's check is
 * the authoritative one), and ajv's errors as dotted field paths.
 */
import Ajv2020 from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { Json, JsonObject } from "./types";

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function joinPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

export interface Validator {
  validate(value: unknown): ErrorObject[];
}

const validators = new Map<string, Validator | Error>();

/**
 * An ajv validator for `schema` (JSON Schema 2020-12, which reads draft-07 schemas such as
 * pydantic's too), or the Error that compiling it raised.
 */
export function compileSchema(schema: unknown): Validator | Error {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached;
  let result: Validator | Error;
  try {
    // `$schema` and `$id` would tie the schema to a meta-schema or an id that another
    // card's schema may share; validation needs neither.
    const { $schema: _s, $id: _i, ...rest } = (isObject(schema) ? schema : {}) as JsonObject;
    void _s;
    void _i;
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
    addFormats(ajv);
    const fn: ValidateFunction = ajv.compile(isObject(schema) ? rest : (schema as never));
    result = {
      validate(value) {
        return fn(value) ? [] : [...(fn.errors ?? [])];
      },
    };
  } catch (err) {
    result = err instanceof Error ? err : new Error(String(err));
  }
  validators.set(key, result);
  return result;
}

export function pointerToPath(pointer: string): string {
  if (!pointer) return "";
  return pointer
    .replace(/^\//, "")
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

const TYPE_NAMES: Record<string, string> = {
  integer: "a valid integer",
  number: "a valid number",
  string: "a valid string",
  boolean: "a valid boolean",
  object: "a valid dictionary",
  array: "a valid list",
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function quoted(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value);
}

/**
 * ajv's error in the kernel's words (pydantic's), so that a problem reads the same
 * whether the browser or the kernel finds it.
 */
export function friendly(error: ErrorObject): string {
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case "required":
      return "Field required";
    case "enum": {
      const allowed = (p.allowedValues as unknown[]).map(quoted);
      return allowed.length > 1
        ? `Input should be ${allowed.slice(0, -1).join(", ")} or ${allowed[allowed.length - 1]}`
        : `Input should be ${allowed[0] ?? "one of the allowed values"}`;
    }
    case "const":
      return `Input should be ${quoted(p.allowedValue)}`;
    case "format":
      return `Input should be a valid ${String(p.format)}`;
    case "minimum":
      return `Input should be greater than or equal to ${p.limit}`;
    case "exclusiveMinimum":
      return `Input should be greater than ${p.limit}`;
    case "maximum":
      return `Input should be less than or equal to ${p.limit}`;
    case "exclusiveMaximum":
      return `Input should be less than ${p.limit}`;
    case "multipleOf":
      return `Input should be a multiple of ${p.multipleOf}`;
    case "minLength":
      return `String should have at least ${plural(p.limit, "character")}`;
    case "maxLength":
      return `String should have at most ${plural(p.limit, "character")}`;
    case "pattern":
      return `String should match pattern '${p.pattern}'`;
    case "minItems":
      return `List should have at least ${plural(p.limit, "item")}`;
    case "maxItems":
      return `List should have at most ${plural(p.limit, "item")}`;
    case "type": {
      const type = Array.isArray(p.type) ? p.type[0] : p.type;
      return `Input should be ${TYPE_NAMES[String(type)] ?? `of type ${String(type)}`}`;
    }
    case "additionalProperties":
      return `Extra inputs are not permitted (${String(p.additionalProperty)})`;
    default:
      return error.message ?? "Invalid value";
  }
}

/** ajv's errors keyed by dotted field path; the root's are under "". */
export function errorsByPath(errors: readonly ErrorObject[]): Record<string, string[]> {
  const byPath: Record<string, string[]> = {};
  const add = (path: string, message: string) => {
    const list = (byPath[path] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  // Nullable fields are `anyOf: [X, null]`: the null branch's "must be null" and the
  // summary "must match a schema in anyOf" say nothing the X branch does not.
  const meaningful = errors.filter((e) => !(e.keyword === "type" && e.params.type === "null"));
  const concrete = new Set(
    meaningful.filter((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf").map((e) => e.instancePath),
  );
  for (const error of meaningful) {
    if ((error.keyword === "anyOf" || error.keyword === "oneOf") && concrete.has(error.instancePath)) continue;
    let path = pointerToPath(error.instancePath);
    if (error.keyword === "required") path = joinPath(path, String(error.params.missingProperty));
    add(path, friendly(error));
  }
  return byPath;
}

/** Checks a value typed as JSON text: a parse error, or the schema's errors as lines. */
export function checkJsonText(
  text: string,
  validator: Validator | Error | null,
  emptyMeans: Json | undefined,
): { valid: boolean; value: Json | undefined; errors: string[] } {
  let value: Json | undefined;
  if (text.trim() === "") {
    if (emptyMeans === undefined) return { valid: false, value: undefined, errors: ["Enter a JSON value"] };
    value = emptyMeans;
  } else {
    try {
      value = JSON.parse(text) as Json;
    } catch (err) {
      return { valid: false, value: undefined, errors: [`Not valid JSON: ${(err as Error).message}`] };
    }
  }
  if (!validator || validator instanceof Error) return { valid: true, value, errors: [] };
  const errors = Object.entries(errorsByPath(validator.validate(value))).flatMap(([path, messages]) =>
    messages.map((m) => (path ? `${path}: ${m}` : m)),
  );
  return { valid: errors.length === 0, value, errors };
}
