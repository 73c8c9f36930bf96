import type { RefObject, VNode } from "preact";
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { FormState } from "../lib/form-state";
import { memo } from "../lib/memo";
import { describeSchema, emptyRow, type Field, initialRaw, joinPath } from "../lib/schema-form";
import { revealText } from "../lib/unicode";
import { compileSchema, type Validator } from "../lib/validation";
import type { Json, JsonObject } from "../types";
import { domId, FieldError, fieldTestId } from "./fields";
import { type EditorState, JsonEditor } from "./JsonEditor";
import { HiddenInValue, Revealed } from "./Revealed";
import "./schema-form.css";

interface FormContext {
  idPrefix: string;
  form: FormState;
  disabled: boolean;
  /** Its identity changes with the kernel's problems, so that every drawn field looks again. */
  serverErrors?: Record<string, string[]>;
}

/** A list of more fields than this is drawn a page at a time, with a box to find a field. */
export const MANY_FIELDS = 200;
export const FIELDS_PAGE = 50;
/** "Still needed" names this many fields, then says how many more. */
const NEEDED_NAMED = 10;

/** Re-renders the component when what shows at `path` changes. */
function useFieldUpdates(form: FormState, path: string): void {
  const [, setTick] = useState(0);
  useLayoutEffect(() => form.subscribe(path, () => setTick((t) => t + 1)), [form, path]);
}

/** Focuses the field (its first control) when a person asked to be taken to it. */
function useFocusWhenAsked<T extends HTMLElement>(ctx: FormContext, path: string): RefObject<T | null> {
  const ref = useRef<T>(null);
  useLayoutEffect(() => {
    if (ctx.form.focusPending !== path || !ref.current) return;
    ctx.form.focusPending = null;
    const target = ref.current.querySelector<HTMLElement>("input, select, textarea, button") ?? ref.current;
    target.scrollIntoView?.({ block: "center" });
    target.focus();
  });
  return ref;
}

function describedBy(ctx: FormContext, field: Field, path: string, errors: readonly string[]): string | undefined {
  const ids = [];
  if (field.description) ids.push(domId(`${ctx.idPrefix}-help`, path));
  if (field.patternByKernel) ids.push(domId(`${ctx.idPrefix}-kernel`, field.path));
  if (errors.length > 0) ids.push(domId(`${ctx.idPrefix}-err`, path));
  return ids.length > 0 ? ids.join(" ") : undefined;
}

function inputType(field: Field): "number" | "email" | "url" | "date" | "text" {
  if (field.kind === "number" || field.kind === "integer") return "number";
  switch (field.format) {
    case "email":
      return "email";
    case "uri":
    case "url":
      return "url";
    case "date":
      return "date";
    default:
      return "text";
  }
}

/** One input for a primitive field; `path` differs from `field.path` for array rows. */
function primitiveInput(
  field: Field,
  path: string,
  value: string | boolean,
  ctx: FormContext,
  errors: readonly string[],
  onValue: (v: string | boolean) => void,
  label?: string,
) {
  const id = domId(ctx.idPrefix, path);
  const common = {
    id,
    "data-testid": fieldTestId(path),
    disabled: ctx.disabled,
    "aria-invalid": errors.length > 0 ? "true" : "false",
    "aria-required": field.required ? "true" : undefined,
    "aria-describedby": describedBy(ctx, field, path, errors),
    "aria-label": label === undefined ? undefined : revealText(label),
  } as const;
  if (field.kind === "boolean") {
    return (
      <input
        type="checkbox"
        class="pp-checkbox"
        {...common}
        checked={value === true}
        onChange={(e: Event) => onValue((e.currentTarget as HTMLInputElement).checked)}
      />
    );
  }
  if (field.kind === "enum") {
    const options = field.options ?? [];
    return (
      <select class="pp-select" {...common} value={value as string} onChange={(e: Event) => onValue((e.currentTarget as HTMLSelectElement).value)}>
        {value === "" || !field.required ? <option value="">{field.nullable ? "(none)" : "Choose…"}</option> : null}
        {options.map((option, i) => (
          <option value={String(i)}>{option === null ? "(none)" : revealText(String(option))}</option>
        ))}
      </select>
    );
  }
  const numeric = field.kind === "number" || field.kind === "integer";
  return (
    <input
      // Preact's types take one kind of input at a time (each with the `role` and `list` it
      // allows); this one sets neither.
      type={inputType(field) as "text"}
      class="pp-input"
      {...common}
      value={value as string}
      min={numeric ? (field.minimum ?? field.exclusiveMinimum) : undefined}
      max={numeric ? (field.maximum ?? field.exclusiveMaximum) : undefined}
      step={field.kind === "integer" ? (field.multipleOf ?? 1) : numeric ? (field.multipleOf ?? "any") : undefined}
      placeholder={field.format && inputType(field) === "text" ? revealText(field.format) : undefined}
      onInput={(e: Event) => onValue((e.currentTarget as HTMLInputElement).value)}
    />
  );
}

