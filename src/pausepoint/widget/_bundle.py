"""The view's front end as installed: the bundled module, or a fallback that says what to do.

The bundle is large (about 250 KB), and anywidget keeps a widget's module in its state, so
a notebook would save it once for every view. A view's module is instead a small loader
(`LOADER`), and its code is saved nowhere: the loader fetches it from the Jupyter server
where pausepoint is installed (`pausepoint_server`, by the digest of the bundle), and when
that fails (no server extension: VS Code, Voila, another version of pausepoint beside the
server) asks the kernel for it with a message on the kernel's one `FrontEnd` model, which
every view refers to and which holds only the digest. A view saved by another build,
reopened without its kernel, is drawn by the bundle installed beside the server. The page
imports each bundle once.
"""

from __future__ import annotations

import hashlib
import json
import threading
from functools import cache
from pathlib import Path
from typing import Any

import ipywidgets  # type: ignore[import-untyped]
import traitlets

from pausepoint_server import Bundle, read_bundle

__all__ = ["LOADER", "MISSING_BUNDLE_MESSAGE", "FrontEnd", "front_end", "shared_front_end"]

MISSING_BUNDLE_MESSAGE = """\
pausepoint: this view cannot be shown, because the installed package has no front end \
(pausepoint/widget/static/widget.js is missing).

Installed with pip? Reinstall pausepoint from a release wheel or sdist: both carry the \
front end, and installing them needs no node. Installing from source (a git checkout or \
a git URL) builds the front end, which needs node >= 18 with npm on PATH.

Working in a pausepoint checkout? Run `make js` there, then restart the kernel.

The run itself works without the view: answer from code with `await run.resume(...)` or \
`await run.reject(...)`."""
_MISSING_BUNDLE = f"""
export default {{ render({{ el }}) {{
  const note = document.createElement("pre");
  note.style.whiteSpace = "pre-wrap";
  note.textContent = {json.dumps(MISSING_BUNDLE_MESSAGE)};
  el.replaceChildren(note);
}} }};
"""


def front_end(static: Path) -> tuple[Path | str, Path | str]:
    """The view's ESM module and CSS from `static`, or the fallback that says what to do."""
    script, css = static / "widget.js", static / "widget.css"
    return (
        script if script.exists() else _MISSING_BUNDLE,
        css if css.exists() else "",
    )


