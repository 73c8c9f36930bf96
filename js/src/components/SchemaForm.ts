import { html } from "htm/preact";
import type { VNode } from "preact";
import { useMemo, useState } from "preact/hooks";
import { own, withKey } from "../lib/own";
import { checkForm, describeSchema, emptyRow, type Field, flattenFields, initialRaw, joinPath, type RawState, type RawValue } from "../lib/schema-form";
import { revealText } from "../lib/unicode";
import { compileSchema, type Validator } from "../lib/validation";
import type { Json, JsonObject } from "../types";
import { domId, FieldError, fieldTestId } from "./fields";
import { type EditorState, JsonEditor } from "./JsonEditor";
import { HiddenInValue, Revealed } from "./Revealed";

interface FormContext {
  idPrefix: string;
  raw: RawState;
  disabled: boolean;
  errorsFor(path: string): string[];
  update(path: string, value: RawValue, touchedPath?: string): void;
}

function describedBy(ctx: FormContext, field: Field, path: string): string | undefined {
  const ids = [];
  if (field.description) ids.push(domId(`${ctx.idPrefix}-help`, path));
  if (field.patternByKernel) ids.push(domId(`${ctx.idPrefix}-kernel`, field.path));
  if (ctx.errorsFor(path).length > 0) ids.push(domId(`${ctx.idPrefix}-err`, path));
  return ids.length > 0 ? ids.join(" ") : undefined;
}

