import type { VNode } from "preact";
import { useMemo, useState } from "preact/hooks";
import { checkJsonText, type Validator } from "../lib/validation";
import type { Json } from "../types";
import { FieldError } from "./fields";
import { HiddenInValue, Revealed } from "./Revealed";

export interface EditorState {
  valid: boolean;
  value: Json | undefined;
}

export interface JsonEditorProps {
  idPrefix: string;
  label: string;
  initial?: Json;
  validator: Validator | Error | null;
  /** What an empty editor stands for; `undefined` makes an empty editor invalid. */
  emptyMeans?: Json;
  disabled: boolean;
  serverErrors?: string[];
  actions: (state: EditorState) => VNode;
  onSubmit: (value: Json) => void;
}

/** A textarea for a JSON answer, checked as the user types. Ctrl/Cmd+Enter submits. */
export function JsonEditor(props: JsonEditorProps) {
  const { idPrefix, label, initial, validator, emptyMeans, disabled, serverErrors, actions, onSubmit } = props;
  const [text, setText] = useState(() => (initial === undefined ? "" : JSON.stringify(initial, null, 2)));
  const [touched, setTouched] = useState(false);
  const check = useMemo(() => checkJsonText(text, validator, emptyMeans), [text, validator, emptyMeans]);
  const state: EditorState = { valid: check.valid, value: check.value };
  const messages = touched ? check.errors : (serverErrors ?? []);
  const inputId = `${idPrefix}-json`;
  const errorId = `${idPrefix}-json-error`;

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    setTouched(true);
    if (check.valid && !disabled && check.value !== undefined) onSubmit(check.value);
  };

  return (
    <>
      <div class="pp-json-editor">
        <label class="pp-label" for={inputId}>
          {label}
        </label>
        {validator instanceof Error ? (
          <p class="pp-help">
            The schema could not be checked here (<Revealed text={validator.message} />
            ); the kernel checks the answer.
          </p>
        ) : null}
        {validator && !(validator instanceof Error) && validator.deferredPatterns.length > 0 ? (
          <p class="pp-help pp-kernel-check" data-testid="pp-kernel-check">
            {validator.deferredPatterns.length === 1 ? "A pattern" : `${validator.deferredPatterns.length} patterns`} of this schema could take too long to
            match here; the kernel checks {validator.deferredPatterns.length === 1 ? "it" : "them"} when you send.
          </p>
        ) : null}
        <textarea
          id={inputId}
          class="pp-textarea"
          data-testid="pp-json-editor"
          rows={Math.min(12, Math.max(3, text.split("\n").length))}
          spellcheck={false}
          value={text}
          disabled={disabled}
          aria-invalid={messages.length > 0 ? "true" : "false"}
          aria-describedby={messages.length > 0 ? errorId : undefined}
          onInput={(e: Event) => {
            setText((e.currentTarget as HTMLTextAreaElement).value);
            setTouched(true);
          }}
          onKeyDown={onKeyDown}
        />
        <HiddenInValue value={text} />
        <FieldError id={errorId} path="" messages={messages} />
      </div>
      {actions(state)}
    </>
  );
}
