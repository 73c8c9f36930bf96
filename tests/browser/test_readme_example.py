"""The README's first example, clicked as a reader would: its card asks a yes/no question,
Yes answers it, and the action runs and the run completes."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

README = Path(__file__).parents[2] / "README.md"
OpenNotebook = Callable[[str, list[str]], Any]


def first_example_until_the_run() -> str:
    """The README's first code block, up to the line that makes the run."""
    text = README.read_text("utf-8")
    block = re.search(r"## A first run.*?```python\n(.*?)```", text, re.S)
    assert block is not None, "the README has no first example"
    lines = block.group(1).splitlines()
    made = next(i for i, line in enumerate(lines) if line.startswith("run = agent.new_run("))
    return "\n".join(lines[: made + 1])


def test_the_readme_example_completes_when_its_card_is_answered_with_a_click(
    open_notebook: OpenNotebook,
) -> None:
    cells = [
        first_example_until_the_run() + "\nrun.start()\nrun",
        "result = await run.wait()\n"
        "print('KERNEL', result.status, '|', result.output, '|', "
        "next(run.prompt.tool_calls()).result)",
    ]
    nb = open_notebook("readme-example", cells)
    nb.run_cell(0)
    view = nb.widget(0)
    card = view.get_by_test_id("pp-card")
    expect(card).to_contain_text("Delete record 7?", timeout=30_000)
    expect(card.locator("textarea")).to_have_count(0)  # nobody is asked to type JSON

    card.get_by_test_id("pp-answer-yes").click()

    expect(view.get_by_test_id("pp-status")).to_have_attribute(
        "data-status", "completed", timeout=30_000
    )
    expect(view.get_by_test_id("pp-decision")).to_contain_text("You")
    nb.run_cell(1)
    expect(nb.output(1)).to_contain_text(
        "KERNEL completed | Record 7 is gone. | deleted 7", timeout=30_000
    )
    nb.screenshot("readme-example")
