"""The view's front end as installed: the bundled module, or a fallback that says what to do.

The bundle is large (about 230 KB), and anywidget keeps a widget's module in its state, so
a notebook would save it once for every run view. A run view's module is instead a small
loader (`LOADER`); the bundle itself travels, compressed, in one `FrontEnd` model per
kernel that every run view refers to, so a notebook saves it once. The loader reads that
model (live, or restored from the notebook's saved widget state), imports the bundle
once per page and hands it the view.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import threading
from functools import cache
from pathlib import Path

import ipywidgets  # type: ignore[import-untyped]
import traitlets

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
// pausepoint's run view. Its code is not here: it is in a model every run view of the
// kernel refers to (`_front_end`), saved once per notebook. Imported once per page.
const loaded = (globalThis.__pausepointFrontEnds ??= new Map());

async function source(shared, key) {
  const text = shared.get(key) ?? "";
  if (shared.get("encoding") !== "gzip+base64" || !text) return text;
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}

async function addStyle(shared, digest) {
  const id = "pausepoint-front-end-style";
  let style = document.getElementById(id);
  if (style?.dataset.digest === digest) return;
  const css = await source(shared, "css");
  style = document.getElementById(id);
  if (!style) {
    style = Object.assign(document.createElement("style"), { id });
    document.head.appendChild(style);
  }
  style.dataset.digest = digest;
  style.textContent = css;
}

async function load(model) {
  const ref = model.get("_front_end");
  const id = typeof ref === "string" ? ref.replace(/^IPY_MODEL_/, "") : "";
  const shared = await model.widget_manager.get_model(id);
  const digest = shared.get("pausepoint_front_end");
  if (!loaded.has(digest)) {
    loaded.set(digest, (async () => {
      const code = new Blob([await source(shared, "code")], { type: "text/javascript" });
      const url = URL.createObjectURL(code);
      try {
        return await import(/* webpackIgnore: true */ url);
      } finally {
        URL.revokeObjectURL(url);
      }
    })());
  }
  await addStyle(shared, digest);
  const mod = await loaded.get(digest);
  return typeof mod.default === "function" ? await mod.default() : mod.default;
}

export default () => {
  let widget;
  return {
    async initialize(props) {
      widget = await load(props.model);
      return widget.initialize?.(props);
    },
    render(props) {
      return widget?.render?.(props);
    },
  };
};
"""


class FrontEnd(ipywidgets.Widget):  # type: ignore[misc]
    """The run view's code and style, sent and saved once per kernel: each run view refers
    to it. `code` is the bundle and `css` its style sheet, each gzipped and in base64 when
    `encoding` says so."""

    pausepoint_front_end = traitlets.Unicode("").tag(sync=True)
    """A digest of the bundle: the page imports each bundle once; marks this model."""
    encoding = traitlets.Unicode("text").tag(sync=True)
    code = traitlets.Unicode("").tag(sync=True)
    css = traitlets.Unicode("").tag(sync=True)


@cache
def _packed(static: Path) -> dict[str, str]:
    script, css = front_end(static)
    code = script.read_text("utf-8") if isinstance(script, Path) else script
    style = css.read_text("utf-8") if isinstance(css, Path) else css
    digest = hashlib.sha256(code.encode()).hexdigest()[:16]
    if not isinstance(script, Path):  # the fallback: small, and readable as it is
        return {"pausepoint_front_end": digest, "encoding": "text", "code": code, "css": style}
    return {
        "pausepoint_front_end": digest,
        "encoding": "gzip+base64",
        "code": _gzip64(code),
        "css": _gzip64(style) if style else "",
    }


def _gzip64(text: str) -> str:
    return base64.b64encode(gzip.compress(text.encode(), 9, mtime=0)).decode("ascii")


_shared: FrontEnd | None = None
_shared_lock = threading.Lock()


def shared_front_end(static: Path) -> FrontEnd:
    """This kernel's one `FrontEnd` (made again if it was closed)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared.comm is None:
            _shared = FrontEnd(**_packed(static))
        return _shared
