/**
 * Figures a test measures, each printed against its goal and never asserted: on a loaded
 * machine a time budget would fail for the machine's sake, not the code's. As in
 * tests/figures.py, `PAUSEPOINT_FIGURES` names a file each figure is appended to as a JSON
 * line; `make bench-view` (benchmarks/bench_view_budgets.py) runs these tests with it set
 * and prints every figure against its goal, met or MISSED.
 */
import { appendFileSync } from "node:fs";

export function figure(name: string, value: number, goal: number, unit = "ms"): boolean {
  const met = value < goal;
  console.log(`${name}: ${value.toFixed(1)} ${unit} (goal: under ${goal} ${unit}, ${met ? "met" : "MISSED"})`);
  const path = process.env.PAUSEPOINT_FIGURES;
  if (path) appendFileSync(path, `${JSON.stringify({ test: "js/test/markdown-budget.test.ts", name, value, goal, unit })}\n`, "utf8");
  return met;
}
