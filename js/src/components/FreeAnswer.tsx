import type { ComponentChild } from "preact";
import { useState } from "preact/hooks";
import type { Json } from "../types";
import type { EditorState } from "./JsonEditor";
import { HiddenInValue } from "./Revealed";
import { AnswerEditor } from "./SchemaForm";

export interface FreeAnswerProps {
  idPrefix: string;
  disabled: boolean;
  serverErrors?: Record<string, string[]>;
  /** The controls after Send (the card's Reject). */
  after: ComponentChild;
  onSend: (value: Json) => void;
}

/**
 * The answer to a question with no response schema: words, sent as a string; or, for
 * those who ask for it, JSON. Send waits until there is something to send.
 */
export function FreeAnswer({ idPrefix, disabled, serverErrors, after, onSend }: FreeAnswerProps) {
  const [asJson, setAsJson] = useState(false);
  const [text, setText] = useState("");
  const toggle = (
    <button
      type="button"
      class="pp-button pp-button-quiet pp-answer-mode"
      data-testid="pp-answer-as-json"
      aria-pressed={asJson ? "true" : "false"}
      disabled={disabled}
      onClick={() => setAsJson(!asJson)}
    >
      Answer as JSON
    </button>
  );
  const actions = (state: EditorState) => (
    <div class="pp-actions">
      <button
        type="button"
        class="pp-button pp-button-primary"
        data-testid="pp-resume"
        disabled={disabled || !state.valid}
        onClick={() => state.valid && state.value !== undefined && onSend(state.value)}
      >
        Send
      </button>
      {toggle} {after}
    </div>
  );
  if (asJson) {
    return (
      <AnswerEditor
        idPrefix={idPrefix}
        schema={null}
        jsonLabel="Your answer (JSON)"
        disabled={disabled}
        serverErrors={serverErrors}
        actions={actions}
        onSubmit={onSend}
      />
    );
  }
  const words = text.trim();
  const state: EditorState = { valid: words !== "", value: words === "" ? undefined : words };
  const inputId = `${idPrefix}-text`;
  return (
    <>
      <div class="pp-json-editor pp-text-answer">
        <label class="pp-label" for={inputId}>
          Your answer
        </label>
        <textarea
          id={inputId}
          class="pp-textarea pp-text-answer-box"
          data-testid="pp-text-answer"
          rows={Math.min(8, Math.max(2, text.split("\n").length))}
          value={text}
          disabled={disabled}
          onInput={(e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(event: KeyboardEvent) => {
            if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
            event.preventDefault();
            if (state.valid && !disabled && state.value !== undefined) onSend(state.value);
          }}
        />
        <HiddenInValue value={text} />
        <p class="pp-help">Sent as text. Ctrl+Enter sends.</p>
      </div>
      {actions(state)}
    </>
  );
}
