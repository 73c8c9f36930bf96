import { cancel } from "../kernel/protocol";
import { useAnswer } from "../kernel/use-answer";
import { AnswerError } from "./AnswerError";

/** Stops a busy run: asks the kernel to cancel it, and says so until the kernel answers. */
export function StopButton() {
  // Once the kernel has stopped the run its status is no longer "running" and this button goes.
  const answer = useAnswer();
  const stopping = answer.phase === "sending" || answer.phase === "sent";
  const onStop = () => void answer.send((kernel) => cancel(kernel));
  return (
    <span class="pp-stop">
      <button
        type="button"
        class="pp-button pp-button-danger"
        data-testid="pp-stop"
        aria-label="Stop the run"
        disabled={answer.phase !== "idle" || !answer.connected}
        onClick={onStop}
      >
        {stopping ? "Stopping…" : "Stop"}
      </button>
      {answer.error ? <AnswerError error={answer.error} inline={true} className="pp-stop-error" testid="pp-stop-error" /> : null}
    </span>
  );
}
