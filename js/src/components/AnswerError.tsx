import { problemPath } from "../kernel/protocol";
import { revealText } from "../lib/unicode";
import type { ResponseError } from "../types";
import { Revealed } from "./Revealed";

const ERROR_TITLES: Record<string, string> = {
  InvalidResolutionError: "The answer was not accepted.",
  InterruptAlreadyResolvedError: "This interrupt has already been answered.",
  InterruptExpiredError: "This interrupt has expired.",
  RunBusyError: "The run is busy. Try again in a moment.",
  UnknownInterruptError: "The run does not know this interrupt any more.",
  NoPendingInterruptError: "Nothing is waiting for an answer any more.",
  NotJSONError: "The answer is not JSON.",
};

interface AnswerErrorProps {
  error: ResponseError;
  within?: string;
  testid?: string;
  inline?: boolean;
  className?: string;
}

/**
 * The kernel's error for a request, with its problems by path. `within` is the part of the
 * answer a form edits, so `$.editedArgs.x` reads as `x`. `inline` sits in a line of
 * controls (the header's Stop) with its own `className`.
 */
export function AnswerError({ error, within = "", testid = "pp-card-error", inline = false, className = "pp-card-error" }: AnswerErrorProps) {
  const problems = Array.isArray(error.problems) ? error.problems : [];
  const body = (
    <>
      <strong>
        {ERROR_TITLES[error.name] ?? (
          <>
            <Revealed text={String(error.name)} />:
          </>
        )}
      </strong>{" "}
      <Revealed text={String(error.message ?? "")} />
      {problems.length > 0 ? (
        <ul class="pp-problems">
          {problems.map((p) => {
            const full = problemPath(p.path);
            const path = within && full.startsWith(`${within}.`) ? full.slice(within.length + 1) : full;
            return (
              <li data-testid="pp-problem" data-path={revealText(path)}>
                <code>
                  <Revealed text={path || "(answer)"} />
                </code>
                : <Revealed text={String(p.message ?? "")} />
              </li>
            );
          })}
        </ul>
      ) : null}
    </>
  );
  return inline ? (
    <span class={className} role="alert" data-testid={testid} data-error={revealText(String(error.name))}>
      {body}
    </span>
  ) : (
    <div class={className} role="alert" data-testid={testid} data-error={revealText(String(error.name))}>
      {body}
    </div>
  );
}