interface KernelCheckProps {
  ctx: FormContext;
  field: Field;
}

/** A pattern the browser does not run (see lib/validation.ts) is the kernel's to check. */
function KernelCheck({ ctx, field }: KernelCheckProps) {
  if (!field.patternByKernel) return null;
  return (
    <p class="pp-help pp-kernel-check" id={domId(`${ctx.idPrefix}-kernel`, field.path)} data-testid="pp-kernel-check">
      The pattern{" "}
      <code>
        <Revealed text={String(field.pattern ?? "")} />
      </code>{" "}
      is checked by the kernel when you send.
    </p>
  );
}

interface HelpProps {
  ctx: FormContext;
  field: Field;
}

function Help({ ctx, field }: HelpProps) {
  const byKernel = <KernelCheck ctx={ctx} field={field} />;
  if (!field.description) return byKernel;
  return (
    <>
      <p class="pp-help" id={domId(`${ctx.idPrefix}-help`, field.path)}>
        <Revealed text={field.description} />
      </p>
      {byKernel}
    </>
  );
}

interface RequiredProps {
  field: Field;
}

function Required({ field }: RequiredProps) {
  return field.required ? (
    <span class="pp-required" aria-hidden="true" title="required">
      {" "}
      *
    </span>
  ) : null;
}

interface ErrorsProps {
  ctx: FormContext;
  path: string;
  messages: string[];
}

function Errors({ ctx, path, messages }: ErrorsProps) {
  return <FieldError id={domId(`${ctx.idPrefix}-err`, path)} path={path} messages={messages} />;
}

interface FieldProps {
  field: Field;
  ctx: FormContext;
}

function ObjectField({ field, ctx }: FieldProps) {
  useFieldUpdates(ctx.form, field.path);
  const ref = useFocusWhenAsked<HTMLFieldSetElement>(ctx, field.path);
  const errors = <Errors ctx={ctx} path={field.path} messages={ctx.form.errorsFor(field.path)} />;
  const children = <FieldList path={field.path} fields={field.children ?? []} ctx={ctx} />;
  if (field.path === "")
    return (
      <div class="pp-form-fields">
        {children}
        {errors}
      </div>
    );
  return (
    <fieldset class="pp-fieldset" ref={ref} data-testid={revealText(`pp-fieldset-${field.path}`)}>
      <legend>
        <Revealed text={field.label} />
        <Required field={field} />
      </legend>
      <Help ctx={ctx} field={field} />
      {children}
      {errors}
    </fieldset>
  );
}

