import { html } from "htm/preact";
import { useRef, useState } from "preact/hooks";
import { goOn } from "../protocol";
import { useKernel } from "../requests";
import type { ResponseError } from "../types";

/** A stepping run stopped before its next model request: Step or Continue. */
export function ModelPause({ readOnly: offline = false }: { readOnly?: boolean }) {
  const kernel = useKernel();
  const readOnly = offline || kernel === null;
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<ResponseError | null>(null);
  const inFlight = useRef(false);
  const send = async (action: "step" | "continue") => {
    if (inFlight.current || readOnly) return;
    inFlight.current = true;
    setSending(true);
    setError(null);
    const outcome = await goOn(kernel!, action);
    inFlight.current = false;
    setSending(false);
    if (!outcome.ok) setError(outcome.error);
  };
  const disabled = sending || readOnly;
  return html`<section class="pp-card pp-card-breakpoint" data-testid="pp-model-pause" aria-label="Paused before the model request">
    <div class="pp-card-head"><span class="pp-badge pp-badge-breakpoint">Step</span></div>
    <p class="pp-card-message">Paused before the next model request.</p>
    <div class="pp-actions">
      <button type="button" class="pp-button pp-button-primary" data-testid="pp-debug-continue" disabled=${disabled}
        onClick=${() => send("continue")}>Continue</button>
      <button type="button" class="pp-button" data-testid="pp-debug-step" disabled=${disabled}
        onClick=${() => send("step")}>Step</button>
    </div>
    ${error
      ? html`<div class="pp-card-error" role="alert" data-testid="pp-card-error" data-error=${error.name}>
          <strong>${error.name}:</strong> ${error.message}
        </div>`
      : null}
  </section>`;
}
