import { html } from "htm/preact";
import type { VNode } from "preact";
import type { AssistantItem, Item, ToolItem } from "../types";
import { Markdown } from "./Markdown";
import { ToolCall } from "./ToolCall";

function Message({ item }: { item: Item & { type: "user" | "assistant" } }) {
  const who = item.type === "user" ? "You" : "Assistant";
  return html`<div class=${`pp-item pp-message pp-${item.type}`} data-testid="pp-item" data-type=${item.type}>
    <div class="pp-role">${who}</div>
    ${item.text ? html`<${Markdown} text=${item.text} />` : null}
  </div>`;
}

/** Calls the assistant asked for whose tool record has not arrived yet. */
function unrecordedCalls(item: AssistantItem, recorded: ReadonlySet<string>): ToolItem[] {
  return (item.tool_calls ?? [])
    .filter((call) => !recorded.has(call.id))
    .map((call) => ({ type: "tool", id: call.id, name: call.name, input: call.input, status: "pending", interrupts: [] }));
}

export function Transcript({ items, streaming }: { items: Item[]; streaming: string }) {
  const recorded = new Set(items.filter((i): i is ToolItem => i.type === "tool").map((i) => i.id));
  // A call the assistant asked for shows up where its record will: after the turn's records.
  const rows: VNode[] = [];
  let waiting: ToolItem[] = [];
  const flush = () => {
    rows.push(...waiting.map((call) => html`<${ToolCall} key=${`t-${call.id}`} call=${call} />`));
    waiting = [];
  };
  items.forEach((item, index) => {
    if (item.type === "tool") {
      rows.push(html`<${ToolCall} key=${`t-${item.id}`} call=${item} />`);
    } else if (item.type === "user" || item.type === "assistant") {
      flush();
      rows.push(html`<${Message} key=${`m-${index}`} item=${item} />`);
      if (item.type === "assistant") waiting = unrecordedCalls(item, recorded);
    }
  });
  flush();
  return html`<section class="pp-transcript" aria-label="Transcript">
    ${rows.length === 0 && !streaming ? html`<p class="pp-muted pp-empty">No messages yet.</p>` : rows}
    ${streaming
      ? html`<div class="pp-item pp-message pp-assistant pp-streaming" data-testid="pp-streaming" aria-busy="true">
          <div class="pp-role">Assistant</div>
          <${Markdown} text=${streaming} />
        </div>`
      : null}
  </section>`;
}
