import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Boundary } from "../src/components/Boundary";
import type { Item } from "../src/types";
import { approvalCard, click, FakeModel, mount, within } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
  document.body.innerHTML = "";
});

const RLO = "\u202E";
const ZWSP = "\u200B";

interface ThrowsProps {
  when: boolean;
}

function Throws({ when }: ThrowsProps): null {
  if (when) throw new TypeError("bad field");
  return null;
}

describe("a part that fails to draw", () => {
  it("shows its raw text and the error, and draws again when its value changes", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const el = document.createElement("div");
    document.body.appendChild(el);
    const draw = (value: unknown, fail: boolean) =>
      act(() => {
        render(
          <div>
            <Boundary value={value} label="message">
              <Throws when={fail} />
              <span>fine</span>
            </Boundary>
            <p>after</p>
          </div>,
          el,
        );
      });
    draw({ text: "<b>raw</b>" }, true);
    const fallback = within(el).get("pp-boundary");
    expect(fallback.textContent).toContain("This message could not be shown.");
    expect(within(el).get("pp-boundary-error").textContent).toBe("TypeError: bad field");
    // Raw text as text, not markup.
    expect(within(el).get("pp-boundary-raw").textContent).toContain('"text": "<b>raw</b>"');
    expect(el.querySelector("b")).toBeNull();
    expect(el.querySelector("p:last-child")?.textContent).toBe("after");
    draw({ text: "fixed" }, false);
    expect(within(el).q("pp-boundary")).toBeNull();
    expect(el.textContent).toContain("fine");
    render(null, el);
  });

  it("is one tool call: the rest of the transcript stays and its pending card stays answerable", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const items = [
      { type: "user", text: "go" },
      {
        type: "assistant",
        text: "",
        tool_calls: [
          { id: "bad", name: "broken", input: {} },
          { id: "call-1", name: "delete_file", input: { path: "/tmp/a.txt" } },
        ],
      },
      // A producer sent interrupts as a string: the call's own drawing throws.
      { type: "tool", id: "bad", name: "broken", input: {}, status: "failed", result: null, error: null, interrupts: "oops" },
      { type: "tool", id: "call-1", name: "delete_file", input: { path: "/tmp/a.txt" }, status: "interrupted", result: null, error: null, interrupts: [] },
    ] as unknown as Item[];
    const model = new FakeModel({ status: "interrupted", items, pending: [approvalCard] });
    const view = mount(model);
    const fallbacks = view.qa("pp-boundary");
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]!.dataset.label).toBe("tool call");
    expect(within(fallbacks[0]!).get("pp-boundary-raw").textContent).toContain('"interrupts": "oops"');
    expect(view.get("pp-pending-jump").textContent).toContain("1 waits for you");
    click(view.get("pp-approve"));
    expect(model.lastRequest()).toMatchObject({ type: "resume", interrupt: "int-approve", data: true });
    view.cleanup();
  });

  it("is one card: the other card still answers", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    // A card whose arguments are not an object cannot be drawn as a form or a title.
    const broken = { ...approvalCard, id: "int-bad", toolCallId: null, args: { toString: 1 }, data: { valueOf: null } };
    Object.defineProperty(broken, "message", {
      get: () => {
        throw new RangeError("no message");
      },
    });
    const good = { ...approvalCard, toolCallId: null };
    const model = new FakeModel({ status: "interrupted", pending: [broken, good] });
    const view = mount(model);
    expect(view.get("pp-boundary").dataset.label).toBe("card");
    expect(view.get("pp-boundary-error").textContent).toContain("RangeError");
    expect(view.qa("pp-card")).toHaveLength(1);
    click(view.get("pp-approve"));
    expect(model.lastRequest()).toMatchObject({ type: "resume", interrupt: "int-approve" });
    view.cleanup();
  });
});

