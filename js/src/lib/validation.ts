/**
 * Checking answers in the browser for instant feedback (the kernel's check is the
 * authoritative one), with messages in the kernel's words and problems at field paths.
 *
 * The validator (@cfworker/json-schema) interprets schemas; nothing is compiled with
 * `eval`, so the view runs under a Content-Security-Policy without `unsafe-eval`. Work is
 * bounded: a `pattern` runs only where its matching time is bounded (patterns.ts; the
 * kernel matches every pattern with RE2), and `format`s are checked on strings of at most
 * FORMAT_MAX_LENGTH characters (formats.ts).
 */
import { dereference, encodePointer, type OutputUnit, validate as runSchema } from "@cfworker/json-schema";
import type { Json, JsonObject } from "../types";
import { joinPath, pathOf, pointerKeys } from "./field-path";
import { isNumberFormat, isStringFormat, numberFits, patternFormat, patternOfFormat } from "./formats";
import { hasOwn, own, record } from "./own";
import { patternPlan } from "./patterns";

export { FORMAT_MAX_LENGTH } from "./formats";

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One problem the browser found: a field path ("" for the root) and a message. */
export interface FieldProblem {
  path: string;
  message: string;
}

export interface Validator {
  validate(value: unknown): FieldProblem[];
  /** The patterns left to the kernel, by the schema location that holds them. */
  deferredPatterns: readonly string[];
  /**
   * The check of an object answer in parts, so that a form re-checks only what changed:
   * null when a rule of the root needs the whole answer at once (see `partsOf`).
   */
  parts: ValidatorParts | null;
}

/**
 * `validate` in parts: for an answer `{k1: v1, k2: v2, ...}` the problems `validate` finds
 * are those of `property(k, v)` for each present key, plus `objectRules` of the whole.
 */
export interface ValidatorParts {
  /** The problems of one property's value, at the same paths as the whole check puts them. */
  property(key: string, value: unknown): FieldProblem[];
  /** The root's own rules (required, min/maxProperties, dependencies, property names). */
  objectRules(value: JsonObject): FieldProblem[];
}

/** Whether the browser runs `pattern` at all (see patterns.ts). */
export function isSafePattern(pattern: string): boolean {
  return patternPlan(pattern).runs;
}

// Where a schema holds schemas; anything else in it is data (enum, const, default, ...).
const SCHEMA_VALUED = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);

interface Prepared {
  schema: JsonObject | boolean;
  deferredPatterns: string[];
  /** `format`s on numbers, checked here: the validator checks formats on strings only. */
  numberFormats: boolean;
}

/** A plain object with `entries` as own keys (`__proto__` included). */
function plain(entries: Array<[string, Json]>): JsonObject {
  return Object.fromEntries(entries) as JsonObject;
}

/**
 * A copy of `schema` the validator can run safely: patterns it must not run removed (and
 * listed), formats it does not know removed (so that no name reaches a prototype).
 */
function prepare(schema: Json): Prepared | Error {
  const deferredPatterns: string[] = [];
  let numberFormats = false;
  let unsafeKey: string | null = null;
  const escapePointer = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");
  const visitSchema = (node: Json, location: string): Json => {
    if (!isObject(node)) return node;
    const entries: Array<[string, Json]> = [];
    const patterns: JsonObject[] = [];
    for (const [key, value] of Object.entries(node)) {
      const here = `${location}/${escapePointer(key)}`;
      if (key === "pattern" && typeof value === "string") {
        // Run as a bounded format (see patterns.ts), or not at all.
        const plan = patternPlan(value);
        if (plan.runs) patterns.push({ format: patternFormat(value, plan.maxLength) });
        else deferredPatterns.push(here);
      } else if (key === "format" && typeof value === "string") {
        if (isStringFormat(value)) entries.push([key, value]);
        else if (isNumberFormat(value)) {
          numberFormats = true;
          entries.push([key, value]);
        }
      } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
        entries.push([key, value.map((item, i) => visitSchema(item, `${here}/${i}`))]);
      } else if (SCHEMA_MAPS.has(key) && isObject(value)) {
        if (key === "patternProperties") {
          const bad = Object.keys(value).find((p) => !isSafePattern(p));
          if (bad !== undefined) unsafeKey = bad;
        }
        entries.push([key, plain(Object.entries(value).map(([name, sub]) => [name, visitSchema(sub, `${here}/${escapePointer(name)}`)]))]);
      } else if (SCHEMA_VALUED.has(key)) {
        entries.push([key, visitSchema(value, here)]);
      } else {
        entries.push([key, value]);
      }
    }
    if (patterns.length > 0) {
      const allOf = entries.find(([key, value]) => key === "allOf" && Array.isArray(value));
      if (allOf) allOf[1] = [...(allOf[1] as Json[]), ...patterns];
      else entries.push(["allOf", patterns]);
    }
    return plain(entries);
  };
  const copy = visitSchema(schema, "#");
  if (unsafeKey !== null) {
    return new Error(`its property-name pattern '${unsafeKey}' could take too long to match in the browser`);
  }
  return { schema: typeof copy === "boolean" ? copy : (copy as JsonObject), deferredPatterns, numberFormats };
}

