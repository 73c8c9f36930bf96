import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { DISCONNECTED_CLASS } from "../src/kernel/liveness";
import { approvalCard, click, FakeModel, initialize, isDisabled, mount, widgetOf, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

const entry = (runId: string, title: string, extra: Record<string, unknown> = {}) => ({
  runId,
  agent: "ops",
  title,
  createdAt: "2025-01-01T00:00:00Z",
  updatedAt: "2025-01-01T00:05:00Z",
  reason: null,
  cards: [{ ...approvalCard, id: `int-${runId}` }],
  ...extra,
});

/** An inbox whose kernel is gone: the newest runs it last listed, with their cards. */

/** Renders into an element ipywidgets already marked as having no live comm. */
function mountGone(model: FakeModel) {
  const el = document.createElement("div");
  el.classList.add(DISCONNECTED_CLASS);
  document.body.appendChild(el);
  let cleanup: () => void = () => {};
  act(() => {
    cleanup = widgetOf(model).render({ model, el });
  });
  return { el, cleanup: () => act(() => (cleanup(), el.remove())), ...within(el) };
}

function inbox(entries: unknown[], { gone = true } = {}) {
  const model = new FakeModel({ view: "inbox", entries, refreshed_at: "2025-01-01T00:06:00Z" });
  const dispose = initialize(model);
  const view = gone ? mountGone(model) : mount(model);
  return { model, view, done: () => (view.cleanup(), dispose()) };
}

describe("an inbox whose kernel is gone", () => {
  it("lists each run it last listed in the order given, with its cards, read-only", () => {
    const { view, done } = inbox([entry("run-b", "Delete b"), entry("run-a", "Delete a")]);
    const runs = view.qa("pp-inbox-entry");
    expect(runs.map((r) => r.dataset.runId)).toEqual(["run-b", "run-a"]);
    expect(runs[0]!.textContent).toContain("Delete b");
    expect(isDisabled(within(runs[0]!).get("pp-approve"))).toBe(true);
    expect(view.q("pp-triage")).toBeNull();
    expect(view.get("pp-inbox-count").textContent).toContain("2 runs waiting");
    expect(view.q("pp-status")).toBeNull(); // not a run view
    done();
  });

  it("drops an entry when the kernel's list no longer has it, and says when nothing waits", () => {
    const { model, view, done } = inbox([entry("run-a", "Delete a")]);
    model.setTrait("entries", []);
    expect(view.qa("pp-inbox-entry")).toHaveLength(0);
    expect(view.get("pp-inbox-empty").textContent).toContain("No run waits");
    done();
  });

  it("shows runs of unknown agents read-only with the reason", () => {
    const readOnly = { ...approvalCard, id: "int-x", canResolve: false, readOnlyReason: "This kernel cannot continue the run." };
    const { view, done } = inbox([entry("run-x", "Legacy", { reason: "Read-only: no agent 'legacy'.", cards: [readOnly] })]);
    expect(view.get("pp-inbox-reason").textContent).toContain("no agent 'legacy'");
    expect(view.q("pp-approve")).toBeNull();
    expect(view.get("pp-unanswerable").textContent).toContain("cannot continue");
    done();
  });

  it("names a damaged run as an alert, with no cards to answer", () => {
    const damaged = entry("run-bad", "", { reason: "Run run-bad cannot be read: its pending column is not JSON", damaged: true, cards: [] });
    const { view, done } = inbox([damaged, entry("run-ok", "Refund")]);
    const reason = view.get("pp-inbox-reason");
    expect(reason.dataset.damaged).toBe("true");
    expect(reason.getAttribute("role")).toBe("alert");
    expect(reason.textContent).toContain("run-bad");
    expect(view.qa("pp-inbox-entry")).toHaveLength(2); // the healthy run stays listed
    done();
  });

  it("Refresh asks a live kernel to read the store again", () => {
    const { model, view, done } = inbox([], { gone: false });
    click(view.get("pp-inbox-refresh"));
    expect(model.lastRequest()).toEqual({ type: "refresh", requestId: expect.any(String) });
    done();
  });
});