LOADER = """\
// pausepoint's view. Its code is not saved with it: the Jupyter server where pausepoint is
// installed serves it, or else the kernel sends it; `_front_end` names it by digest.
const loaded = (globalThis.__pausepointFrontEnds ??= new Map());

async function fromServer(digest) {
  const config = document.getElementById("jupyter-config-data");
  if (!config) throw new Error("no Jupyter server");
  const base = JSON.parse(config.textContent).baseUrl ?? "/";
  return Promise.all(["widget.js", "widget.css"].map(async (name) => {
    const url = new URL(`${base}pausepoint/static/${digest}/${name}`, location.href);
    const res = await fetch(url);
    if (!res.ok || res.redirected) throw new Error(`server: ${res.status} for ${url.pathname}`);
    return res.text();
  }));
}

// A host that does not say whether the kernel is there (marimo's models have no
// `comm_live`) gets this long for the kernel's answer.
const KERNEL_MS = 60000;

function fromKernel(shared) {
  return new Promise((resolve, reject) => {
    if (shared.comm_live === false) throw new Error("kernel: gone");
    const id = Math.random().toString(36).slice(2);
    const timer = shared.comm_live === undefined
      ? setTimeout(() => done(reject, new Error("kernel: no answer")), KERNEL_MS)
      : null;
    const done = (then, value) => {
      clearTimeout(timer);
      shared.off("msg:custom", reply);
      shared.off("comm_live_update", gone);
      then(value);
    };
    const reply = (msg) => msg?.id === id && done(resolve, [msg.js, msg.css]);
    const gone = () => shared.comm_live === false && done(reject, new Error("kernel: gone"));
    shared.on("msg:custom", reply);
    shared.on("comm_live_update", gone);
    shared.send({ type: "front-end", id });
  });
}

async function fetchCode(shared, digest) {
  const inline = shared.get("code");  // the note of a kernel without the bundle
  if (inline) return [inline, ""];
  // Its own code from the server or the kernel; else (saved before an upgrade, kernel
  // gone) the code installed beside the server.
  const errors = [];
  const sources = [[fromServer, digest], [fromKernel, shared], [fromServer, "installed"]];
  for (const [from, arg] of sources) {
    try {
      return await from(arg);
    } catch (err) {
      errors.push(err.message);
    }
  }
  throw new Error(errors.join("; "));
}

async function importCode(shared, digest) {
  const [js, css] = await fetchCode(shared, digest);
  const url = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
  try {
    return { mod: await import(/* webpackIgnore: true */ url), css };
  } finally {
    URL.revokeObjectURL(url);
  }
}

// The page's styles, or a shadow root's when the host draws widgets in one (marimo):
// styles of the page do not reach into it.
function addStyle(root, digest, css) {
  const id = "pausepoint-front-end-style";
  const home = root instanceof ShadowRoot ? root : document.head;
  const style = root.getElementById(id)
    ?? home.appendChild(Object.assign(document.createElement("style"), { id }));
  if (style.dataset.digest === digest) return;
  style.dataset.digest = digest;
  style.textContent = css;
}

// A host without JupyterLab's theme variables gets the view's own defaults for them.
function fitHost(el, digest, css) {
  const root = el.getRootNode();
  if (root instanceof ShadowRoot) addStyle(root, digest, css);
  if (!getComputedStyle(el).getPropertyValue("--jp-layout-color1").trim()) {
    el.classList.add("pp-host-plain");
  }
}

const unavailable = (digest, err) => ({
  render({ el }) {
    const note = Object.assign(document.createElement("pre"), { style: "white-space: pre-wrap" });
    note.textContent = `pausepoint: this view cannot be drawn here: neither the Jupyter \
server nor the kernel has its code (pausepoint bundle ${digest}; ${err.message}). Is \
pausepoint installed where Jupyter runs, in the version that made the view? Run the cell \
again to draw it with the pausepoint installed now.`;
    el.replaceChildren(note);
  },
});

async function load(model) {
  const ref = model.get("_front_end");
  const shared = await model.widget_manager.get_model(String(ref).replace(/^IPY_MODEL_/, ""));
  const digest = shared.get("pausepoint_front_end");
  if (!loaded.has(digest)) loaded.set(digest, importCode(shared, digest));
  try {
    const { mod, css } = await loaded.get(digest);
    addStyle(document, digest, css);
    const widget = typeof mod.default === "function" ? await mod.default() : mod.default;
    return { widget, fit: (el) => fitHost(el, digest, css) };
  } catch (err) {
    loaded.delete(digest);  // a later view may find the code (a kernel started again)
    return { widget: unavailable(digest, err), fit: () => {} };
  }
}

// anywidget drops a model's messages for good when `initialize` takes over 2 s, and the
// code may take longer to come: `initialize` returns at once, keeping the kernel's
// messages for the code's own listeners, and `render` waits for the code.
export default () => {
  let ready;
  return {
    initialize({ model, ...props }) {
      const early = [];
      const keep = (...args) => early.push(args);
      model.on("msg:custom", keep);
      const on = (name, callback) => {
        model.on(name, callback);
        if (name === "msg:custom") for (const args of early) callback(...args);
      };
      let cleanup;
      ready = load(model)
        .then(async (loaded) => {
          cleanup = await loaded.widget.initialize?.({ ...props, model: { ...model, on } });
          return loaded;
        })
        .finally(() => {
          model.off("msg:custom", keep);
          early.length = 0;
        });
      return () => ready.then(() => typeof cleanup === "function" && cleanup());
    },
    async render(props) {
      const { widget, fit } = await ready;
      fit(props.el);
      return widget.render?.(props);
    },
  };
};
"""


class FrontEnd(ipywidgets.Widget):  # type: ignore[misc]
    """Which front end this kernel's views use, once per kernel: each view refers to it.

    It holds the bundle's digest, not its code (the Jupyter server serves that), and
    sends the code to a view that asks for it (`{type: "front-end", id}`) as a message
    (`{type: "front-end", id, js, css}`), which is not saved with the notebook. Without
    a bundle, `code` is the small module that says what to do.
    """

    pausepoint_front_end = traitlets.Unicode("").tag(sync=True)
    """The digest of the bundle (`pausepoint_server.read_bundle`); marks this model."""
    code = traitlets.Unicode("").tag(sync=True)

    def __init__(self, static: Path) -> None:
        bundle = _installed(static)
        if bundle is None:
            digest = hashlib.sha256(_MISSING_BUNDLE.encode()).hexdigest()[:16]
            super().__init__(pausepoint_front_end=digest, code=_MISSING_BUNDLE)
        else:
            super().__init__(pausepoint_front_end=bundle.digest)
        self._bundle = bundle
        self.on_msg(self._send_code)

    def _send_code(self, _: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("type") != "front-end":
            return
        if self._bundle is None:
            return
        js, css = (self._bundle.files[name].decode("utf-8") for name in ("widget.js", "widget.css"))
        self.send(
            {"type": "front-end", "id": str(content.get("id", ""))[:64], "js": js, "css": css}
        )


@cache
def _installed(static: Path) -> Bundle | None:
    """The bundle as this kernel found it first (`make js` needs a new kernel)."""
    return read_bundle(static)


_shared: FrontEnd | None = None
_shared_lock = threading.Lock()


def shared_front_end(static: Path) -> FrontEnd:
    """This kernel's one `FrontEnd` (made again if it was closed)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared.comm is None:
            _shared = FrontEnd(static)
        return _shared