function ArrayField({ field, ctx }: FieldProps) {
  useFieldUpdates(ctx.form, field.path);
  const ref = useFocusWhenAsked<HTMLFieldSetElement>(ctx, field.path);
  const { form } = ctx;
  const item = field.item as Field;
  const given = form.value(field.path);
  const rows = Array.isArray(given) ? given : [];
  const setRows = (next: Array<string | boolean>, touchedPath: string) => form.set(field.path, next, touchedPath);
  const full = field.maxItems !== undefined && rows.length >= field.maxItems;
  return (
    <fieldset class="pp-fieldset pp-array" ref={ref} data-testid={revealText(`pp-fieldset-${field.path}`)}>
      <legend>
        <Revealed text={field.label} />
        <Required field={field} />
      </legend>
      <Help ctx={ctx} field={field} />
      <KernelCheck ctx={ctx} field={item} />
      {rows.map((row, i) => {
        const rowPath = joinPath(field.path, i);
        const rowErrors = form.errorsFor(rowPath);
        return (
          <div class="pp-array-row" key={i}>
            {primitiveInput(
              item,
              rowPath,
              row,
              ctx,
              rowErrors,
              (v) =>
                setRows(
                  rows.map((r, j) => (j === i ? v : r)),
                  rowPath,
                ),
              `${field.label} ${i + 1}`,
            )}
            {typeof row === "string" ? <HiddenInValue value={row} /> : null}
            <button
              type="button"
              class="pp-button pp-button-quiet"
              data-testid={revealText(`pp-remove-${rowPath}`)}
              disabled={ctx.disabled}
              aria-label={revealText(`Remove ${field.label} ${i + 1}`)}
              onClick={() =>
                setRows(
                  rows.filter((_, j) => j !== i),
                  field.path,
                )
              }
            >
              Remove
            </button>
            <Errors ctx={ctx} path={rowPath} messages={rowErrors} />
          </div>
        );
      })}
      <button
        type="button"
        class="pp-button pp-button-quiet"
        data-testid={revealText(`pp-add-${field.path}`)}
        disabled={ctx.disabled || full}
        aria-label={revealText(`Add ${field.label}`)}
        onClick={() => setRows([...rows, emptyRow(field)], field.path)}
      >
        Add
      </button>
      <Errors ctx={ctx} path={field.path} messages={form.errorsFor(field.path)} />
    </fieldset>
  );
}

function PrimitiveField({ field, ctx }: FieldProps) {
  useFieldUpdates(ctx.form, field.path);
  const ref = useFocusWhenAsked<HTMLDivElement>(ctx, field.path);
  const value = ctx.form.value(field.path) as string | boolean | undefined;
  const messages = ctx.form.errorsFor(field.path);
  const input = primitiveInput(field, field.path, value ?? "", ctx, messages, (v) => ctx.form.set(field.path, v));
  const errors = <Errors ctx={ctx} path={field.path} messages={messages} />;
  if (field.kind === "boolean") {
    return (
      <div class="pp-field pp-field-boolean" ref={ref}>
        {/* biome-ignore lint/a11y/noLabelWithoutControl: `input` is the checkbox it labels */}
        <label class="pp-check-label">
          {input} <Revealed text={field.label} />
          <Required field={field} />
        </label>
        <Help ctx={ctx} field={field} />
        {errors}
      </div>
    );
  }
  return (
    <div class="pp-field" ref={ref}>
      <label class="pp-label" for={domId(ctx.idPrefix, field.path)}>
        <Revealed text={field.label || "Value"} />
        <Required field={field} />
      </label>
      {input}
      {typeof value === "string" && field.kind !== "enum" ? <HiddenInValue value={value} /> : null}
      <Help ctx={ctx} field={field} />
      {errors}
    </div>
  );
}

/** One field; a keystroke re-renders only the field it changed (each subscribes to its path). */
const FieldView = memo(function FieldView({ field, ctx }: FieldProps) {
  if (field.kind === "object") return <ObjectField field={field} ctx={ctx} />;
  if (field.kind === "array") return <ArrayField field={field} ctx={ctx} />;
  return <PrimitiveField field={field} ctx={ctx} />;
});

