import { useState } from "preact/hooks";
import { editItem, type ItemChange } from "../kernel/protocol";
import { useAnswer } from "../kernel/use-answer";
import type { Json } from "../types";
import { AnswerError } from "./AnswerError";
import { JsonEditor } from "./JsonEditor";
import { HiddenInValue } from "./Revealed";
import "./item-editor.css";

/** What is edited: a user message's words, or a tool call's result (words when it is a
 * string, else JSON). */
export type Edited = { kind: "text"; text: string } | { kind: "result"; result: Json };

interface ItemEditorProps {
  position: number;
  edited: Edited;
  onDone: () => void;
}

/**
 * Edits one item of a fork made at a model turn, before the model is asked again: Save
 * sends it to the kernel, which changes the item and sends it back; Cancel leaves it.
 */
export function ItemEditor({ position, edited, onDone }: ItemEditorProps) {
  const answer = useAnswer({ afterOk: "idle" });
  const words = edited.kind === "text" ? edited.text : typeof edited.result === "string" ? edited.result : null;
  const [text, setText] = useState(words ?? "");
  const disabled = answer.phase !== "idle" || !answer.connected;
  const idPrefix = `pp-edit-${position}`;
  const save = async (change: ItemChange) => {
    const outcome = await answer.send((kernel) => editItem(kernel, position, change));
    if (outcome?.ok) onDone();
  };
  // Words edit a message's text, or a result that is words.
  const saveWords = () => void save(edited.kind === "text" ? { text } : { result: text });
  const label = edited.kind === "text" ? "The message, as the model will read it" : "The result the model will read";
  const cancel = (
    <button type="button" class="pp-button" data-testid="pp-edit-cancel" onClick={onDone}>
      Cancel
    </button>
  );
  const body =
    words !== null ? (
      <>
        <label class="pp-field-label" for={`${idPrefix}-text`}>
          {label}
        </label>
        <textarea
          id={`${idPrefix}-text`}
          class="pp-input pp-item-editor-text"
          data-testid="pp-edit-text"
          rows={Math.min(10, Math.max(3, text.split("\n").length))}
          value={text}
          disabled={disabled}
          onInput={(e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={(e: KeyboardEvent) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.isComposing && text.trim()) {
              e.preventDefault();
              saveWords();
            }
          }}
        />
        <HiddenInValue value={text} />
        <div class="pp-actions">
          <button type="button" class="pp-button pp-button-primary" data-testid="pp-edit-save" disabled={disabled || !text.trim()} onClick={saveWords}>
            Save
          </button>
          {cancel}
        </div>
      </>
    ) : (
      <JsonEditor
        idPrefix={idPrefix}
        label={`${label} (JSON)`}
        initial={edited.kind === "result" ? edited.result : null}
        validator={null}
        disabled={disabled}
        actions={(state: { valid: boolean; value: Json | undefined }) => (
          <div class="pp-actions">
            <button
              type="button"
              class="pp-button pp-button-primary"
              data-testid="pp-edit-save"
              disabled={disabled || !state.valid}
              onClick={() => state.value !== undefined && void save({ result: state.value })}
            >
              Save
            </button>
            {cancel}
          </div>
        )}
        onSubmit={(value: Json) => void save({ result: value })}
      />
    );
  return (
    <div class="pp-item-editor" data-testid="pp-item-editor" data-position={position} aria-busy={answer.phase === "sending" ? "true" : "false"}>
      {body}
      {answer.error ? <AnswerError error={answer.error} /> : null}
    </div>
  );
}
