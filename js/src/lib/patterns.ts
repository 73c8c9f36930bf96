/**
 * Which schema `pattern`s the browser runs, and on how much text, so that no pattern can
 * keep the page busy: JavaScript's regular expressions backtrack, and `^(a+)+$` takes
 * seconds for 30 characters. The kernel matches every pattern with RE2 (linear time), so
 * what the browser leaves out is still checked, only later.
 *
 * The browser runs a pattern only when it compiles, has no quantifier inside a quantifier
 * (star height 1, as safe-regex2 checks) and no alternation inside a quantifier
 * (`(a|a)*`); then matching costs at most about n^(k+1) steps for k unbounded quantifiers
 * on n characters, and the pattern is run on texts short enough to stay within a budget.
 */
import tokenize, { type Token, types } from "ret";
import safeRegex from "safe-regex2";

/** Steps of backtracking a check may cost: a few milliseconds. */
const BUDGET = 2e7;

export interface PatternPlan {
  /** Whether the browser runs the pattern at all. */
  runs: boolean;
  /** The longest text it is run on; longer texts are the kernel's to check. */
  maxLength: number;
}

const NEVER: PatternPlan = { runs: false, maxLength: 0 };

function children(token: Token): Token[][] {
  if (token.type === types.GROUP) return token.options ?? (token.stack ? [token.stack] : []);
  if (token.type === types.REPETITION) return [[token.value]];
  return [];
}

/** k: the unbounded quantifiers; null when a quantifier holds an alternation. */
function unboundedQuantifiers(tokens: Token[], inRepetition: boolean): number | null {
  let count = 0;
  for (const token of tokens) {
    if (token.type === types.GROUP && inRepetition && (token.options?.length ?? 0) > 1) return null;
    const repeated = token.type === types.REPETITION && token.max > 1;
    if (token.type === types.REPETITION && token.max === Number.POSITIVE_INFINITY) count += 1;
    for (const branch of children(token)) {
      const inner = unboundedQuantifiers(branch, inRepetition || repeated);
      if (inner === null) return null;
      count += inner;
    }
  }
  return count;
}

const plans = new Map<string, PatternPlan>();

export function patternPlan(pattern: string): PatternPlan {
  const known = plans.get(pattern);
  if (known) return known;
  let plan = NEVER;
  try {
    new RegExp(pattern, "u");
    if (safeRegex(pattern)) {
      const root = tokenize(pattern);
      const top = root.options ?? (root.stack ? [root.stack] : []);
      let k: number | null = 0;
      for (const branch of top) {
        const inner = unboundedQuantifiers(branch, false);
        k = inner === null || k === null ? null : k + inner;
      }
      if (k !== null) plan = { runs: true, maxLength: Math.floor(BUDGET ** (1 / (k + 1))) };
    }
  } catch {
    plan = NEVER;
  }
  plans.set(pattern, plan);
  return plan;
}
