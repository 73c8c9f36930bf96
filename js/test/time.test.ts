import { describe, expect, it } from "vitest";
import { exactTime, relativeTime } from "../src/lib/time";

const NOW = Date.parse("2026-12-01T16:22:15Z");
const earlier = (ms: number) => new Date(NOW - ms).toISOString();
const MIN = 60_000;

describe("relative times", () => {
  it("say how long ago, in words", () => {
    expect(relativeTime(earlier(0), NOW)).toBe("just now");
    expect(relativeTime(earlier(30_000), NOW)).toBe("just now");
    expect(relativeTime(earlier(50_000), NOW)).toBe("1 min ago");
    expect(relativeTime(earlier(12 * MIN), NOW)).toBe("12 min ago");
    expect(relativeTime(earlier(59 * MIN), NOW)).toBe("59 min ago");
    expect(relativeTime(earlier(3 * 60 * MIN + 20 * MIN), NOW)).toBe("3 h ago");
    expect(relativeTime(earlier(26 * 60 * MIN), NOW)).toBe("yesterday");
    expect(relativeTime(earlier(4 * 24 * 60 * MIN), NOW)).toBe("4 days ago");
  });

  it("give the date for a time over a week old", () => {
    const old = relativeTime("2026-11-01T10:00:00Z", NOW);
    expect(old).toBe(new Date("2026-11-01T10:00:00Z").toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }));
    expect(old).toContain("2026");
  });

  it("take a clock a little ahead as now, and say how far ahead one far ahead is", () => {
    expect(relativeTime(earlier(-20_000), NOW)).toBe("just now");
    expect(relativeTime(earlier(-5 * MIN), NOW)).toBe("in 5 min");
  });

  it("accept epoch milliseconds and leave an unreadable time as it is", () => {
    expect(relativeTime(NOW - 2 * MIN, NOW)).toBe("2 min ago");
    expect(relativeTime("not a time", NOW)).toBe("not a time");
    expect(exactTime("not a time")).toBe("not a time");
  });

  it("give the exact local time for the tooltip", () => {
    expect(exactTime(earlier(12 * MIN))).toBe(new Date(NOW - 12 * MIN).toLocaleString());
  });
});
