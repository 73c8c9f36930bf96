import { describe, expect, it } from "vitest";
import {
  FRONT_END_KEY,
  keepRunViewsInNotebook,
  type ModelEntry,
  mergeState,
  OUR_ID,
  STATE_MIMETYPE,
  VIEW_MIMETYPE,
  type WidgetState,
} from "../src/kernel/persist";
import { FakeModel } from "./helpers";

const run = (status: string, layout = "L1"): ModelEntry => ({
  model_name: "AnyModel",
  model_module: "anywidget",
  model_module_version: "~0.11.*",
  state: { _anywidget_id: OUR_ID, status, layout: `IPY_MODEL_${layout}` },
});
const layout: ModelEntry = { model_name: "LayoutModel", model_module: "@jupyter-widgets/base", model_module_version: "2.0.0", state: {} };
const slider: ModelEntry = { model_name: "IntSliderModel", model_module: "@jupyter-widgets/controls", model_module_version: "2.0.0", state: { value: 3 } };
const of = (state: Record<string, ModelEntry>): WidgetState => ({ version_major: 2, version_minor: 0, state });

describe("mergeState", () => {
  it("adds this page's run views with their layouts, and only those", () => {
    const merged = mergeState(null, of({ R1: run("interrupted"), L1: layout, S1: slider, L9: layout }), new Set(["R1", "S1"]));
    expect(Object.keys(merged.state).sort()).toEqual(["L1", "R1"]);
    expect(merged.state.R1.state.status).toBe("interrupted");
  });

  it("keeps other widgets' saved state and run views an output still shows", () => {
    const saved = of({ S1: slider, OLD: run("completed", "L0"), L0: layout, GONE: run("failed") });
    const merged = mergeState(saved, of({ R1: run("running"), L1: layout }), new Set(["OLD", "R1"]));
    expect(Object.keys(merged.state).sort()).toEqual(["L0", "L1", "OLD", "R1", "S1"]);
  });

  it("replaces a saved run view with its live state", () => {
    const merged = mergeState(of({ R1: run("running") }), of({ R1: run("completed"), L1: layout }), new Set(["R1"]));
    expect(merged.state.R1.state.status).toBe("completed");
  });

  it("keeps the shared front end the run views refer to, once, and drops an old session's", () => {
    const frontEnd = (digest: string): ModelEntry => ({
      model_name: "WidgetModel",
      model_module: "@jupyter-widgets/base",
      model_module_version: "2.0.0",
      state: { [FRONT_END_KEY]: digest, code: "…" },
    });
    const view = (status: string, fe: string): ModelEntry => ({ ...run(status), state: { ...run(status).state, _front_end: `IPY_MODEL_${fe}` } });
    const saved = of({ OLD: view("completed", "FE0"), FE0: frontEnd("a"), L1: layout });
    const live = of({ R1: view("running", "FE1"), R2: view("completed", "FE1"), FE1: frontEnd("b"), L1: layout });
    const merged = mergeState(saved, live, new Set(["R1", "R2"]));
    expect(Object.keys(merged.state).sort()).toEqual(["FE1", "L1", "R1", "R2"]);
  });

  it("drops nothing when the outputs cannot be read", () => {
    const merged = mergeState(of({ OLD: run("completed") }), of({ R1: run("running"), L1: layout }), null);
    expect(Object.keys(merged.state).sort()).toEqual(["L1", "OLD", "R1"]);
  });
});

class FakeSignal {
  slots: Array<(sender: unknown, args: string) => void> = [];
  connect(slot: (sender: unknown, args: string) => void) {
    this.slots.push(slot);
  }
  disconnect() {}
  emit(args: string) {
    for (const slot of this.slots) slot(this, args);
  }
}

function fakeManager(live: WidgetState, shown: string[]) {
  const metadata = new Map<string, unknown>();
  const saveState = new FakeSignal();
  const manager = {
    get_state_sync: () => live,
    context: {
      saveState,
      model: {
        getMetadata: (key: string) => metadata.get(key),
        setMetadata: (key: string, value: unknown) => metadata.set(key, value),
        cells: shown.map((id) => ({ outputs: { length: 1, get: () => ({ data: { [VIEW_MIMETYPE]: { model_id: id } } }) } })),
      },
    },
  };
  return { manager, metadata, saveState };
}

describe("keepRunViewsInNotebook", () => {
  it("writes the run views into the notebook when a save starts, hooked once per notebook", () => {
    const { manager, metadata, saveState } = fakeManager(of({ R1: run("interrupted"), L1: layout }), ["R1"]);
    const one = new FakeModel();
    const two = new FakeModel();
    Object.assign(one, { widget_manager: manager });
    Object.assign(two, { widget_manager: manager });

    keepRunViewsInNotebook(one);
    keepRunViewsInNotebook(two);
    expect(saveState.slots).toHaveLength(1);
    saveState.emit("completed");
    expect(metadata.size).toBe(0);

    saveState.emit("started");

    const saved = (metadata.get("widgets") as Record<string, WidgetState>)[STATE_MIMETYPE];
    expect(Object.keys(saved.state).sort()).toEqual(["L1", "R1"]);
  });

  it("does nothing where the host has no notebook to save into", () => {
    const model = new FakeModel();
    Object.assign(model, { widget_manager: { get_state_sync: () => of({}) } });
    expect(() => keepRunViewsInNotebook(model)).not.toThrow();
    expect(() => keepRunViewsInNotebook(new FakeModel())).not.toThrow();
  });
});