interface FieldListProps {
  path: string;
  fields: Field[];
  ctx: FormContext;
}

/**
 * An object's fields. Past MANY_FIELDS they are drawn a page at a time, with a box that
 * finds fields by name; a field someone was taken to ("Still needed") is drawn wherever it is.
 */
const FieldList = memo(function FieldList({ path, fields, ctx }: FieldListProps) {
  const [pages, setPages] = useState(1);
  const [query, setQuery] = useState("");
  const [, setTick] = useState(0);
  useLayoutEffect(() => ctx.form.subscribeReveal(() => setTick((t) => t + 1)), [ctx.form]);
  const names = useMemo(() => (fields.length > MANY_FIELDS ? fields.map((f) => `${f.label}\n${f.key}`.toLowerCase()) : []), [fields]);
  if (fields.length <= MANY_FIELDS) return fields.map((f) => <FieldView key={f.path} field={f} ctx={ctx} />);

  const words = query.trim().toLowerCase();
  const matching = words === "" ? fields : fields.filter((_, i) => names[i]!.includes(words));
  const limit = pages * FIELDS_PAGE;
  const drawn = matching.filter((f, i) => i < limit || ctx.form.revealed.has(f.path));
  const left = matching.length - Math.min(limit, matching.length);
  const finderId = domId(`${ctx.idPrefix}-find`, path);
  return (
    <>
      <div class="pp-field-finder">
        <label class="pp-label" for={finderId}>
          Find a field
        </label>
        <input
          id={finderId}
          type="search"
          class="pp-input pp-field-filter"
          data-testid="pp-field-filter"
          value={query}
          placeholder="Name of a field"
          onInput={(e: Event) => {
            setQuery((e.currentTarget as HTMLInputElement).value);
            setPages(1);
          }}
        />
        <span class="pp-help" data-testid="pp-field-count" aria-live="polite">
          {words === ""
            ? `${count(fields.length)} fields; the first ${count(Math.min(limit, fields.length))} are shown.`
            : `${count(matching.length)} of ${count(fields.length)} fields match.`}
        </span>
      </div>
      {drawn.map((f) => (
        <FieldView key={f.path} field={f} ctx={ctx} />
      ))}
      {left > 0 ? (
        <button type="button" class="pp-button pp-button-quiet pp-show-more" data-testid="pp-show-more" onClick={() => setPages((p) => p + 1)}>
          Show {Math.min(FIELDS_PAGE, left)} more fields ({left} not shown)
        </button>
      ) : null}
    </>
  );
});

interface SchemaFormProps {
  idPrefix: string;
  field: Field;
  validator: Validator | Error;
  initial?: Json;
  disabled: boolean;
  serverErrors?: Record<string, string[]>;
  actions: (state: EditorState) => VNode;
  onSubmit: (value: Json) => void;
}

