/**
 * A schema form's state, kept so that a keystroke costs one field: the inputs' raw values
 * are changed in place, and only the part of the answer that changed is checked again.
 *
 * For an object answer the validator checks in parts (validation.ts, `ValidatorParts`):
 * an edit re-checks the one property it falls under, and the object's own rules (required,
 * min/maxProperties, dependencies) only when that property appears or disappears. Every
 * other form is checked whole on each edit. Either way the problems are those `checkForm`
 * finds, which a submit runs once more over the whole answer.
 *
 * Components subscribe to a path and are told when what they show there changed.
 */
import type { Json, JsonObject } from "../types";
import { hasOwn, own, record, setOwn } from "./own";
import { buildFieldValue, type Check, checkForm, type Field, fieldPaths, placeProblems, type RawState, type RawValue } from "./schema-form";
import { errorsByPath, type Validator, type ValidatorParts } from "./validation";

type Listener = () => void;

/** What one property of an object answer contributes: its value and its placed problems. */
interface Part {
  value: Json | undefined;
  errors: Record<string, string[]>;
  /** Inputs that do not parse: they say only that, whatever else is found there. */
  unparsed: Record<string, string>;
}

const NONE: readonly string[] = [];
const NO_ERRORS: Record<string, string[]> = Object.freeze(record<string[]>());

/** The path of each proper ancestor of `path` ("a.b.c" -> "a", "a.b"). */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf("."); i >= 0; i = path.indexOf(".", i + 1)) out.push(path.slice(0, i));
  return out;
}

/** The first segment of a field path: the root property it falls under. */
function topOf(path: string): string {
  const dot = path.indexOf(".");
  return dot < 0 ? path : path.slice(0, dot);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}

export class FormState {
  readonly field: Field;
  /** Fields in form order, the root excepted. */
  readonly fields: readonly Field[];
  /** Each field's place in `fields`, by path. */
  private readonly order: Map<string, number>;
  readonly validator: Validator | Error;
  private readonly known: Set<string>;
  private readonly raw: RawState;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly summaryListeners = new Set<Listener>();
  private readonly revealListeners = new Set<Listener>();

  // Checked in parts (an object root whose rules allow it) ...
  private readonly parts: ValidatorParts | null;
  private readonly tops = new Map<string, Field>();
  private readonly partOf = new Map<string, Part>();
  /** The answer's properties so far (no prototype, so any name is an own key). */
  private readonly answer: JsonObject = record<Json>();
  private rules: Record<string, string[]> = record<string[]>();
  private readonly invalidParts = new Set<string>();
  // ... or whole.
  private whole: Check | null = null;
  /** The last whole check, until the next change. */
  private checked: Check | null = null;

  private readonly touched = new Set<string>();
  /** Ancestors of touched paths: a touched field shows its siblings' problems too. */
  private readonly touchedUnder = new Set<string>();
  private serverErrors: Record<string, string[]> | undefined;
  /** Paths edited since the kernel's problems came: those problems no longer show there. */
  private edited = new Set<string>();
  /** Fields a person asked to be taken to; lists of many fields draw them. */
  readonly revealed = new Set<string>();
  /** The field to focus once it is drawn. */
  focusPending: string | null = null;

  constructor(field: Field, validator: Validator | Error, raw: RawState, serverErrors?: Record<string, string[]>) {
    this.field = field;
    this.validator = validator;
    this.raw = raw;
    this.serverErrors = serverErrors;
    this.known = fieldPaths(field);
    const fields: Field[] = [];
    const visit = (f: Field) => {
      if (f.path !== "") fields.push(f);
      f.children?.forEach(visit);
    };
    visit(field);
    this.fields = fields;
    this.order = new Map(fields.map((f, i) => [f.path, i]));
    const noChecks: ValidatorParts = { property: () => [], objectRules: () => [] };
    this.parts = field.kind !== "object" ? null : validator instanceof Error ? noChecks : validator.parts;
    if (this.parts) {
      for (const child of field.children ?? []) {
        this.tops.set(child.path, child);
        this.recheckPart(child);
      }
      this.rules = this.checkRules();
    } else {
      this.whole = checkForm(field, raw, validator, this.known);
    }
  }

  /** A new state for another schema, keeping what was typed. */
  withField(field: Field, validator: Validator | Error): FormState {
    return new FormState(field, validator, Object.assign(record<RawValue>(), this.raw), this.serverErrors);
  }

