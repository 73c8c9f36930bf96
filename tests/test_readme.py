"""The README's example runs as written."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

README = Path(__file__).parents[1] / "README.md"


async def test_readme_example_runs() -> None:
    block = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)[0]
    body = textwrap.indent(block, "    ")
    namespace: dict[str, Any] = {}
    exec(f"async def example():\n{body}\n    return locals()", namespace)
    values = await namespace["example"]()
    assert values["result"].output == "Record 7 is gone."
    assert values["again"].state == values["run"].state