describe("hidden characters in what a person approves", () => {
  it("are markers on the card, with a warning, in the title, message and arguments", () => {
    const card = {
      ...approvalCard,
      toolName: `send${ZWSP}_money`,
      message: `Send to alice@bank.com ${RLO}moc.rekcatta@eve?`,
      args: { to: `alice@bank.com ${RLO}moc.rekcatta@eve`, [`amount${ZWSP}`]: 5, amount: 1, note: `ok${" ".repeat(60)}; and more` },
      toolCallId: null,
    };
    const view = mount(new FakeModel({ status: "interrupted", pending: [card] }));
    const el = view.get("pp-card");
    expect(within(el).get("pp-hidden-warning").textContent).toContain("hidden or direction-changing characters");
    expect(el.textContent).not.toContain(RLO);
    expect(el.textContent).not.toContain(ZWSP);
    const markers = (testid: string) => within(el).get(testid).querySelectorAll('[data-testid="pp-hidden-char"]');
    expect([...markers("pp-card-title")].map((m) => m.textContent)).toContain("U+200B");
    const args = [...markers("pp-args")].map((m) => m.textContent);
    expect(args).toEqual(expect.arrayContaining(["U+202E", "U+200B", "60 spaces"]));
    expect(el.querySelector(".pp-card-message [data-testid='pp-hidden-char']")?.getAttribute("title")).toBe("U+202E right-to-left override");
    // Each marker is named for a screen reader: a role that takes a name, and the name.
    for (const marker of el.querySelectorAll('[data-testid="pp-hidden-char"]')) {
      expect(marker.getAttribute("role")).toBe("img");
      expect(marker.getAttribute("aria-label")).toBe(marker.getAttribute("title"));
    }
    expect(el.getAttribute("aria-label")).toContain("⟦U+202E⟧");
    view.cleanup();
  });

  it("show no warning on an ordinary card", () => {
    const view = mount(new FakeModel({ status: "interrupted", pending: [{ ...approvalCard, toolCallId: null }] }));
    expect(view.q("pp-hidden-warning")).toBeNull();
    expect(view.q("pp-hidden-char")).toBeNull();
    view.cleanup();
  });

  it("mark a tool call's summary and its details", () => {
    const items = [
      { type: "tool", id: "c1", name: `list${RLO}files`, input: { dir: "/tmp" }, status: "succeeded", result: `a${ZWSP}b`, error: null, interrupts: [] },
      { type: "tool", id: "c2", name: "plain", input: { dir: "/tmp" }, status: "succeeded", result: "ab", error: null, interrupts: [] },
    ] as unknown as Item[];
    const view = mount(new FakeModel({ status: "completed", items }));
    const [marked, plain] = view.qa("pp-tool-call");
    expect(within(marked!).q("pp-hidden-badge")).not.toBeNull();
    expect(within(plain!).q("pp-hidden-badge")).toBeNull();
    expect(marked!.querySelector(".pp-tool-name")!.textContent).toBe("listU+202Efiles");
    click(marked!.querySelector("summary")!);
    expect(within(marked!).get("pp-hidden-warning").textContent).toContain("This tool call contains");
    expect(within(marked!).get("pp-tool-result").querySelector('[data-testid="pp-hidden-char"]')?.textContent).toBe("U+200B");
    view.cleanup();
  });

  it("mark model text with a warning", () => {
    const view = mount(new FakeModel({ items: [{ type: "assistant", text: `Click [here](https://a.example)${ZWSP}`, tool_calls: [] }] }));
    expect(view.get("pp-item").querySelector('[data-testid="pp-hidden-warning"]')).not.toBeNull();
    expect(view.get("pp-item").querySelector('[data-testid="pp-hidden-char"]')?.textContent).toBe("U+200B");
    view.cleanup();
  });
});

describe("words for people", () => {
  it("no internal kind names anywhere in a view with every kind", () => {
    const items = [
      {
        type: "tool",
        id: "c1",
        name: "delete_file",
        input: {},
        status: "succeeded",
        result: null,
        error: null,
        interrupts: [
          {
            id: "i1",
            kind: "tool-approval",
            message: "ok?",
            data: null,
            state: null,
            response_schema: null,
            created_at: null,
            expires_at: null,
            resolution: { type: "resume", data: true, at: null },
          },
          {
            id: "i2",
            kind: "generic",
            message: "why?",
            data: null,
            state: null,
            response_schema: null,
            created_at: null,
            expires_at: null,
            resolution: { type: "resume", data: "because", at: null },
          },
        ],
      },
      { type: "assistant", text: "done", tool_calls: [] },
    ] as unknown as Item[];
    const pending = [
      { ...approvalCard, toolCallId: null },
      { ...approvalCard, id: "g", kind: "generic", toolName: null, args: null, toolCallId: null },
      { ...approvalCard, id: "u", kind: "unbound", canResolve: false, toolCallId: null },
    ];
    const view = mount(new FakeModel({ status: "interrupted", items, pending }));
    click(view.get("pp-tool-call").querySelector("summary")!);
    const debug = view.get("pp-debug") as HTMLDetailsElement;
    act(() => {
      debug.open = true;
      debug.dispatchEvent(new Event("toggle"));
    });
    expect(view.qa("pp-answered").map((li) => li.textContent)).toEqual([
      expect.stringContaining("Approval of delete_file: Approved"),
      expect.stringContaining("Question from delete_file: Answered: because"),
    ]);
    expect(view.el.textContent).not.toMatch(/tool-approval|generic|unbound|Resume data|resume/i);
    expect(view.get("pp-status").textContent).toBe("Waiting for an answer");
    expect(view.get("pp-pending-jump").textContent).toContain("2 wait for you"); // the unbound one is only shown
    view.cleanup();
  });
});
