"""A griffe extension for the API pages: docstring examples (`>>>` sessions) show as code.

Without it, Markdown reads `bound["metadata"]["team"]` in an example as a link reference.
Each run of lines that starts with `>>>` (with its `...` continuations and its output, up
to a blank line) becomes a fenced `pycon` block; `# doctest:` directives are dropped.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_DIRECTIVE = re.compile(r"\s*#\s*doctest:.*$")


def fence_examples(text: str) -> str:
    out: list[str] = []
    indent: str | None = None  # the open block's indentation, or None outside a block
    fenced = False  # inside a fence the docstring wrote itself
    for line in text.splitlines():
        stripped = line.lstrip()
        if indent is None and stripped.startswith("```"):
            fenced = not fenced
        if indent is not None and not stripped:
            out.append(f"{indent}```")
            indent = None
        if indent is None and not fenced and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
        out.append(_DIRECTIVE.sub("", line) if indent is not None else line)
    if indent is not None:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_examples(obj.docstring.value)
