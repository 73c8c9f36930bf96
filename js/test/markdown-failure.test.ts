import { describe, expect, it, vi } from "vitest";

// A parser that overflows its stack on some input the checks did not foresee.
vi.mock("marked", async (original) => {
  const real = await original<typeof import("marked")>();
  class Overflowing extends real.Marked {
    constructor(...args: any[]) {
      super(...args);
      this.parse = (() => {
        throw new RangeError("Maximum call stack size exceeded");
      }) as any;
    }
  }
  return { ...real, Marked: Overflowing };
});

describe("a parser failure", () => {
  it("shows the text as plain text", async () => {
    // test/setup.ts loaded the module with the real parser: load it again with this one.
    vi.resetModules();
    const { markdown } = await import("../src/lib/markdown");
    expect(markdown("**fine** text")).toEqual({ plain: "failed" });
  });
});