const validators = new Map<string, Validator | Error>();

/**
 * A validator for `schema` (JSON Schema 2020-12, which reads draft-07 schemas such as
 * pydantic's too), or an Error saying why the browser leaves the check to the kernel.
 * `text`: the schema as JSON, when the caller has it already (a large schema takes a while to write).
 */
export function compileSchema(schema: unknown, text?: string): Validator | Error {
  const key = text ?? JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached;
  let result: Validator | Error;
  try {
    // `$schema` and `$id` would tie the schema to a meta-schema or an id that another
    // card's schema may share; validation needs neither.
    const source = isObject(schema) ? Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema" && k !== "$id")) : schema;
    if (!isObject(source) && typeof source !== "boolean") throw new Error("a schema is an object");
    const prepared = prepare(source as Json);
    if (prepared instanceof Error) throw prepared;
    const root = prepared.schema;
    const lookup = dereference(root as never);
    const run = (value: unknown, schema: Json, instanceLocation = "#", schemaLocation = "#"): OutputUnit[] | null => {
      try {
        return runSchema(value, schema as never, "2020-12", lookup, false, null, instanceLocation, schemaLocation).errors;
      } catch {
        // A part of the schema the validator cannot follow (say, a reference to
        // nothing): the kernel's check, which refuses such schemas at the raise, decides.
        return null;
      }
    };
    // Unresolvable references surface on first use; find them now.
    runSchema(null, root as never, "2020-12", lookup, false);
    result = {
      deferredPatterns: prepared.deferredPatterns,
      validate(value) {
        const units = run(value, root as Json);
        if (units === null) return [];
        const problems = toProblems(units, root, value);
        if (prepared.numberFormats && isObject(root)) problems.push(...numberFormatProblems(root, root, value, ""));
        return problems;
      },
      parts: partsOf(root, prepared.numberFormats, run),
    };
  } catch (err) {
    result = err instanceof Error ? err : new Error(String(err));
  }
  validators.set(key, result);
  return result;
}

// Keywords of an object root that say nothing about its values, or only about which keys
// it has; a root with any other keyword (allOf, if, unevaluatedProperties, ...) is
// checked whole.
const PASSIVE = new Set([
  "$defs",
  "definitions",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "type",
  "properties",
  "additionalProperties",
]);
const OBJECT_RULES = ["required", "minProperties", "maxProperties", "dependentRequired", "dependencies", "propertyNames"];

type Run = (value: unknown, schema: Json, instanceLocation?: string, schemaLocation?: string) => OutputUnit[] | null;

function partsOf(root: JsonObject | boolean, numberFormats: boolean, run: Run): ValidatorParts | null {
  if (!isObject(root) || (root.type !== undefined && root.type !== "object") || !isObject(root.properties)) return null;
  for (const [key, value] of Object.entries(root)) {
    if (PASSIVE.has(key)) continue;
    if (!OBJECT_RULES.includes(key)) return null;
    // `dependencies: {a: {schema}}` checks values: only its lists of names are about keys.
    if (key === "dependencies" && (!isObject(value) || !Object.values(value).every(Array.isArray))) return null;
  }
  const properties = root.properties;
  const rules = plain(OBJECT_RULES.filter((k) => hasOwn(root, k)).map((k) => [k, root[k] as Json]));
  const hasRules = Object.keys(rules).length > 0;
  return {
    property(key, value) {
      const schema = own(properties, key);
      if (schema === undefined || value === undefined) return [];
      const units = run(value, schema, `#/${encodePointer(key)}`, `#/properties/${encodePointer(key)}`);
      if (units === null) return [];
      const instance = record<unknown>();
      instance[key] = value;
      const problems = toProblems(units, root, instance);
      if (numberFormats && isObject(schema)) problems.push(...numberFormatProblems(root, schema, value, joinPath("", key)));
      return problems;
    },
    objectRules(value) {
      if (!hasRules) return [];
      const units = run(value, rules);
      return units === null ? [] : toProblems(units, root, value);
    },
  };
}

