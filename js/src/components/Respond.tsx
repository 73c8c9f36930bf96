import { useState } from "preact/hooks";
import { HiddenInValue } from "./Revealed";
import "./respond.css";

interface RespondProps {
  idPrefix: string;
  disabled: boolean;
  onRespond: (words: string) => void;
}

/**
 * Respond to an approval in words instead of running the action: the model reads them as
 * the call's outcome (not a rejection). Send stays off while there are no words.
 */
export function Respond({ idPrefix, disabled, onRespond }: RespondProps) {
  const [words, setWords] = useState("");
  const empty = words.trim() === "";
  const send = () => {
    if (!empty) onRespond(words.trim());
  };
  return (
    <div class="pp-respond" data-testid="pp-respond-box">
      <label class="pp-field-label" for={`${idPrefix}-respond`}>
        Your words to the agent (the action will not run)
      </label>
      <textarea
        id={`${idPrefix}-respond`}
        class="pp-input pp-respond-text"
        rows={2}
        data-testid="pp-respond-text"
        value={words}
        disabled={disabled}
        onInput={(e: Event) => setWords((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(e: KeyboardEvent) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      <HiddenInValue value={words} />
      <div class="pp-actions">
        <button type="button" class="pp-button pp-button-primary" data-testid="pp-respond-send" disabled={disabled || empty} onClick={send}>
          Send response
        </button>
      </div>
    </div>
  );
}
