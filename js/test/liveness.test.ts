import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { DISCONNECTED_CLASS, watchKernel } from "../src/kernel/liveness";
import { approvalCard, click, FakeModel, FakeSignal, flushMicrotasks, initialize, isDisabled, mount, widgetOf, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

function withSession(model: FakeModel) {
  const sessionContext = { statusChanged: new FakeSignal(), kernelChanged: new FakeSignal() };
  (model as unknown as { widget_manager: unknown }).widget_manager = { context: { sessionContext } };
  return sessionContext;
}

/** Renders into an element that ipywidgets already marked as having no live comm. */
function mountDisconnected(model: FakeModel) {
  const el = document.createElement("div");
  el.classList.add(DISCONNECTED_CLASS);
  document.body.appendChild(el);
  let cleanup: () => void = () => {};
  act(() => {
    cleanup = widgetOf(model).render({ model, el });
  });
  return { el, cleanup: () => act(() => cleanup()), ...within(el) };
}

function pausedModel() {
  const model = new FakeModel({ status: "interrupted", pending: [approvalCard] });
  initialize(model);
  return model;
}

describe("a view whose kernel is gone", () => {
  it("drawn from saved state, says so and offers no answer", () => {
    const model = pausedModel();
    const view = mountDisconnected(model);

    expect(view.get("pp-kernel-gone").textContent).toContain("gone unless it was saved");
    // Words and code read apart, as a person reads them.
    const shown = view.get("pp-kernel-gone").textContent?.replace(/\s+/g, " ");
    expect(shown).toContain("saved with run.prompt.model_dump_json() is rebuilt");
    const card = view.get("pp-card");
    expect(card.dataset.readonly).toBe("true");
    expect(isDisabled(view.get("pp-approve"))).toBe(true);
    expect(isDisabled(view.get("pp-reject"))).toBe(true);
    expect(isDisabled(view.get("pp-edit-args"))).toBe(true);
    click(view.get("pp-approve"));
    expect(model.sent).toEqual([]);
    view.cleanup();
  });

  it("turns read-only when ipywidgets marks the comm dead, before any click", async () => {
    const model = pausedModel();
    const view = mount(model);
    expect(view.q("pp-kernel-gone")).toBeNull();
    expect(isDisabled(view.get("pp-approve"))).toBe(false);

    // What ipywidgets does on a kernel restart: comm_live = false, then the class.
    await act(async () => {
      view.el.classList.add(DISCONNECTED_CLASS);
      model.emit("comm_live_update");
      await flushMicrotasks();
    });

    expect(view.q("pp-kernel-gone")).not.toBeNull();
    expect(isDisabled(view.get("pp-approve"))).toBe(true);
    expect(model.sent).toEqual([]);
    view.cleanup();
  });

  it("turns read-only when the notebook's kernel restarts or dies", () => {
    for (const status of ["restarting", "dead"]) {
      const model = pausedModel();
      const session = withSession(model);
      const view = mount(model);
      session.statusChanged.emit("busy");
      expect(view.q("pp-kernel-gone")).toBeNull();

      session.statusChanged.emit(status);

      expect(view.q("pp-kernel-gone")).not.toBeNull();
      expect(isDisabled(view.get("pp-approve"))).toBe(true);
      view.cleanup();
    }
  });

  it("turns read-only when the kernel is shut down or replaced, and stays so", () => {
    const model = pausedModel();
    const session = withSession(model);
    const view = mount(model);

    session.kernelChanged.emit({ oldValue: { id: "k1" }, newValue: null });
    expect(view.q("pp-kernel-gone")).not.toBeNull();

    // A new kernel for the notebook does not know this view's model.
    session.kernelChanged.emit({ oldValue: null, newValue: { id: "k2" } });
    session.statusChanged.emit("idle");
    expect(view.q("pp-kernel-gone")).not.toBeNull();
    expect(isDisabled(view.get("pp-approve"))).toBe(true);
    view.cleanup();
  });

  it("a live view with a session stays answerable", () => {
    const model = pausedModel();
    const session = withSession(model);
    const view = mount(model);
    session.kernelChanged.emit({ oldValue: null, newValue: { id: "k1" } });
    session.statusChanged.emit("idle");

    click(view.get("pp-approve"));

    expect(view.q("pp-kernel-gone")).toBeNull();
    expect(model.sent.map((m) => m.type)).toEqual(["resume"]);
    view.cleanup();
  });

  it("names the line that rebuilds a stored run", () => {
    const model = new FakeModel({ status: "interrupted", pending: [approvalCard], load_line: 'agent.load("run_7")' });
    initialize(model);
    const view = mountDisconnected(model);

    const notice = view.get("pp-kernel-gone");
    expect(notice.dataset.stored).toBe("true");
    expect(view.get("pp-load-line").textContent).toBe('agent.load("run_7")');
    expect(notice.textContent).not.toContain("gone unless it was saved");
    view.cleanup();
  });

  it("says a run kept in memory is gone unless it was saved", () => {
    const view = mountDisconnected(pausedModel());

    const notice = view.get("pp-kernel-gone");
    expect(notice.dataset.stored).toBe("false");
    expect(notice.textContent).toContain("gone unless it was saved");
    expect(notice.textContent).toContain("AgentRun(agent, Prompt.model_validate_json(saved))");
    view.cleanup();
  });

  it("suggests no cell that IPython would take for a magic", () => {
    for (const load_line of ["", 'agent.load("run_7")']) {
      const model = new FakeModel({ status: "interrupted", pending: [approvalCard], load_line });
      initialize(model);
      const view = mountDisconnected(model);
      const notice = view.get("pp-kernel-gone");
      expect(notice.textContent?.toLowerCase()).not.toContain("run the cell");
      // Every piece of code it shows is a call or an expression, never a bare `run`.
      const code = [...notice.querySelectorAll("code")].map((c) => c.textContent?.trim());
      expect(code.length).toBeGreaterThan(0);
      for (const line of code) expect(line).toMatch(/\(/);
      view.cleanup();
    }
  });

  it("turns the header neutral: what the run was doing, no spinner, no jump to a card", () => {
    for (const status of ["interrupted", "running", "completed"] as const) {
      const model = new FakeModel({ status, pending: status === "interrupted" ? [approvalCard] : [], started_at: Date.now() });
      initialize(model);
      const view = mountDisconnected(model);
      const header = view.get("pp-status");
      expect(header.classList.contains("pp-status-gone")).toBe(true);
      expect(header.classList.contains(`pp-status-${status}`)).toBe(false);
      expect(header.dataset.gone).toBe("true");
      expect(header.querySelector(".pp-spinner")).toBeNull();
      expect(view.q("pp-pending-jump")).toBeNull();
      expect(view.q("pp-stop")).toBeNull();
      expect(header.textContent).not.toContain("Waiting for an answer");
      expect(header.textContent).toContain({ interrupted: "Was waiting for an answer", running: "Was running", completed: "Completed" }[status]);
      view.cleanup();
    }
  });

  it("a live header keeps its colour and words", () => {
    const view = mount(pausedModel());
    const header = view.get("pp-status");
    expect(header.classList.contains("pp-status-interrupted")).toBe(true);
    expect(header.textContent).toContain("Waiting for an answer");
    expect(view.q("pp-pending-jump")).not.toBeNull();
    view.cleanup();
  });

  it("shows the note without cards too", () => {
    const model = new FakeModel({ status: "completed" });
    const view = mountDisconnected(model);
    expect(view.q("pp-kernel-gone")).not.toBeNull();
    expect(view.q("pp-card")).toBeNull();
    view.cleanup();
  });
});

describe("watchKernel", () => {
  it("reports each change once and removes every listener on cleanup", () => {
    const model = new FakeModel();
    const session = withSession(model);
    const el = document.createElement("div");
    const seen: boolean[] = [];

    const stop = watchKernel(model, el, (gone) => seen.push(gone));
    session.statusChanged.emit("idle");
    session.statusChanged.emit("dead");
    session.statusChanged.emit("dead");
    stop();

    expect(seen).toEqual([false, true]);
    expect(session.statusChanged.slots.size).toBe(0);
    expect(session.kernelChanged.slots.size).toBe(0);
    expect(model.listenerCount()).toBe(0);
  });

  it("follows the disconnected class both ways while the session is fine", async () => {
    const model = new FakeModel();
    const el = document.createElement("div");
    const seen: boolean[] = [];
    const stop = watchKernel(model, el, (gone) => seen.push(gone));

    el.classList.add(DISCONNECTED_CLASS);
    await flushMicrotasks();
    el.classList.remove(DISCONNECTED_CLASS);
    await flushMicrotasks();
    stop();

    expect(seen).toEqual([false, true, false]);
  });

  it("works with a widget manager that has no session (other hosts)", () => {
    const model = new FakeModel();
    (model as unknown as { widget_manager: unknown }).widget_manager = {
      get context(): never {
        throw new Error("no context here");
      },
    };
    const seen: boolean[] = [];
    const stop = watchKernel(model, document.createElement("div"), (gone) => seen.push(gone));
    stop();
    expect(seen).toEqual([false]);
  });
});