/** The pydantic-style check of numeric formats, for a plain object schema's own fields. */
function numberFormatProblems(root: JsonObject, schema: JsonObject, value: unknown, path: string): FieldProblem[] {
  const node = resolveRefs(root, schema);
  if (!node) return [];
  const problems: FieldProblem[] = [];
  const fmt = node.format;
  if (typeof fmt === "string" && typeof value === "number" && !numberFits(fmt, value)) {
    problems.push({ path, message: `Input should be a valid ${fmt}` });
  }
  const properties = node.properties;
  if (isObject(properties) && isObject(value)) {
    for (const [key, sub] of Object.entries(properties)) {
      const child = own(value as Record<string, unknown>, key);
      if (child !== undefined && isObject(sub)) problems.push(...numberFormatProblems(root, sub, child, joinPath(path, key)));
    }
  }
  if (isObject(node.items) && Array.isArray(value)) {
    for (const [i, item] of value.entries()) problems.push(...numberFormatProblems(root, node.items as JsonObject, item, joinPath(path, i)));
  }
  return problems;
}

function resolveRefs(root: JsonObject, schema: JsonObject): JsonObject | null {
  let node: unknown = schema;
  for (let hops = 0; isObject(node) && typeof node.$ref === "string"; hops += 1) {
    if (hops > 32) return null;
    node = at(root, node.$ref);
  }
  return isObject(node) ? node : null;
}

