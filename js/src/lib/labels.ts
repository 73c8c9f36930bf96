/** Words people read: kinds, outcomes, field labels and short titles for tool calls. */
import type { Json } from "../types";

export const KIND_TITLES: Record<string, string> = {
  "tool-approval": "Approval",
  generic: "Question",
  unbound: "Request",
  breakpoint: "Breakpoint",
};

export function kindTitle(kind: string): string {
  return KIND_TITLES[kind] ?? "Request";
}

/** `order_id` -> "Order id", `dryRun` -> "Dry run". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .trim()
    .toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : name;
}

/** A field's label: the schema's `title`, else its humanized property name. */
export function fieldLabel(schema: unknown, key: string): string {
  const title = schema && typeof schema === "object" ? (schema as { title?: unknown }).title : undefined;
  return typeof title === "string" && title.trim() !== "" ? title : humanize(key);
}

const MAX_VALUE = 32;

/** A value cut to a few characters ends in "…": the full one is in the arguments below. */
function shortValue(value: Json): string | null {
  if (typeof value === "string") {
    const chars = Array.from(value);
    return chars.length > MAX_VALUE ? `${chars.slice(0, MAX_VALUE - 1).join("")}…` : value;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

/**
 * The action's key arguments, to tell parallel calls apart: "order 42" from
 * `{order_id: 42}`; at most two plain values, then "…" when there are more arguments.
 */
export function keyArguments(input: Json | undefined): string {
  if (!input || typeof input !== "object" || Array.isArray(input)) return "";
  const parts: string[] = [];
  const entries = Object.entries(input);
  let used = 0;
  for (const [key, value] of entries) {
    if (parts.length === 2) break;
    used += 1;
    const shown = shortValue(value);
    if (shown === null || shown === "") continue;
    parts.push(`${humanize(key.replace(/_?id$/i, "") || key).toLowerCase()} ${shown}`);
  }
  if (parts.length > 0 && used < entries.length) parts.push("…");
  return parts.join(", ");
}

/** "refund_order · order 42" */
export function callTitle(name: string | null | undefined, input: Json | undefined): string {
  const args = keyArguments(input);
  const tool = name ?? "tool call";
  return args ? `${tool} · ${args}` : tool;
}

/** A producer's name as an owner: "Pydantic AI's", "OpenAI Agents'". */
export function possessive(name: string): string {
  return name.endsWith("s") ? `${name}'` : `${name}'s`;
}
