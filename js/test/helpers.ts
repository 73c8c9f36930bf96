/** A fake anywidget model and small DOM helpers for the view tests. */
import { act } from "preact/test-utils";
import createWidget, { type Widget } from "../src/index";
import { flushFrame } from "../src/lib/hooks";
import type { Model } from "../src/types";

type Callback = (...args: any[]) => void;

export class FakeModel implements Model {
  attrs: Record<string, unknown>;
  listeners = new Map<string, Set<Callback>>();
  onCalls = 0;
  offCalls = 0;
  saveCalls = 0;
  sent: Array<Record<string, any>> = [];
  // A manager without a notebook context, as a host that is not JupyterLab has.
  widget_manager: Model["widget_manager"] = {
    get_model: (id: string) => Promise.reject(new Error(`a fake model knows no model ${id}`)),
  };

  constructor(attrs: Record<string, unknown> = {}) {
    this.attrs = {
      run_id: "run-1",
      meta: { schema_version: 1, thread_id: "thread-1", run_id: "run-1", instructions: "Be helpful." },
      status: "idle",
      error: null,
      started_at: null,
      items: [],
      pending: [],
      ...attrs,
    };
  }

  get(key: string): any {
    return this.attrs[key];
  }

  set(key: string, value: unknown): void {
    const old = this.attrs[key];
    this.attrs[key] = value;
    if (old !== value) this.emit(`change:${key}`, this, value);
  }

  on(event: string, callback: Callback): void {
    this.onCalls += 1;
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(callback);
  }

  off(event?: string | null, callback?: Callback | null): void {
    this.offCalls += 1;
    if (!event) this.listeners.clear();
    else if (!callback) this.listeners.delete(event);
    else this.listeners.get(event)?.delete(callback);
  }

  /** The `follow` requests (a front end's word that it applies the transcript messages),
   * kept apart from the requests a person's clicks send. */
  follows: Array<Record<string, any>> = [];

  send(content: unknown): void {
    const request = content as Record<string, any>;
    if (request?.type === "follow") this.follows.push(request);
    else this.sent.push(request);
  }

  save_changes(): void {
    this.saveCalls += 1;
  }

  emit(event: string, ...args: unknown[]): void {
    for (const callback of [...(this.listeners.get(event) ?? [])]) callback(...args);
  }

  listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  /** What the kernel would do: a custom message, applied inside act(). */
  message(content: unknown): void {
    act(() => {
      this.emit("msg:custom", content, []);
      flushFrame();
    });
  }

  /** Sets a trait as the kernel's state sync would. */
  setTrait(key: string, value: unknown): void {
    act(() => {
      this.set(key, value);
      flushFrame();
    });
  }

  lastRequest(): Record<string, any> {
    const last = this.sent[this.sent.length - 1];
    if (!last) throw new Error("nothing was sent");
    return last;
  }

  async respond(response: { ok: true; value?: unknown } | { ok: false; error: Record<string, unknown> }, request = this.lastRequest()): Promise<void> {
    await act(async () => {
      this.emit("msg:custom", { type: "response", requestId: request.requestId, ...response }, []);
      await flushMicrotasks();
    });
  }
}

export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

export interface Mounted {
  el: HTMLElement;
  cleanup(): void;
  q(testid: string): HTMLElement | null;
  qa(testid: string): HTMLElement[];
  get(testid: string): HTMLElement;
}

export function within(root: ParentNode) {
  const q = (testid: string) => root.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
  return {
    q,
    qa: (testid: string) => [...root.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)],
    get(testid: string): HTMLElement {
      const found = q(testid);
      if (!found) throw new Error(`no element with data-testid=${testid}`);
      return found;
    },
  };
}

// anywidget makes one widget per model, shared by its initialize and every view of it.
const widgets = new WeakMap<Model, Widget>();

export function widgetOf(model: Model): Widget {
  let widget = widgets.get(model);
  if (!widget) {
    widget = createWidget();
    widgets.set(model, widget);
  }
  return widget;
}

export function initialize(model: Model): () => void {
  return widgetOf(model).initialize({ model });
}

export function mount(model: Model): Mounted {
  const el = document.createElement("div");
  document.body.appendChild(el);
  let cleanup: () => void = () => {};
  act(() => {
    cleanup = widgetOf(model).render({ model, el });
  });
  return {
    el,
    cleanup: () =>
      act(() => {
        cleanup();
        el.remove();
      }),
    ...within(el),
  };
}

export function click(element: HTMLElement): void {
  act(() => element.click());
}

export function typeInto(element: HTMLElement, value: string): void {
  act(() => {
    (element as HTMLInputElement).value = value;
    element.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

export function choose(element: HTMLElement, value: string): void {
  act(() => {
    (element as HTMLSelectElement).value = value;
    element.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

export function pressEnter(element: HTMLElement, init: KeyboardEventInit = {}): void {
  act(() => {
    element.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true, ...init }));
  });
}

export function isDisabled(element: HTMLElement | null): boolean {
  if (!element) throw new Error("element missing");
  return (element as HTMLButtonElement).disabled;
}

export const approvalCard = {
  id: "int-approve",
  kind: "tool-approval",
  canResolve: true,
  message: "Delete the file?",
  readOnlyReason: null,
  data: null,
  toolCallId: "call-1",
  toolName: "delete_file",
  args: { path: "/tmp/a.txt", force: false },
  inputSchema: {
    type: "object",
    properties: { path: { type: "string", title: "Path", minLength: 1 }, force: { type: "boolean" } },
    required: ["path"],
  },
  responseSchema: null,
  createdAt: "2025-01-01T00:00:00Z",
  expiresAt: null,
};

type Slot = (sender: unknown, args: any) => void;

/** A Lumino-like signal: what JupyterLab's session context offers. */
export class FakeSignal {
  slots = new Set<Slot>();
  connect(slot: Slot): boolean {
    this.slots.add(slot);
    return true;
  }
  disconnect(slot: Slot): boolean {
    return this.slots.delete(slot);
  }
  emit(args: unknown): void {
    act(() => {
      for (const slot of [...this.slots]) slot(this, args);
    });
  }
}

/** Open a view's Debug panel as a person does: the details element opens and says so. */
export function openDebug(view: Mounted): void {
  const panel = view.get("pp-debug") as HTMLDetailsElement;
  act(() => {
    panel.open = true;
    panel.dispatchEvent(new Event("toggle"));
  });
}
