import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { cancel } from "../protocol";
import type { Kernel } from "../requests";

/** Stops a busy run: asks the kernel to cancel it, and says so until the kernel answers. */
export function StopButton({ kernel }: { kernel: Kernel }) {
  const [state, setState] = useState<"idle" | "stopping" | "failed">("idle");
  const [error, setError] = useState<string | null>(null);

  const onStop = async () => {
    setState("stopping");
    setError(null);
    const outcome = await cancel(kernel);
    if (outcome.ok) return; // the status trait turns to "cancelled" and this button goes
    setState("failed");
    setError(`${outcome.error.name}: ${outcome.error.message}`);
  };

  return html`<span class="pp-stop">
    <button type="button" class="pp-button pp-button-danger" data-testid="pp-stop" aria-label="Stop the run"
      disabled=${state === "stopping"} onClick=${onStop}>
      ${state === "stopping" ? "Stopping…" : "Stop"}
    </button>
    ${error ? html`<span class="pp-stop-error" data-testid="pp-stop-error" role="alert">${error}</span>` : null}
  </span>`;
}
