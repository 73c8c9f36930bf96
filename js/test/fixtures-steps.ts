/** Steps with times, as `stepsOf` gives them, for the waterfall's tests. */
import type { Step, StepKind } from "../src/lib/past";

export const MS = 1000;
export const S = 1_000_000;
/** 2025-01-01, in microseconds since the epoch. */
export const T0 = Date.UTC(2025, 0, 1) * 1000;

/** `n` steps as a scripted run makes them: a model turn (300 µs), an action (100 µs), and
 * after every 10th action a wait for a person (2 ms), 50 µs apart. */
export function scriptedSteps(n: number): Step[] {
  const steps: Step[] = [];
  let t = T0;
  let calls = 0;
  let kind: StepKind = "action";
  while (steps.length < n) {
    kind = kind === "model" ? "action" : "model";
    const length = kind === "model" ? 300 : 100;
    steps.push({ kind, label: kind === "model" ? "ScriptedModel" : "lookup", start: t, end: t + length });
    t += length + 50;
    if (kind === "action" && ++calls % 10 === 0 && steps.length < n) {
      steps.push({ kind: "wait", label: "confirm", start: t, end: t + 2 * MS });
      t += 2 * MS + 50;
    }
  }
  return steps;
}