/** The form for a supported schema; Enter in any input but a textarea submits it when valid. */
export function SchemaForm({ idPrefix, field, validator, initial, disabled, serverErrors, actions, onSubmit }: SchemaFormProps) {
  const held = useRef<FormState | null>(null);
  if (!held.current) held.current = new FormState(field, validator, initialRaw(field, initial), serverErrors);
  else if (held.current.field !== field || held.current.validator !== validator) held.current = held.current.withField(field, validator);
  const form = held.current;
  form.setServerErrors(serverErrors);
  const [, setTick] = useState(0);
  useLayoutEffect(() => form.subscribeSummary(() => setTick((t) => t + 1)), [form]);
  const ctx = useMemo<FormContext>(() => ({ idPrefix, form, disabled, serverErrors }), [idPrefix, form, disabled, serverErrors]);

  const onKeyDown = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement;
    if (event.key !== "Enter" || event.isComposing || target.tagName === "TEXTAREA" || target.tagName === "BUTTON") return;
    if (target.classList.contains("pp-field-filter")) return;
    event.preventDefault();
    const check = form.check();
    if (check.valid && !disabled && check.value !== undefined) onSubmit(check.value);
    else form.touchAll();
  };

  // The answer is built, and checked whole, only when it is sent.
  const state: EditorState = {
    valid: form.valid,
    get value() {
      const check = form.check();
      if (check.valid) return check.value;
      form.touchAll();
      return undefined;
    },
  };
  const formErrors = field.kind === "object" ? form.formErrors() : [];
  const needed = form.stillNeeded(NEEDED_NAMED);
  const more = needed.count - needed.first.length;
  return (
    <>
      <div class="pp-form" role="group" onKeyDown={onKeyDown}>
        <FieldView field={field} ctx={ctx} />
        <FieldError id={`${idPrefix}-form-error`} path="" messages={formErrors} />
        {needed.count > 0 ? (
          <p class="pp-help pp-form-hint" data-testid="pp-form-hint">
            Still needed:{" "}
            {needed.first.map((f, i) => (
              <>
                {i > 0 ? ", " : ""}
                <button type="button" class="pp-needed" data-testid="pp-needed" title="Go to this field" onClick={() => form.reveal(f.path)}>
                  <Revealed text={f.label || "Value"} />
                </button>
              </>
            ))}
            {more > 0 ? ` and ${more} more` : ""}
          </p>
        ) : null}
      </div>
      {actions(state)}
    </>
  );
}

export interface AnswerEditorProps {
  idPrefix: string;
  /** The answer's JSON Schema; `null` for a free JSON answer. */
  schema: JsonObject | null;
  initial?: Json;
  emptyMeans?: Json;
  jsonLabel: string;
  disabled: boolean;
  serverErrors?: Record<string, string[]>;
  actions: (state: EditorState) => VNode;
  onSubmit: (value: Json) => void;
}

const schemaKeys = new WeakMap<JsonObject, string>();

/** The schema as text, written once per schema object: a card re-renders on every tick of its countdown. */
function schemaKey(schema: JsonObject): string {
  let key = schemaKeys.get(schema);
  if (key === undefined) {
    key = JSON.stringify(schema);
    schemaKeys.set(schema, key);
  }
  return key;
}

const described = new Map<string, Field | null>();

/** The form of a schema, described once: a card's editor is mounted again when the view redraws it. */
function describedForm(schema: JsonObject, key: string): Field | null {
  if (described.has(key)) return described.get(key) ?? null;
  const field = describeSchema(schema);
  described.set(key, field);
  // A few recent schemas are kept, as compiled validators are.
  if (described.size > 16) described.delete(described.keys().next().value as string);
  return field;
}

/** A form when the schema allows one, else a JSON editor checked against the schema. */
export function AnswerEditor(props: AnswerEditorProps) {
  const key = props.schema ? schemaKey(props.schema) : "";
  const field = useMemo(() => (props.schema ? describedForm(props.schema, key) : null), [key]);
  const validator = useMemo(() => (props.schema ? compileSchema(props.schema, key) : null), [key]);
  if (field && validator) {
    return (
      <SchemaForm
        idPrefix={props.idPrefix}
        field={field}
        validator={validator}
        initial={props.initial}
        disabled={props.disabled}
        serverErrors={props.serverErrors}
        actions={props.actions}
        onSubmit={props.onSubmit}
      />
    );
  }
  const serverErrors = Object.entries(props.serverErrors ?? {}).flatMap(([path, messages]) => messages.map((m) => (path ? `${path}: ${m}` : m)));
  return (
    <JsonEditor
      idPrefix={props.idPrefix}
      label={props.jsonLabel}
      initial={props.initial}
      validator={validator}
      emptyMeans={props.emptyMeans}
      disabled={props.disabled}
      serverErrors={serverErrors}
      actions={props.actions}
      onSubmit={props.onSubmit}
    />
  );
}

/** A count as people read it: "10,000". */
function count(n: number): string {
  return n.toLocaleString("en-US");
}
