import { goOn } from "../kernel/protocol";
import { useAnswer } from "../kernel/use-answer";
import { AnswerError } from "./AnswerError";

interface ModelPauseProps {
  readOnly?: boolean;
}

/** A stepping run stopped before its next model request: Step or Continue. */
export function ModelPause({ readOnly: offline = false }: ModelPauseProps) {
  // The kernel's reply comes as the run goes on; a later pause shows this card again.
  const answer = useAnswer({ afterOk: "idle" });
  const readOnly = offline || !answer.connected;
  const send = (action: "step" | "continue") => {
    if (!readOnly) void answer.send((kernel) => goOn(kernel, action));
  };
  const sending = answer.phase === "sending";
  const disabled = answer.phase !== "idle" || readOnly;
  return (
    <section
      class="pp-card pp-card-breakpoint"
      data-testid="pp-model-pause"
      aria-label="Paused before the model request"
      aria-busy={sending ? "true" : "false"}
    >
      <div class="pp-card-head">
        <span class="pp-badge pp-badge-breakpoint">Step</span>
        {sending ? (
          <span class="pp-muted" data-testid="pp-sending">
            Sending…
          </span>
        ) : null}
      </div>
      <p class="pp-card-message">Paused before the next model request.</p>
      <div class="pp-actions">
        <button type="button" class="pp-button pp-button-primary" data-testid="pp-debug-continue" disabled={disabled} onClick={() => send("continue")}>
          Continue
        </button>
        <button type="button" class="pp-button" data-testid="pp-debug-step" disabled={disabled} onClick={() => send("step")}>
          Step
        </button>
      </div>
      {answer.error ? <AnswerError error={answer.error} /> : null}
    </section>
  );
}
