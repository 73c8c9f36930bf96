"""Notebook 07 goes back to a tool call and to a model turn, from code."""

from __future__ import annotations

from tests.notebooks.test_notebooks import Execute, cell_with, executed, text

__all__ = ["executed"]


def test_debugging_goes_back_to_a_tool_call_and_a_turn(executed: Execute) -> None:
    nb = executed("07-debugging.ipynb")
    out = text(cell_with(nb, "fork(at=ModelTurn(0))"))
    assert "went back: went back to refund | breakpoint" in out
    assert "edited: edited cents at refund | " in out
    assert "'refunded 5000 cents on order 42'" in out
    assert "model requests for the fork: 1" in out
    assert (
        "asked again: asked again at turn 1 with the message edited | interrupted | Refund order 43"
    ) in out
    assert "Go back here" in "".join(c.source for c in nb.cells if c.cell_type == "markdown")
