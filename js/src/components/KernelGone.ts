import { html } from "htm/preact";

/** Shown once the view's kernel is gone: why nothing can be answered here, and what to do. */
export function KernelGone() {
  return html`<div class="pp-kernel-gone" role="status" data-testid="pp-kernel-gone">
    <strong>The kernel this view belongs to is gone</strong> (restarted or shut down), so its
    cards are read-only. Run the cell again to show the run live; a saved run can be rebuilt
    with <code>AgentRun(agent, Prompt.model_validate_json(saved))</code>.
  </div>`;
}