  // -- reading ---------------------------------------------------------------------

  value(path: string): RawValue | undefined {
    return own(this.raw, path);
  }

  /** The problems found at `path`, shown or not. */
  problemsAt(path: string): readonly string[] {
    if (this.whole) return own(this.whole.errors, path) ?? NONE;
    if (path === "") {
      const loose = [...(own(this.rules, "") ?? [])];
      for (const key of this.invalidParts) loose.push(...(own(this.partOf.get(key)?.errors ?? {}, "") ?? []));
      return loose.length === 0 ? NONE : [...new Set(loose)];
    }
    const inPart = this.partOf.get(topOf(path));
    const part = inPart ? (own(inPart.errors, path) ?? NONE) : NONE;
    if (inPart && hasOwn(inPart.unparsed, path)) return part;
    const rule = own(this.rules, path) ?? NONE;
    if (rule.length === 0) return part;
    if (part.length === 0) return rule;
    return [...new Set([...rule, ...part])];
  }

  get valid(): boolean {
    if (this.whole) return this.whole.valid;
    return this.invalidParts.size === 0 && Object.keys(this.rules).length === 0;
  }

  /** Whether a problem at `path` is shown: its input, its array or (in a nested object) a sibling was touched. */
  shown(path: string): boolean {
    if (this.touched.has(path) || this.touched.has(path.replace(/\.\d+$/, ""))) return true;
    const cut = path.lastIndexOf(".");
    return cut > 0 && this.touchedUnder.has(path.slice(0, cut));
  }

  /** What a field shows: its problems once shown, and the kernel's until it is edited. */
  errorsFor(path: string): string[] {
    const mine = this.shown(path) ? this.problemsAt(path) : NONE;
    const server = !this.edited.has(path) && this.serverErrors ? (own(this.serverErrors, path) ?? NONE) : NONE;
    return [...mine, ...server.filter((m) => !mine.includes(m))];
  }

  /** The form's own problems (the root's), shown whether touched or not. */
  formErrors(): string[] {
    const server = this.edited.has("") || !this.serverErrors ? NONE : (own(this.serverErrors, "") ?? NONE);
    return [...this.problemsAt(""), ...server];
  }

  /** Up to `limit` fields with a problem not shown yet (in form order), and how many there are. */
  stillNeeded(limit: number): { first: Field[]; count: number } {
    const needed = this.problemPaths()
      .map((path) => this.order.get(path))
      .filter((i): i is number => i !== undefined && !this.shown(this.fields[i]!.path) && this.problemsAt(this.fields[i]!.path).length > 0)
      .sort((a, b) => a - b);
    return { first: needed.slice(0, limit).map((i) => this.fields[i]!), count: needed.length };
  }

  /** Every path with a problem (and maybe a few without), in no order. */
  private problemPaths(): string[] {
    if (this.whole) return Object.keys(this.whole.errors);
    const paths = new Set(Object.keys(this.rules));
    for (const key of this.invalidParts) for (const path of Object.keys(this.partOf.get(key)?.errors ?? {})) paths.add(path);
    return [...paths];
  }

  /** The whole answer checked whole, as the kernel will check it. */
  check(): Check {
    // A send reads the answer more than once; it is built once per change.
    if (!this.checked) this.checked = checkForm(this.field, this.raw, this.validator, this.known);
    return this.checked;
  }

  // -- changing --------------------------------------------------------------------

  /** The kernel's problems; kept until the field they are about is edited. */
  setServerErrors(errors: Record<string, string[]> | undefined): void {
    if (errors === this.serverErrors) return;
    this.serverErrors = errors;
    this.edited = new Set();
  }

  /** An input's new value; `touchedPath` is what the person touched (an array's row, say). */
  set(path: string, value: RawValue, touchedPath: string = path): void {
    setOwn(this.raw, path, value);
    this.checked = null;
    const changed = new Set<string>([path, touchedPath]);
    this.edited.add(path).add(touchedPath);
    for (const p of [path, touchedPath]) this.touch(p, changed);
    if (this.whole) {
      const before = this.whole.errors;
      this.whole = checkForm(this.field, this.raw, this.validator, this.known);
      for (const p of new Set([...Object.keys(before), ...Object.keys(this.whole.errors)])) {
        if (!sameList(own(before, p) ?? NONE, own(this.whole.errors, p) ?? NONE)) changed.add(p);
      }
    } else {
      const top = this.tops.get(topOf(path));
      if (top) this.recheck(top, changed);
    }
    changed.add("");
    this.notify(changed);
  }

