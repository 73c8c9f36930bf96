// A chat page on TanStack AI's released client and its default connection, talking to a
// pausepoint agent served at /api/chat. Every pause is a card: an approval with Approve /
// Decline, a question as a form built from its response schema, and a pause of another
// producer shown read-only. Server text is only ever written as text.
import { ChatClient, fetchServerSentEvents } from "@tanstack/ai-client";
import { toolDefinition } from "@tanstack/ai/client";

const ENDPOINT = "/api/chat";
const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

function partText(part) {
  if (part.type === "text") return part.content ?? part.text ?? "";
  return "";
}

function showThread(messages) {
  const rows = [];
  for (const message of messages) {
    const text = message.parts.map(partText).join("");
    if (text) rows.push(el("li", { class: message.role, text }));
    for (const part of message.parts) {
      if (part.type === "tool-call") {
        const args = typeof part.arguments === "string" ? part.arguments : JSON.stringify(part.input ?? {});
        rows.push(el("li", { class: "tool", text: `${part.name}(${args})` }));
      } else if (part.type === "tool-result") {
        const said = typeof part.content === "string" ? part.content : JSON.stringify(part.content);
        rows.push(el("li", { class: "tool", text: `→ ${said}` }));
      }
    }
  }
  $("thread").replaceChildren(...rows);
}

function errorsOf(interrupt) {
  const said = (interrupt.errors ?? []).map((error) => error.message);
  return said.length ? [el("p", { class: "errors", role: "alert", text: said.join(" ") })] : [];
}

function approvalCard(interrupt) {
  return el(
    "div",
    { class: "card", "data-kind": "tool-approval" },
    el("h2", { text: interrupt.message ?? `Run ${interrupt.toolName}?` }),
    el("pre", { text: `${interrupt.toolName} ${JSON.stringify(interrupt.originalArgs ?? {})}` }),
    ...errorsOf(interrupt),
    el("button", { class: "approve", text: "Approve", onclick: () => interrupt.resolveInterrupt(true) }),
    " ",
    el("button", { class: "decline", text: "Decline", onclick: () => interrupt.resolveInterrupt(false) }),
  );
}

// A form from the response schema: an enum is a choice, anything else a text field.
function field(name, schema, required) {
  const label = el("label", { text: `${schema.title ?? name}${required ? "" : " (optional)"} ` });
  let input;
  if (Array.isArray(schema.enum)) {
    input = el("select", { name }, ...schema.enum.map((value) => el("option", { value: String(value), text: String(value) })));
  } else {
    input = el("input", { name, type: schema.type === "number" || schema.type === "integer" ? "number" : "text" });
  }
  label.append(input);
  return label;
}

function valueOf(form, schema) {
  const value = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const raw = form.elements[name].value;
    if (raw === "" && !(schema.required ?? []).includes(name)) continue;
    value[name] = property.type === "number" || property.type === "integer" ? Number(raw) : raw;
  }
  return value;
}

function questionCard(interrupt) {
  const schema = interrupt.responseSchema ?? { type: "object", properties: { answer: { type: "string" } } };
  const resolved = schema.$defs ? resolveRefs(schema) : schema;
  const required = resolved.required ?? [];
  const form = el(
    "form",
    {},
    ...Object.entries(resolved.properties ?? {}).map(([name, property]) => field(name, property, required.includes(name))),
    el("button", { type: "submit", text: "Send" }),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    interrupt.resolveInterrupt(valueOf(form, resolved));
  });
  return el("div", { class: "card", "data-kind": "generic" }, el("h2", { text: interrupt.message ?? interrupt.reason }), ...errorsOf(interrupt), form);
}

// Pydantic writes enums as $defs references; the form reads them in place.
function resolveRefs(schema) {
  const properties = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const ref = property.$ref?.replace("#/$defs/", "");
    properties[name] = ref ? { ...schema.$defs[ref], ...property } : property;
  }
  return { ...schema, properties };
}

function unboundCard(interrupt) {
  return el(
    "div",
    { class: "card unbound", "data-kind": "unbound" },
    el("h2", { text: `Paused elsewhere: ${interrupt.message ?? interrupt.reason}` }),
    el("p", { text: "Another system owns this pause; it is answered there, not here." }),
  );
}

function showPauses(interrupts) {
  const cards = interrupts.map((interrupt) => {
    if (interrupt.kind === "unbound" || !interrupt.canResolve) return unboundCard(interrupt);
    if (interrupt.kind === "tool-approval") return approvalCard(interrupt);
    return questionCard(interrupt);
  });
  $("pauses").replaceChildren(...cards);
}

async function start() {
  const described = await (await fetch(ENDPOINT)).json();
  const tools = (described.toolDefinitions ?? []).map((definition) => toolDefinition(definition).client());
  const threadId = new URLSearchParams(location.search).get("thread") ?? `thread-${Date.now()}`;
  const chat = new ChatClient({
    threadId,
    connection: fetchServerSentEvents(ENDPOINT),
    tools,
    onMessagesChange: showThread,
    onInterruptStateChange: (state) => showPauses(state.interrupts),
    onLoadingChange: (loading) => {
      $("status").textContent = loading ? "The agent is working…" : "";
    },
    onError: (error) => {
      $("status").textContent = error.message;
    },
  });
  window.chat = chat; // for the console, and for the tests
  $("compose").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("message").value.trim();
    if (!text) return;
    $("message").value = "";
    chat.sendMessage(text);
  });
  document.body.dataset.ready = "true";
}

start();