function inputType(field: Field): string {
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
function primitiveInput(field: Field, path: string, value: string | boolean, ctx: FormContext, onValue: (v: string | boolean) => void, label?: string) {
  const id = domId(ctx.idPrefix, path);
  const common = {
    id,
    "data-testid": fieldTestId(path),
    disabled: ctx.disabled,
    "aria-invalid": ctx.errorsFor(path).length > 0 ? "true" : "false",
    "aria-required": field.required ? "true" : undefined,
    "aria-describedby": describedBy(ctx, field, path),
    "aria-label": label === undefined ? undefined : revealText(label),
  };
  if (field.kind === "boolean") {
    return html`<input type="checkbox" class="pp-checkbox" ...${common} checked=${value === true}
      onChange=${(e: Event) => onValue((e.currentTarget as HTMLInputElement).checked)} />`;
  }
  if (field.kind === "enum") {
    const options = field.options ?? [];
    return html`<select class="pp-select" ...${common} value=${value as string}
      onChange=${(e: Event) => onValue((e.currentTarget as HTMLSelectElement).value)}>
      ${value === "" || !field.required ? html`<option value="">${field.nullable ? "(none)" : "Choose…"}</option>` : null}
      ${options.map((option, i) => html`<option value=${String(i)}>${option === null ? "(none)" : revealText(String(option))}</option>`)}
    </select>`;
  }
  const numeric = field.kind === "number" || field.kind === "integer";
  return html`<input
    type=${inputType(field)}
    class="pp-input"
    ...${common}
    value=${value as string}
    min=${numeric ? (field.minimum ?? field.exclusiveMinimum) : undefined}
    max=${numeric ? (field.maximum ?? field.exclusiveMaximum) : undefined}
    step=${field.kind === "integer" ? (field.multipleOf ?? 1) : numeric ? (field.multipleOf ?? "any") : undefined}
    placeholder=${field.format && inputType(field) === "text" ? revealText(field.format) : undefined}
    onInput=${(e: Event) => onValue((e.currentTarget as HTMLInputElement).value)}
  />`;
}

/** A pattern the browser does not run (see lib/validation.ts) is the kernel's to check. */
function KernelCheck({ ctx, field }: { ctx: FormContext; field: Field }) {
  if (!field.patternByKernel) return null;
  return html`<p class="pp-help pp-kernel-check" id=${domId(`${ctx.idPrefix}-kernel`, field.path)} data-testid="pp-kernel-check">
    The pattern <code><${Revealed} text=${String(field.pattern ?? "")} /></code> is checked by the kernel when you send.
  </p>`;
}

function Help({ ctx, field }: { ctx: FormContext; field: Field }) {
  const byKernel = html`<${KernelCheck} ctx=${ctx} field=${field} />`;
  if (!field.description) return byKernel;
  return html`<p class="pp-help" id=${domId(`${ctx.idPrefix}-help`, field.path)}><${Revealed} text=${field.description} /></p>${byKernel}`;
}

function Required({ field }: { field: Field }) {
  return field.required ? html`<span class="pp-required" aria-hidden="true" title="required"> *</span>` : null;
}

function renderField(field: Field, ctx: FormContext): VNode {
  const errors = html`<${FieldError} id=${domId(`${ctx.idPrefix}-err`, field.path)} path=${field.path} messages=${ctx.errorsFor(field.path)} />`;
  if (field.kind === "object") {
    const children = (field.children ?? []).map((child) => renderField(child, ctx));
    if (field.path === "") return html`<div class="pp-form-fields">${children}${errors}</div>`;
    return html`<fieldset class="pp-fieldset" data-testid=${revealText(`pp-fieldset-${field.path}`)}>
      <legend><${Revealed} text=${field.label} /><${Required} field=${field} /></legend>
      <${Help} ctx=${ctx} field=${field} />
      ${children}${errors}
    </fieldset>`;
  }
  if (field.kind === "array") {
    const item = field.item as Field;
    const given = own(ctx.raw, field.path);
    const rows = Array.isArray(given) ? given : [];
    const setRows = (next: Array<string | boolean>, touchedPath: string) => ctx.update(field.path, next, touchedPath);
    const full = field.maxItems !== undefined && rows.length >= field.maxItems;
    return html`<fieldset class="pp-fieldset pp-array" data-testid=${revealText(`pp-fieldset-${field.path}`)}>
      <legend><${Revealed} text=${field.label} /><${Required} field=${field} /></legend>
      <${Help} ctx=${ctx} field=${field} />
      <${KernelCheck} ctx=${ctx} field=${item} />
      ${rows.map((row, i) => {
        const rowPath = joinPath(field.path, i);
        return html`<div class="pp-array-row" key=${i}>
          ${primitiveInput(
            item,
            rowPath,
            row,
            ctx,
            (v) =>
              setRows(
                rows.map((r, j) => (j === i ? v : r)),
                rowPath,
              ),
            `${field.label} ${i + 1}`,
          )}
          ${typeof row === "string" ? html`<${HiddenInValue} value=${row} />` : null}
          <button type="button" class="pp-button pp-button-quiet" data-testid=${revealText(`pp-remove-${rowPath}`)} disabled=${ctx.disabled}
            aria-label=${revealText(`Remove ${field.label} ${i + 1}`)}
            onClick=${() =>
              setRows(
                rows.filter((_, j) => j !== i),
                field.path,
              )}>Remove</button>
          <${FieldError} id=${domId(`${ctx.idPrefix}-err`, rowPath)} path=${rowPath} messages=${ctx.errorsFor(rowPath)} />
        </div>`;
      })}
      <button type="button" class="pp-button pp-button-quiet" data-testid=${revealText(`pp-add-${field.path}`)} disabled=${ctx.disabled || full}
        aria-label=${revealText(`Add ${field.label}`)}
        onClick=${() => setRows([...rows, emptyRow(field)], field.path)}>Add</button>
      ${errors}
    </fieldset>`;
  }
  const value = own(ctx.raw, field.path) as string | boolean | undefined;
  const input = primitiveInput(field, field.path, value ?? "", ctx, (v) => ctx.update(field.path, v));
  if (field.kind === "boolean") {
    return html`<div class="pp-field pp-field-boolean">
      <label class="pp-check-label">${input} <${Revealed} text=${field.label} /><${Required} field=${field} /></label>
      <${Help} ctx=${ctx} field=${field} />
      ${errors}
    </div>`;
  }
  return html`<div class="pp-field">
    <label class="pp-label" for=${domId(ctx.idPrefix, field.path)}><${Revealed} text=${field.label || "Value"} /><${Required} field=${field} /></label>
    ${input}
    ${typeof value === "string" && field.kind !== "enum" ? html`<${HiddenInValue} value=${value} />` : null}
    <${Help} ctx=${ctx} field=${field} />
    ${errors}
  </div>`;
}

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
  const [raw, setRaw] = useState<RawState>(() => initialRaw(field, initial));
  const [touched, setTouched] = useState<ReadonlySet<string>>(() => new Set());
  // A kernel's problem stays beside its field until that field is edited again.
  const [editedSinceServer, setEdited] = useState<{ errors?: Record<string, string[]>; paths: Set<string> }>({ paths: new Set() });
  const check = useMemo(() => checkForm(field, raw, validator), [field, raw, validator]);
  const edited = editedSinceServer.errors === serverErrors ? editedSinceServer.paths : new Set<string>();

  // An error shows once its input, its array, or (inside a nested object) a sibling was touched.
  const shown = (path: string): boolean => {
    if (touched.has(path) || touched.has(path.replace(/\.\d+$/, ""))) return true;
    const parent = path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : "";
    return parent !== "" && [...touched].some((t) => t.startsWith(`${parent}.`));
  };
  const hidden = flattenFields(field).filter((f) => f.path !== "" && (own(check.errors, f.path)?.length ?? 0) > 0 && !shown(f.path));

  const ctx: FormContext = {
    idPrefix,
    raw,
    disabled,
    errorsFor(path) {
      const mine = shown(path) ? (own(check.errors, path) ?? []) : [];
      const server = !edited.has(path) && serverErrors ? (own(serverErrors, path) ?? []) : [];
      return [...mine, ...server.filter((m) => !mine.includes(m))];
    },
    update(path, value, touchedPath) {
      setRaw((r) => withKey(r, path, value));
      setTouched((t) => new Set(t).add(path).add(touchedPath ?? path));
      setEdited((prev) => ({
        errors: serverErrors,
        paths: new Set(prev.errors === serverErrors ? prev.paths : []).add(path).add(touchedPath ?? path),
      }));
    },
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement;
    if (event.key !== "Enter" || event.isComposing || target.tagName === "TEXTAREA" || target.tagName === "BUTTON") return;
    event.preventDefault();
    if (check.valid && !disabled && check.value !== undefined) onSubmit(check.value);
    else
      setTouched(
        new Set(
          flattenFields(field)
            .map((f) => f.path)
            .concat(Object.keys(check.errors)),
        ),
      );
  };

  const formErrors =
    field.kind === "object" ? [...(own(check.errors, "") ?? []), ...(edited.has("") || !serverErrors ? [] : (own(serverErrors, "") ?? []))] : [];
  return html`<div class="pp-form" role="group" onKeyDown=${onKeyDown}>
      ${renderField(field, ctx)}
      <${FieldError} id=${`${idPrefix}-form-error`} path="" messages=${formErrors} />
      ${hidden.length > 0 ? html`<p class="pp-help pp-form-hint" data-testid="pp-form-hint">Still needed: <${Revealed} text=${hidden.map((f) => f.label).join(", ")} /></p>` : null}
    </div>
    ${actions({ valid: check.valid, value: check.value })}`;
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

/** A form when the schema allows one, else a JSON editor checked against the schema. */
export function AnswerEditor(props: AnswerEditorProps) {
  const key = props.schema ? JSON.stringify(props.schema) : "";
  const field = useMemo(() => (props.schema ? describeSchema(props.schema) : null), [key]);
  const validator = useMemo(() => (props.schema ? compileSchema(props.schema) : null), [key]);
  if (field && validator) {
    return html`<${SchemaForm} idPrefix=${props.idPrefix} field=${field} validator=${validator} initial=${props.initial}
      disabled=${props.disabled} serverErrors=${props.serverErrors} actions=${props.actions} onSubmit=${props.onSubmit} />`;
  }
  const serverErrors = Object.entries(props.serverErrors ?? {}).flatMap(([path, messages]) => messages.map((m) => (path ? `${path}: ${m}` : m)));
  return html`<${JsonEditor} idPrefix=${props.idPrefix} label=${props.jsonLabel} initial=${props.initial} validator=${validator}
    emptyMeans=${props.emptyMeans} disabled=${props.disabled} serverErrors=${serverErrors} actions=${props.actions} onSubmit=${props.onSubmit} />`;
}
