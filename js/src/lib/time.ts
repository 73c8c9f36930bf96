/** Times as people say them: "12 min ago", with the exact time for a tooltip. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The epoch milliseconds of an ISO-8601 time, or NaN. */
function parse(at: string | number): number {
  return typeof at === "number" ? at : Date.parse(at);
}

/**
 * How long before `now` `at` was: "just now", "12 min ago", "3 h ago", "yesterday",
 * "4 days ago", then the date. A time a little ahead of this clock (another machine's)
 * is "just now"; one far ahead says "in 5 min". An unreadable time is returned as given.
 */
export function relativeTime(at: string | number, now: number): string {
  const then = parse(at);
  if (!Number.isFinite(then)) return String(at);
  const ago = now - then;
  if (ago < -MINUTE) return `in ${Math.round(-ago / MINUTE)} min`;
  if (ago < 45_000) return "just now";
  if (ago < HOUR) return `${Math.max(1, Math.round(ago / MINUTE))} min ago`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h ago`;
  const days = Math.floor(ago / DAY);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return new Date(then).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

/** The exact local time, for a tooltip: "12/1/2026, 4:22:15 PM" in an en-US browser. */
export function exactTime(at: string | number): string {
  const then = parse(at);
  return Number.isFinite(then) ? new Date(then).toLocaleString() : String(at);
}
