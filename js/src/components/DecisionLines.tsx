import { useMemo } from "preact/hooks";
import { type Decision, decisionsOf, decisionWords, runsAction } from "../lib/answers";
import { revealText } from "../lib/unicode";
import type { ToolItem } from "../types";
import "./decisions.css";
import { Revealed } from "./Revealed";
import { When } from "./When";

const WHO: Record<string, string> = {
  view: "You",
  code: "From code",
  inbox: "In the inbox",
  policy: "A policy",
  agui: "An AG-UI client",
};

interface LineProps {
  decision: Decision;
}

function Line({ decision }: LineProps) {
  const who = decision.by ? WHO[decision.by] : undefined;
  // A response is words for the model, neither a go nor a refusal.
  const tone = runsAction(decision) ? "go" : decision.kind === "responded" ? "said" : "stop";
  return (
    <li class={`pp-decision pp-decision-${tone}`} data-testid="pp-decision" data-decision={decision.kind} data-by={decision.by ?? ""}>
      {who ? <span class="pp-decision-who">{who}</span> : null}
      <span class="pp-decision-words">
        <Revealed text={decisionWords(decision)} />
      </span>
      {decision.at ? <When at={decision.at} /> : null}
    </li>
  );
}

interface DecisionLinesProps {
  call: ToolItem;
}

/** What was decided at each of a call's pauses, as lines in the conversation. */
export function DecisionLines({ call }: DecisionLinesProps) {
  const decisions = useMemo(() => decisionsOf(call).filter((d): d is Decision => d !== null), [call]);
  if (decisions.length === 0) return null;
  return (
    <ul class="pp-decisions" data-testid="pp-decisions" aria-label={revealText(`What was decided about ${call.name}`)}>
      {decisions.map((decision, i) => (
        <Line key={i} decision={decision} />
      ))}
    </ul>
  );
}
