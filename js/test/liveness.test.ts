import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { DISCONNECTED_CLASS, watchKernel } from "../src/kernel/liveness";
import { approvalCard, click, FakeModel, flushMicrotasks, initialize, isDisabled, mount, widgetOf, within } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

type Slot = (sender: unknown, args: any) => void;

/** A Lumino-like signal: what JupyterLab's session context offers. */
class FakeSignal {
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

    expect(view.get("pp-kernel-gone").textContent).toContain("Run the cell again");
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
