import type { Model } from "../types";
import { Revealed } from "./Revealed";

/** For a stored run, the Python line that rebuilds it (the `load_line` trait); else "". */
function loadLineOf(model: Model): string {
  const line = (model.get as (key: string) => unknown)("load_line");
  return typeof line === "string" ? line : "";
}

interface KernelGoneProps {
  model: Model;
}

/**
 * Shown once the view's kernel is gone: why nothing can be answered here, and what works
 * now. Nothing it suggests is a bare name such as `run`, which a new kernel, where no
 * variable of that name exists yet, would take for IPython's `%run` magic.
 */
export function KernelGone({ model }: KernelGoneProps) {
  const line = loadLineOf(model);
  const what = line ? (
    <>
      The run is stored:{" "}
      <code data-testid="pp-load-line">
        <Revealed text={line} />
      </code>{" "}
      in a cell, with the agent that ran it, shows it again live and answerable.
    </>
  ) : (
    <>
      The run lived only in that kernel, so it is gone unless it was saved: a transcript saved with <code>run.prompt.model_dump_json()</code> is rebuilt with{" "}
      <code>AgentRun(agent, Prompt.model_validate_json(saved))</code>.
    </>
  );
  return (
    <div class="pp-kernel-gone" role="status" data-testid="pp-kernel-gone" data-stored={line ? "true" : "false"}>
      <strong>The kernel of this view is gone</strong> (restarted or shut down), so the view is read-only. {what}
    </div>
  );
}
