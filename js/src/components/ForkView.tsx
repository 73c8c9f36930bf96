import type { Host } from "@anywidget/types";
import { createContext } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { Revealed } from "./Revealed";
import "./fork-view.css";

/** anywidget's host of the view being drawn: it draws another widget's view inside this one. */
export const HostContext = createContext<Host | null>(null);

const MODEL_REF = /^IPY_MODEL_/;

/** What draws a child widget's view into an element; returns its cleanup. */
type Draw = (el: HTMLElement, signal: AbortSignal) => Promise<(() => void) | undefined>;

interface ViewLike {
  el: HTMLElement;
  remove(): void;
}

interface ManagerLike {
  get_model(id: string): Promise<unknown>;
  create_view?(model: unknown, options?: object): Promise<ViewLike>;
}

/** How to draw the widget `ref` (`IPY_MODEL_<id>`): through anywidget's host when there is
 * one, else through the widget manager's own views. */
function drawer(ref: string, host: Host | null, manager: ManagerLike | undefined): Draw | null {
  const id = ref.replace(MODEL_REF, "");
  if (host) {
    return async (el, signal) => {
      const widget = await host.getWidget(`anywidget:${id}`);
      await widget.render({ el, signal });
      return undefined;
    };
  }
  const create = manager?.create_view;
  if (!manager || !create) return null;
  return async (el, signal) => {
    const view = await create.call(manager, await manager.get_model(id), {});
    if (signal.aborted) {
      view.remove();
      return undefined;
    }
    el.appendChild(view.el);
    return () => view.remove();
  };
}

interface ForkViewProps {
  refId: string;
  name: string;
  manager?: ManagerLike;
  onClose?: () => void;
}

/**
 * A fork shown in place below its parent's view: the fork's own live view (its
 * transcript, its cards answerable there, its own Debug panel), drawn by the widget
 * manager from the reference the kernel sends in `fork_view`.
 */
export function ForkView({ refId, name, manager, onClose }: ForkViewProps) {
  const host = useContext(HostContext);
  const box = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    const el = box.current;
    const draw = drawer(refId, host, manager);
    if (!el || !draw) {
      setProblem("This page cannot draw the fork's view here; show it from code with run.forks[i].");
      return;
    }
    setProblem(null);
    const controller = new AbortController();
    let cleanup: (() => void) | undefined;
    draw(el, controller.signal)
      .then((done) => {
        cleanup = done;
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setProblem(`The fork's view could not be drawn: ${String(err)}`);
      });
    return () => {
      controller.abort();
      cleanup?.();
      el.replaceChildren();
    };
  }, [refId, host, manager]);
  return (
    <section class="pp-fork-view" data-testid="pp-fork-view" aria-label={`Fork: ${name}`}>
      <div class="pp-fork-view-head">
        <span class="pp-badge">Fork</span>
        <strong data-testid="pp-fork-view-name">
          <Revealed text={name} />
        </strong>
        {onClose ? (
          <button type="button" class="pp-button pp-button-quiet" data-testid="pp-fork-view-close" onClick={onClose}>
            Close
          </button>
        ) : null}
      </div>
      {problem ? (
        <p class="pp-muted" data-testid="pp-fork-view-problem">
          <Revealed text={problem} />
        </p>
      ) : null}
      <div class="pp-fork-view-body" ref={box} />
    </section>
  );
}
