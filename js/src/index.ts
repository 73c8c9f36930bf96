/**
 * The anywidget module of pausepoint's RunView: `initialize` runs once per model,
 * applies the kernel's messages to the model and has run views saved with the notebook; `render` draws one view and returns the
 * cleanup that removes every listener and timer the view added.
 */
import { h, render as renderPreact } from "preact";
import { App } from "./components/App";
import { Inbox } from "./components/Inbox";
import { ModelContext } from "./components/Preview";
import { keepRunViewsInNotebook } from "./persist";
import { initializeModel } from "./state";
import type { Model } from "./types";
import "./widget.css";

/** One bundle, two views: a model with `view: "inbox"` is the store's inbox, else a run view. */
function isInbox(model: Model): boolean {
  return model.get("view") === "inbox";
}

function initialize({ model }: { model: Model }): () => void {
  if (!isInbox(model)) keepRunViewsInNotebook(model);
  return initializeModel(model);
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  el.classList.add("pp-host");
  renderPreact(h(ModelContext.Provider, { value: model }, h(isInbox(model) ? Inbox : App, { model, host: el })), el);
  return () => {
    renderPreact(null, el);
    el.classList.remove("pp-host");
  };
}

export default { initialize, render };
