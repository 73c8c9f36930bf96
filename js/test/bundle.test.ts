import { describe, expect, it } from "vitest";
// The built bundle (npm run build); the import fails when it has not been built.
import bundle from "../../src/pausepoint/widget/static/widget.js?raw";

describe("the bundle", () => {
  it("evaluates no code from strings, so it runs under a CSP without unsafe-eval", () => {
    expect(bundle.length).toBeGreaterThan(10_000);
    expect(bundle).not.toMatch(/new Function\s*\(/);
    expect(bundle).not.toMatch(/(^|[^\w$.])eval\s*\(/);
    expect(bundle).not.toMatch(/(^|[^\w$.])Function\s*\(\s*["'`]/);
    expect(bundle).not.toMatch(/setTimeout\s*\(\s*["'`]/);
  });
});
