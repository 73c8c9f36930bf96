import type { Json } from "../types";

/** JSON equality, whatever the order of object keys. */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  const canonical = (value: Json | undefined): string =>
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v,
    ) ?? "";
  return canonical(a) === canonical(b);
}
