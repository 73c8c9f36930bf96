/**
 * Run views are saved with the notebook. JupyterLab and Notebook 7 keep widget state in
 * a saved notebook only when "Save Widget State Automatically" is on (it is off by
 * default); without it, a view reopened later shows "Error displaying widget: model not
 * found" instead of the run. So when the notebook is saved, the state of this notebook's
 * run views (and the models they refer to, such as their layout) is written into its
 * widget-state metadata, next to any state already there; the reopened view is then drawn
 * from it, read-only (see liveness.ts).
 *
 * Kept: entries of other widgets, and run views that an output still shows. Dropped: run
 * views that no output shows any more (a cell was run again), and shared front ends (the
 * view's code, one model per kernel that every run view refers to) no entry refers to.
 */
import type { Model } from "../types";

export const STATE_MIMETYPE = "application/vnd.jupyter.widget-state+json";
export const VIEW_MIMETYPE = "application/vnd.jupyter.widget-view+json";
export const OUR_ID = "pausepoint.widget._view.RunView";
/** The state key that marks the shared model holding the view's code (widget/_bundle.py). */
export const FRONT_END_KEY = "pausepoint_front_end";

export interface ModelEntry {
  model_name: string;
  model_module: string;
  model_module_version: string;
  state: Record<string, unknown>;
}

export interface WidgetState {
  version_major: number;
  version_minor: number;
  state: Record<string, ModelEntry>;
}

type Slot<A> = (sender: unknown, args: A) => void;

interface Signal<A> {
  connect(slot: Slot<A>): unknown;
  disconnect(slot: Slot<A>): unknown;
}

/** The parts of jupyterlab-manager's notebook widget manager and document context used. */
export interface ManagerLike {
  get_state_sync(options: { drop_defaults: boolean }): WidgetState;
  context: {
    saveState: Signal<string>;
    model: {
      getMetadata(key: string): unknown;
      setMetadata(key: string, value: unknown): void;
      cells: Iterable<{ outputs?: { length: number; get(index: number): { data: Record<string, unknown> } } }>;
    };
  };
}

function isOurs(entry: ModelEntry | undefined): boolean {
  return entry?.state?._anywidget_id === OUR_ID;
}

/** The model that holds the run view's code for every run view of a kernel. */
function isFrontEnd(entry: ModelEntry | undefined): boolean {
  return typeof entry?.state?.[FRONT_END_KEY] === "string";
}

/** Model ids that `value` refers to (`"IPY_MODEL_<id>"`, at any depth). */
function references(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === "string" && value.startsWith("IPY_MODEL_")) into.add(value.slice("IPY_MODEL_".length));
  else if (Array.isArray(value)) for (const v of value) references(v, into);
  else if (value && typeof value === "object") for (const v of Object.values(value)) references(v, into);
  return into;
}

/**
 * The widget state to save: `saved` (what the notebook holds) with this page's run views
 * from `live` put in, keeping only run views that `shown` (model ids of outputs) holds.
 * `shown === null` means the outputs could not be read: then nothing saved is dropped.
 */
export function mergeState(saved: WidgetState | null, live: WidgetState, shown: Set<string> | null): WidgetState {
  const state: Record<string, ModelEntry> = {};
  const keep = (id: string) => shown === null || shown.has(id);
  for (const [id, entry] of Object.entries(saved?.state ?? {})) {
    if (!isOurs(entry) || keep(id)) state[id] = entry;
  }
  for (const [id, entry] of Object.entries(live.state)) {
    if (!isOurs(entry) || !keep(id)) continue;
    state[id] = entry;
    for (const ref of references(entry.state, new Set())) {
      const referenced = live.state[ref];
      if (referenced) state[ref] = referenced;
    }
  }
  // Models that only dropped run views referred to stay: another widget may use them too.
  // Our shared front ends (the view's code, once per kernel) go when nothing refers to
  // them: each kernel session makes a new one, and an old one is some 100 KB.
  const referred = new Set<string>();
  for (const entry of Object.values(state)) if (!isFrontEnd(entry)) references(entry.state, referred);
  for (const [id, entry] of Object.entries(state)) if (isFrontEnd(entry) && !referred.has(id)) delete state[id];
  return { version_major: live.version_major ?? 2, version_minor: live.version_minor ?? 0, state };
}

function shownModelIds(manager: ManagerLike): Set<string> | null {
  try {
    const ids = new Set<string>();
    for (const cell of manager.context.model.cells) {
      const outputs = cell.outputs;
      if (!outputs) continue;
      for (let i = 0; i < outputs.length; i += 1) {
        const view = outputs.get(i).data[VIEW_MIMETYPE] as { model_id?: unknown } | undefined;
        if (typeof view?.model_id === "string") ids.add(view.model_id);
      }
    }
    return ids;
  } catch {
    return null;
  }
}

function asManager(model: Model): ManagerLike | null {
  try {
    const manager = (model as { widget_manager?: Partial<ManagerLike> }).widget_manager;
    const context = manager?.context;
    if (
      typeof manager?.get_state_sync === "function" &&
      typeof context?.saveState?.connect === "function" &&
      typeof context.model?.setMetadata === "function" &&
      typeof context.model?.getMetadata === "function"
    ) {
      return manager as ManagerLike;
    }
  } catch {
    // A host whose manager has no document context: nothing to save into.
  }
  return null;
}

/** Writes this notebook's run views into its widget-state metadata. */
export function saveRunViews(manager: ManagerLike): void {
  const live = manager.get_state_sync({ drop_defaults: true });
  const saved = (manager.context.model.getMetadata("widgets") as Record<string, WidgetState> | undefined)?.[STATE_MIMETYPE] ?? null;
  const merged = mergeState(saved, live, shownModelIds(manager));
  if (Object.keys(merged.state).length === 0 && saved === null) return;
  manager.context.model.setMetadata("widgets", { [STATE_MIMETYPE]: merged });
}

const hooked = new WeakSet<object>();

/** Once per notebook: save the run views whenever the notebook is saved. */
export function keepRunViewsInNotebook(model: Model): void {
  const manager = asManager(model);
  if (!manager || hooked.has(manager)) return;
  hooked.add(manager);
  manager.context.saveState.connect((_, phase) => {
    if (phase !== "started") return;
    try {
      saveRunViews(manager);
    } catch (err) {
      console.warn("pausepoint: could not save the run views with the notebook", err);
    }
  });
}
