import type { ComponentChild } from "preact";
import type { BooleanChoice } from "../lib/schema-form";
import { revealText } from "../lib/unicode";
import type { Json } from "../types";
import { Revealed } from "./Revealed";

const SHORT_LABEL = 32;

/** "Dry run" -> "dry run"; "API access" keeps its capitals. */
function inSentence(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
}

interface YesNoProps {
  choice: BooleanChoice;
  disabled: boolean;
  after: ComponentChild;
  onAnswer: (value: Json) => void;
}

/**
 * A yes/no question as two buttons. A short label names the answer ("Yes, dry run"); a
 * question, or a long one, is shown above plain "Yes" / "No".
 */
export function YesNo({ choice, disabled, after, onAnswer }: YesNoProps) {
  const label = choice.label.trim();
  const inButton = label !== "" && !label.endsWith("?") && label.length <= SHORT_LABEL;
  const yes = inButton ? `Yes, ${inSentence(label)}` : "Yes";
  const named = (word: string) => (label && !inButton ? revealText(`${word}: ${label}`) : undefined);
  return (
    <div class="pp-yes-no" role="group" aria-label={label ? revealText(label) : undefined}>
      {label && !inButton ? (
        <p class="pp-label pp-yes-no-question">
          <Revealed text={label} />
        </p>
      ) : null}
      {choice.description ? (
        <p class="pp-help">
          <Revealed text={choice.description} />
        </p>
      ) : null}
      <div class="pp-actions">
        <button
          type="button"
          class="pp-button pp-button-primary"
          data-testid="pp-answer-yes"
          disabled={disabled}
          aria-label={named("Yes")}
          onClick={() => onAnswer(choice.answer(true))}
        >
          <Revealed text={yes} />
        </button>
        <button
          type="button"
          class="pp-button"
          data-testid="pp-answer-no"
          disabled={disabled}
          aria-label={named("No")}
          onClick={() => onAnswer(choice.answer(false))}
        >
          No
        </button>
        {after}
      </div>
    </div>
  );
}