  /** Shows every problem (a submit that could not be sent). */
  touchAll(): void {
    for (const f of this.fields) this.touch(f.path, new Set());
    this.touch("", new Set());
    for (const path of Object.keys(this.whole ? this.whole.errors : this.check().errors)) this.touch(path, new Set());
    this.notifyAll();
  }

  /** Draws the field at `path` (wherever a long list left it out) and focuses it. */
  reveal(path: string): void {
    for (const p of [...ancestors(path), path]) this.revealed.add(p);
    this.focusPending = path;
    for (const listener of [...this.revealListeners]) listener();
    this.notify([path]);
  }

  // -- subscribing -----------------------------------------------------------------

  /** Calls `listener` when what shows at `path` may have changed; returns the unsubscribe. */
  subscribe(path: string, listener: Listener): () => void {
    let set = this.listeners.get(path);
    if (!set) {
      set = new Set();
      this.listeners.set(path, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(path);
    };
  }

  /** Calls `listener` on every change (validity, the form's problems, what is still needed). */
  subscribeSummary(listener: Listener): () => void {
    this.summaryListeners.add(listener);
    return () => this.summaryListeners.delete(listener);
  }

  /** Calls `listener` when a field is to be drawn wherever it is (see `reveal`). */
  subscribeReveal(listener: Listener): () => void {
    this.revealListeners.add(listener);
    return () => this.revealListeners.delete(listener);
  }

  // -- inside ----------------------------------------------------------------------

  private touch(path: string, changed: Set<string>): void {
    if (this.touched.has(path)) return;
    this.touched.add(path);
    for (const parent of ancestors(path)) {
      if (this.touchedUnder.has(parent)) continue;
      this.touchedUnder.add(parent);
      // The siblings under `parent` now show their problems.
      for (const listened of this.listeners.keys()) if (listened.startsWith(`${parent}.`)) changed.add(listened);
    }
  }

  private recheckPart(top: Field): Part {
    const parseErrors = record<string>();
    const value = buildFieldValue(top, this.raw, parseErrors);
    const parts = this.parts as ValidatorParts;
    const problems = value === undefined ? [] : parts.property(top.key, value);
    let unparsed = false;
    for (const _ in parseErrors) unparsed = true;
    // Most parts have no problem: they share one empty record.
    const errors = problems.length === 0 && !unparsed ? NO_ERRORS : placeProblems(parseErrors, errorsByPath(problems), this.known);
    const part = { value, errors, unparsed: parseErrors };
    this.partOf.set(top.path, part);
    if (Object.keys(part.errors).length > 0) this.invalidParts.add(top.path);
    else this.invalidParts.delete(top.path);
    if (value === undefined) delete this.answer[top.key];
    else this.answer[top.key] = value;
    return part;
  }

  private checkRules(): Record<string, string[]> {
    const found = errorsByPath((this.parts as ValidatorParts).objectRules(this.answer));
    return placeProblems(record<string>(), found, this.known);
  }

  private recheck(top: Field, changed: Set<string>): void {
    const before = this.partOf.get(top.path);
    const after = this.recheckPart(top);
    for (const p of new Set([...Object.keys(before?.errors ?? {}), ...Object.keys(after.errors)])) changed.add(p);
    // The object's rules look at which properties it has, not at their values.
    const had = before !== undefined && before.value !== undefined;
    if (had === (after.value !== undefined)) return;
    const rulesBefore = this.rules;
    this.rules = this.checkRules();
    for (const p of new Set([...Object.keys(rulesBefore), ...Object.keys(this.rules)])) {
      if (!sameList(own(rulesBefore, p) ?? NONE, own(this.rules, p) ?? NONE)) changed.add(p);
    }
  }

  private notify(paths: Iterable<string>): void {
    for (const path of paths) for (const listener of [...(this.listeners.get(path) ?? [])]) listener();
    for (const listener of [...this.summaryListeners]) listener();
  }

  private notifyAll(): void {
    this.notify([...this.listeners.keys()]);
  }
}
