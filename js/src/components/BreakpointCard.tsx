import { useState } from "preact/hooks";
import { resume } from "../kernel/protocol";
import { useAnswer } from "../kernel/use-answer";
import { useUniqueId } from "../lib/hooks";
import { revealText } from "../lib/unicode";
import type { Json, PendingCard } from "../types";
import { AnswerError } from "./AnswerError";
import { JsonBlock } from "./JsonBlock";
import type { EditorState } from "./JsonEditor";
import { previewOf, TooLargeToEdit } from "./Preview";
import { cardHasHidden, HiddenWarning, Revealed } from "./Revealed";
import { AnswerEditor } from "./SchemaForm";

interface BreakpointCardProps {
  card: PendingCard;
  readOnly?: boolean;
}

/** A breakpoint: a debugging pause before an action, answered with Continue, Step,
 * Skip or Edit arguments (the answer is `{action, args?}`; see pausepoint.run._debug). */
export function BreakpointCard({ card, readOnly: offline = false }: BreakpointCardProps) {
  const idPrefix = useUniqueId("pp-breakpoint");
  // An edit is answered `{action: "edit", args}`: the kernel's problems at `$.args.x` belong to field `x`.
  const answer = useAnswer({ within: "args" });
  const readOnly = offline || !answer.connected;
  const [editing, setEditing] = useState(false);
  const { phase, error } = answer;
  const disabled = phase !== "idle" || readOnly;

  const send = (data: Json) => {
    if (readOnly) return;
    void answer.send((kernel) => resume(kernel, card.id, data));
  };
  const button = (label: string, action: string, testid: string, primary = false) => (
    <button type="button" class={`pp-button${primary ? " pp-button-primary" : ""}`} data-testid={testid} disabled={disabled} onClick={() => send({ action })}>
      {label}
    </button>
  );
  const why = card.data && typeof card.data === "object" && !Array.isArray(card.data) ? (card.data as Record<string, Json>).why : null;

  return (
    <article
      class={`pp-card pp-card-breakpoint${readOnly ? " pp-card-readonly" : ""}`}
      data-testid="pp-card"
      data-kind="breakpoint"
      data-interrupt-id={revealText(card.id)}
      data-phase={phase}
      aria-label={revealText(`Breakpoint: ${card.message}`)}
      aria-busy={phase === "sending" ? "true" : "false"}
    >
      <div class="pp-card-head">
        <span class="pp-badge pp-badge-breakpoint">{why === "step" ? "Step" : "Breakpoint"}</span>
        {phase === "sending" ? (
          <span class="pp-muted" data-testid="pp-sending">
            Sending…
          </span>
        ) : null}
        {phase === "sent" ? (
          <span class="pp-muted" data-testid="pp-sent">
            Sent; waiting for the run
          </span>
        ) : null}
      </div>
      {cardHasHidden(card) ? <HiddenWarning what="card" /> : null}
      <p class="pp-card-message">
        <Revealed text={card.message} />
      </p>
      <div class="pp-card-body">
        <p class="pp-tool-line">
          Before{" "}
          <code class="pp-tool-name pp-card-tool">
            <Revealed text={card.toolName ?? "(unnamed)"} />
          </code>
        </p>
        {editing ? (
          <AnswerEditor
            idPrefix={`${idPrefix}-args`}
            schema={card.inputSchema}
            initial={card.args ?? {}}
            jsonLabel="Arguments (JSON)"
            disabled={disabled}
            serverErrors={answer.fieldErrors}
            actions={(state: EditorState) => (
              <div class="pp-actions">
                <button
                  type="button"
                  class="pp-button pp-button-primary"
                  data-testid="pp-debug-run-edited"
                  disabled={disabled || !state.valid}
                  onClick={() => state.valid && state.value !== undefined && send({ action: "edit", args: state.value })}
                >
                  Run with these arguments
                </button>
                <button
                  type="button"
                  class="pp-button pp-button-quiet"
                  data-testid="pp-debug-cancel-edit"
                  disabled={disabled}
                  onClick={() => setEditing(false)}
                >
                  Cancel edits
                </button>
              </div>
            )}
            onSubmit={(value: Json) => send({ action: "edit", args: value })}
          />
        ) : (
          <>
            <JsonBlock label="Arguments" value={card.args ?? {}} testid="pp-args" />
            <TooLargeToEdit value={card.args} />
            <div class="pp-actions">
              {button("Continue", "continue", "pp-debug-continue", true)}
              {button("Step", "step", "pp-debug-step")}
              {button("Skip", "skip", "pp-debug-skip")}
              <button
                type="button"
                class="pp-button pp-button-quiet"
                data-testid="pp-debug-edit"
                disabled={disabled || previewOf(card.args) !== null}
                onClick={() => setEditing(true)}
              >
                Edit arguments
              </button>
            </div>
          </>
        )}
      </div>
      {error ? <AnswerError error={error} within="args" /> : null}
    </article>
  );
}
