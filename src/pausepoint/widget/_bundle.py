"""The view's front end as installed: the bundled module, or a fallback that says what to do."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["MISSING_BUNDLE_MESSAGE", "front_end"]

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
