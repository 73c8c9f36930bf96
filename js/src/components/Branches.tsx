import { useEffect, useRef, useState } from "preact/hooks";
import { branches } from "../kernel/protocol";
import { useKernel } from "../kernel/requests";
import { argsBefore, decisionOf, decisionWords } from "../lib/answers";
import { kindTitle } from "../lib/labels";
import { revealText } from "../lib/unicode";
import type { ForkInfo, Item, JsonObject, Resolution, ResponseError, RunStatus } from "../types";
import { Revealed } from "./Revealed";
import { Transcript } from "./Transcript";

export interface Branch {
  runId: string;
  status: RunStatus;
  answer: Resolution | null;
  /** What this branch did at the fork point, in words (the kernel's reading). */
  said?: string;
  items: Item[];
}

/** The kernel's answer to a `branches` request. */
export interface BranchesValue {
  interruptId: string | null;
  /** A pause's kind, or "tool call" / "turn" for a fork that went back to one. */
  kind: string;
  /** What made the fork ("edited cents at refund"). */
  name?: string | null;
  toolName: string;
  message: string;
  parent: Branch;
  fork: Branch;
}

export const STATUS_WORDS: Record<string, string> = {
  running: "Running",
  interrupted: "Waiting for an answer",
  paused: "Paused before the model request",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Stopped",
  idle: "Not started",
};

/** What a branch answered at the fork point, in words: "Approved", "Declined: too
 * much", "Answered: {…}", or "Not answered yet". */
export function answerText(kind: string, answer: Resolution | null, before: JsonObject | null = null): string {
  const entry = { id: "", kind, message: "", data: null, state: null, response_schema: null, created_at: null, expires_at: null, resolution: answer };
  const decision = decisionOf(entry, before);
  return decision ? decisionWords(decision) : "Not answered yet";
}

interface BranchColumnProps {
  which: "parent" | "fork";
  title: string;
  branch: Branch;
  kind: string;
  before: JsonObject | null;
}

function BranchColumn({ which, title, branch, kind, before }: BranchColumnProps) {
  return (
    <section class="pp-branch" data-testid="pp-branch" data-branch={which} aria-label={title}>
      <h4 class="pp-branch-title">
        {title}{" "}
        <code class="pp-muted">
          <Revealed text={branch.runId} />
        </code>
      </h4>
      <p class={`pp-branch-answer pp-branch-answer-${branch.answer?.type ?? "pending"}`} data-testid="pp-branch-answer">
        <Revealed text={branch.said ?? answerText(kind, branch.answer, before)} />
      </p>
      <p class="pp-branch-status">
        <span class={`pp-status pp-status-${branch.status}`} data-testid="pp-branch-status" data-status={revealText(branch.status)}>
          <Revealed text={STATUS_WORDS[branch.status] ?? branch.status} />
        </span>
      </p>
      <Transcript items={branch.items} streaming="" />
    </section>
  );
}

interface BranchesProps {
  fork: ForkInfo;
  index: number;
  items: Item[];
  readOnly?: boolean;
}

/**
 * This run and one of its forks side by side from the fork point on: what each answered
 * there and what followed. Asked of the kernel when shown, again whenever either run
 * moves, and on Refresh.
 */
export function Branches({ fork, index, items, readOnly = false }: BranchesProps) {
  const kernel = useKernel();
  const [value, setValue] = useState<BranchesValue | null>(null);
  const [error, setError] = useState<ResponseError | null>(null);
  const [loading, setLoading] = useState(false);
  const latest = useRef(0);

  const load = async () => {
    if (readOnly || !kernel) return;
    latest.current += 1;
    const ticket = latest.current;
    setLoading(true);
    const outcome = await branches(kernel, fork.runId);
    if (ticket !== latest.current) return; // a newer request answers instead
    setLoading(false);
    if (outcome.ok) {
      setValue(outcome.value as unknown as BranchesValue);
      setError(null);
    } else setError(outcome.error);
  };
  useEffect(() => {
    void load();
  }, [kernel, fork.runId, fork.status, fork.items, items.length, readOnly]);

  return (
    <div class="pp-branches" data-testid="pp-branches" data-fork={revealText(fork.runId)} aria-busy={loading ? "true" : "false"}>
      <div class="pp-branches-head">
        <span>
          {value ? (
            value.kind === "tool call" || value.kind === "turn" ? (
              <>
                From <Revealed text={value.message.charAt(0).toLowerCase() + value.message.slice(1)} />
              </>
            ) : (
              <>
                From the {value.kind === "breakpoint" ? "breakpoint" : kindTitle(value.kind).toLowerCase()} of{" "}
                <code>
                  <Revealed text={value.toolName} />
                </code>
                : <Revealed text={value.message} />
              </>
            )
          ) : loading ? (
            "Loading both branches…"
          ) : null}
        </span>
        <button type="button" class="pp-button pp-button-quiet" data-testid="pp-branches-refresh" disabled={loading || readOnly} onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {error ? (
        <div class="pp-card-error" role="alert" data-testid="pp-card-error">
          <strong>
            <Revealed text={error.name} />:
          </strong>{" "}
          <Revealed text={error.message} />
        </div>
      ) : null}
      {value ? (
        <div class="pp-branches-columns">
          <BranchColumn
            which="parent"
            title="This run"
            branch={value.parent}
            kind={value.kind}
            before={value.interruptId ? argsBefore(items, value.interruptId) : null}
          />
          <BranchColumn
            which="fork"
            title={fork.name ?? `Fork ${index}`}
            branch={value.fork}
            kind={value.kind}
            before={value.interruptId ? argsBefore(items, value.interruptId) : null}
          />
        </div>
      ) : null}
    </div>
  );
}
