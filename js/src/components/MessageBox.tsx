import { useState } from "preact/hooks";
import { retry, say } from "../kernel/protocol";
import { useAnswer } from "../kernel/use-answer";
import { useModelValue } from "../lib/hooks";
import { remoteOf } from "../lib/remote";
import type { Model } from "../types";
import { AnswerError } from "./AnswerError";
import "./message-box.css";

const AT_REST = new Set(["idle", "completed", "failed", "cancelled"]);

interface MessageBoxProps {
  model: Model;
}

/**
 * Under a run that is not running and waits on nobody: a box for the next message of the
 * conversation, and after a stop or a failure, Continue (the run's `run()`: go on from
 * where it stopped) and Retry (`retry()`: ask the model again without the turn that ended it).
 */
export function MessageBox({ model }: MessageBoxProps) {
  const status = useModelValue(model, "status") ?? "idle";
  const remote = remoteOf(useModelValue(model, "meta"));
  const pending = useModelValue(model, "pending") ?? [];
  const [text, setText] = useState("");
  const sending = useAnswer({ afterOk: "idle" });
  if (!AT_REST.has(status) || pending.length > 0 || !sending.connected) return null;
  const busy = sending.phase === "sending";
  const empty = text.trim() === "";
  const send = async () => {
    if (empty || !sending.ready()) return;
    const outcome = await sending.send((kernel) => say(kernel, text.trim()));
    if (outcome?.ok) setText("");
  };
  const stopped = status === "failed" || status === "cancelled";
  return (
    <form
      class="pp-message-box"
      data-testid="pp-message-box"
      onSubmit={(e: Event) => {
        e.preventDefault();
        void send();
      }}
    >
      <textarea
        class="pp-input pp-message-text"
        data-testid="pp-message-text"
        aria-label="Your next message to the agent"
        rows={2}
        placeholder={stopped ? "Say something, or Continue where it stopped" : "Your next message to the agent"}
        value={text}
        disabled={busy}
        onInput={(e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(e: KeyboardEvent) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void send();
          }
        }}
      />
      <div class="pp-actions">
        <button type="submit" class="pp-button pp-button-primary" data-testid="pp-message-send" disabled={busy || empty}>
          Send
        </button>
        {stopped ? (
          <>
            <button
              type="button"
              class="pp-button"
              data-testid="pp-continue"
              disabled={busy}
              title="Ask the model to go on from where the run stopped; it is shown everything so far, a cut reply included"
              onClick={() => void sending.send((kernel) => say(kernel, null))}
            >
              Continue
            </button>
            {remote === null ? (
              <button
                type="button"
                class="pp-button"
                data-testid="pp-retry"
                disabled={busy}
                title="Ask the model again, without the turn that ended the run"
                onClick={() => void sending.send((kernel) => retry(kernel))}
              >
                Retry
              </button>
            ) : null}
          </>
        ) : null}
        {busy ? (
          <span class="pp-muted" data-testid="pp-message-sending">
            Sending…
          </span>
        ) : null}
      </div>
      {sending.error ? <AnswerError error={sending.error} /> : null}
    </form>
  );
}