/** The node at a local reference or keyword location, following `$ref`s on the way. */
function at(root: Json, location: string): Json | undefined {
  let node: Json | undefined = root;
  for (const key of pointerKeys(location, true)) {
    if (key === "$ref" && isObject(node) && typeof node.$ref === "string") {
      node = at(root, node.$ref);
      continue;
    }
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = own(node, key);
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** The part of an answer at an instance location. */
function valueAt(instance: unknown, location: string): unknown {
  let node = instance;
  for (const key of pointerKeys(location, true)) {
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = own(node, key);
    else return undefined;
  }
  return node;
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

// Summaries of errors reported in full at a deeper place.
const SUMMARIES = new Set([
  "properties",
  "additionalProperties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "contains",
  "unevaluatedItems",
  "dependentSchemas",
  "dependencies",
  "if",
]);

/** The validator's error in the kernel's words (pydantic's), or null for a summary. */
function friendly(unit: OutputUnit, root: Json, instance: unknown): FieldProblem[] | null {
  const { keyword } = unit;
  const path = pathOf(pointerKeys(unit.instanceLocation, true));
  const limit = at(root, unit.keywordLocation);
  const one = (message: string): FieldProblem[] => [{ path, message }];
  switch (keyword) {
    case "required": {
      const here = valueAt(instance, unit.instanceLocation);
      const required = Array.isArray(limit) ? limit.map(String) : [];
      const missing = isObject(here) ? required.filter((k) => !hasOwn(here, k)) : [];
      return missing.map((k) => ({ path: joinPath(path, k), message: "Field required" }));
    }
    case "false":
      return one("Value not permitted");
    case "enum": {
      const allowed = (Array.isArray(limit) ? limit : []).map(quoted);
      return one(
        allowed.length > 1
          ? `Input should be ${allowed.slice(0, -1).join(", ")} or ${allowed[allowed.length - 1]}`
          : `Input should be ${allowed[0] ?? "one of the allowed values"}`,
      );
    }
    case "const":
      return one(`Input should be ${quoted(limit)}`);
    case "format": {
      const pattern = patternOfFormat(String(limit));
      return one(pattern === null ? `Input should be a valid ${String(limit)}` : `String should match pattern '${pattern}'`);
    }
    case "minimum":
      return one(`Input should be greater than or equal to ${String(limit)}`);
    case "exclusiveMinimum":
      return one(`Input should be greater than ${String(limit)}`);
    case "maximum":
      return one(`Input should be less than or equal to ${String(limit)}`);
    case "exclusiveMaximum":
      return one(`Input should be less than ${String(limit)}`);
    case "multipleOf":
      return one(`Input should be a multiple of ${String(limit)}`);
    case "minLength":
      return one(`String should have at least ${plural(Number(limit), "character")}`);
    case "maxLength":
      return one(`String should have at most ${plural(Number(limit), "character")}`);
    case "pattern":
      return one(`String should match pattern '${String(limit)}'`);
    case "minItems":
      return one(`List should have at least ${plural(Number(limit), "item")}`);
    case "maxItems":
      return one(`List should have at most ${plural(Number(limit), "item")}`);
    case "uniqueItems":
      return one("List should have unique items");
    case "type": {
      const type = Array.isArray(limit) ? (limit.find((t) => t !== "null") ?? limit[0]) : limit;
      return one(`Input should be ${own(TYPE_NAMES, String(type)) ?? `of type ${String(type)}`}`);
    }
    default:
      return SUMMARIES.has(keyword) ? null : one(unit.error);
  }
}

function toProblems(units: readonly OutputUnit[], root: Json, instance: unknown): FieldProblem[] {
  // Nullable fields are `anyOf: [X, null]`: the null branch's "must be null" and the
  // summary "does not match any subschemas" say nothing the X branch does not.
  const isNullBranch = (u: OutputUnit) => u.keyword === "type" && at(root, u.keywordLocation) === "null";
  // Under `additionalProperties: false`, an extra key is said at its object, naming it;
  // the object's summary and the key's "false schema" error say no more.
  const closed = new Set(units.filter((u) => u.keyword === "additionalProperties" && at(root, u.keywordLocation) === false).map((u) => u.instanceLocation));
  const extraOf = (u: OutputUnit): string | null => {
    if (u.keyword !== "false") return null;
    const cut = u.instanceLocation.lastIndexOf("/");
    return cut > 0 && closed.has(u.instanceLocation.slice(0, cut)) ? (pointerKeys(u.instanceLocation, true).pop() ?? null) : null;
  };
  const meaningful = units.filter((u) => !isNullBranch(u) && !(u.keyword === "additionalProperties" && closed.has(u.instanceLocation)));
  const concrete = new Set(
    meaningful.filter((u) => u.keyword !== "anyOf" && u.keyword !== "oneOf" && !SUMMARIES.has(u.keyword)).map((u) => u.instanceLocation),
  );
  const problems: FieldProblem[] = [];
  // The validator reports each missing name apart; one of them, read once, names them all.
  const requiredSeen = new Set<string>();
  for (const unit of meaningful) {
    if (unit.keyword === "required") {
      const where = `${unit.instanceLocation} ${unit.keywordLocation}`;
      if (requiredSeen.has(where)) continue;
      requiredSeen.add(where);
    }
    if ((unit.keyword === "anyOf" || unit.keyword === "oneOf") && concrete.has(unit.instanceLocation)) continue;
    if (unit.keyword === "anyOf" || unit.keyword === "oneOf") {
      problems.push({
        path: pathOf(pointerKeys(unit.instanceLocation, true)),
        message: unit.keyword === "anyOf" ? "Input should match one of the allowed shapes" : "Input should match exactly one of the allowed shapes",
      });
      continue;
    }
    const extra = extraOf(unit);
    if (extra !== null) {
      const keys = pointerKeys(unit.instanceLocation, true);
      keys.pop();
      problems.push({ path: pathOf(keys), message: `Extra inputs are not permitted (${extra})` });
      continue;
    }
    problems.push(...(friendly(unit, root, instance) ?? []));
  }
  return problems;
}

/** Problems keyed by field path; the root's are under "". */
export function errorsByPath(problems: readonly FieldProblem[]): Record<string, string[]> {
  const byPath = record<string[]>();
  for (const { path, message } of problems) {
    const list = own(byPath, path) ?? [];
    byPath[path] = list;
    if (!list.includes(message)) list.push(message);
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
  const errors = Object.entries(errorsByPath(validator.validate(value))).flatMap(([path, messages]) => messages.map((m) => (path ? `${path}: ${m}` : m)));
  return { valid: errors.length === 0, value, errors };
}
