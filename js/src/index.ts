/**
 * The anywidget module of pausepoint's RunView and Inbox. The default export is a
 * factory that anywidget calls once per model, so each widget owns its state (the requests
 * it has out to the kernel) and shares it between the views of that one model only.
 * `initialize` runs once per model, applies the kernel's messages to the model and has run
 * views saved with the notebook; `render` draws one view. Each returns the cleanup that
 * removes every listener and timer it added.
 */

import type { Host } from "@anywidget/types";
import { h, render as renderPreact } from "preact";
import { App } from "./components/App";
import { HostContext } from "./components/ForkView";
import { Inbox } from "./components/Inbox";
import { keepRunViewsInNotebook } from "./kernel/persist";
import { createRequests, KernelContext } from "./kernel/requests";
import { initializeModel } from "./kernel/state";
import type { Model } from "./types";
import "./widget.css";
import "./host-defaults.css";

/** One bundle, two views: a model with `view: "inbox"` is the store's inbox, else a run view. */
function isInbox(model: Model): boolean {
  return model.get("view") === "inbox";
}

export interface Widget {
  initialize(props: { model: Model }): () => void;
  /** `host` is anywidget's (0.11 on): through it a run view draws its fork's view. */
  render(props: { model: Model; el: HTMLElement; host?: Host }): () => void;
  /** How many requests of this widget wait on the kernel. */
  pendingRequests(): number;
}

export default function createWidget(): Widget {
  const requests = createRequests();
  return {
    initialize({ model }) {
      if (!isInbox(model)) keepRunViewsInNotebook(model);
      const stop = initializeModel(model, requests);
      return () => {
        stop();
        requests.close();
      };
    },
    render({ model, el, host }) {
      el.classList.add("pp-host");
      const view = h(isInbox(model) ? Inbox : App, { model, host: el });
      const kernel = h(KernelContext.Provider, { value: requests.kernel(model) }, view);
      renderPreact(h(HostContext.Provider, { value: host ?? null }, kernel), el);
      return () => {
        renderPreact(null, el);
        el.classList.remove("pp-host");
      };
    },
    pendingRequests: () => requests.size(),
  };
}
