"""The scripted models of the notebooks read every outcome a call can have: each model,
taken from its notebook's own cells, writes its next turn after a call that succeeded,
was answered in words (Respond), declined, expired, failed or was stopped, and says why.

A model that read `item.error.message` by hand crashed the run on Respond (a responded
call has no error); `outcome_of(item)` reads a call once, whatever became of it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pausepoint import Agent, ModelRequest, outcome_of
from pausepoint.transcript import (
    AssistantMessage,
    Cancellation,
    ErrorInfo,
    ToolCall,
    UserMessage,
)

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@dataclass(frozen=True)
class Model:
    notebook: str
    cells: tuple[str, ...]  # the cells that define the agent, in order
    asks: str  # a message its model answers with tool calls


MODELS = [
    Model("02-approvals.ipynb", ("02-01", "02-03", "02-05"), "Refund order 42"),
    Model("03-forms.ipynb", ("03-01", "03-03", "03-05", "03-07"), "Plan a pandas workshop"),
    Model("05-under-the-hood.ipynb", ("05-01", "05-03"), "Refund order 42 and send 250 to ACME"),
    Model("08-durable-runs.ipynb", ("08-03",), "Pay invoice 1001: 250 EUR"),
    Model(
        "09-remote-agents.ipynb", ("09-01", "09-03", "09-05"), "Refund order 42 and ship order 7"
    ),
]

# What each outcome leaves on a call, as a run records it, and the words a reply must carry.
OUTCOMES: dict[str, tuple[dict[str, Any], str]] = {
    "succeeded": ({"status": "succeeded", "result": "refunded 35.00"}, "refunded 35.00"),
    "responded": ({"status": "responded", "result": "Only refund half"}, "Only refund half"),
    "declined": (
        {
            "status": "rejected",
            "error": ErrorInfo(name="InterruptRejected", message="The order was a gift."),
        },
        "The order was a gift",
    ),
    "expired": (
        {
            "status": "rejected",
            "error": ErrorInfo(
                name="InterruptExpired",
                message="Nobody answered before the interrupt expired (2026-12-05 10:00).",
            ),
        },
        "Nobody answered before the interrupt expired",
    ),
    "failed": (
        {
            "status": "failed",
            "error": ErrorInfo(name="ConnectionError", message="The bank is down."),
        },
        "The bank is down",
    ),
    "cancelled": (
        {
            "status": "cancelled",
            "cancellation": Cancellation(by="user", reason="Enough"),
            "error": ErrorInfo(name="Cancelled", message="Stopped by you (Enough) while it ran."),
        },
        "Stopped by you (Enough) while it ran",
    ),
}


def agent_of(model: Model) -> Agent:
    """The notebook's agent, built by running the cells that define it."""
    cells = {
        cell["id"]: "".join(cell["source"])
        for cell in json.loads((NOTEBOOKS / model.notebook).read_text(encoding="utf-8"))["cells"]
    }
    namespace: dict[str, Any] = {"__name__": f"notebook_{model.notebook[:2]}"}
    for cell_id in model.cells:
        source = cells[cell_id]
        if source.startswith("%%writefile"):  # a module the notebook writes: its body
            source = source.split("\n", 1)[1]
        exec(compile(source, f"{model.notebook}:{cell_id}", "exec", dont_inherit=True), namespace)
    agent = namespace["agent"]
    assert isinstance(agent, Agent)
    return agent


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.notebook[:2])
@pytest.mark.parametrize("kind", list(OUTCOMES))
async def test_each_notebooks_model_writes_its_next_turn_after_every_outcome(
    model: Model, kind: str
) -> None:
    agent = agent_of(model)
    asked = UserMessage(text=model.asks)
    first = await agent.model.request(ModelRequest(None, [asked], []))
    assert first.tool_calls, f"{model.notebook}'s model calls no tool for {model.asks!r}"
    fields, words = OUTCOMES[kind]
    records = [
        ToolCall(id=c.id, name=c.name, input=c.input, attempts=1, **fields)
        for c in first.tool_calls
    ]
    assert {outcome_of(r).kind for r in records} == {kind}
    items = [asked, AssistantMessage(text=first.text, tool_calls=first.tool_calls), *records]

    reply = await agent.model.request(ModelRequest(None, items, []))

    assert not reply.tool_calls
    assert words in reply.text, f"{model.notebook}: {reply.text!r}"
    assert ".." not in reply.text


@pytest.mark.parametrize(
    "model",
    [m for m in MODELS if m.notebook[:2] in ("02", "08", "09")],
    ids=lambda m: m.notebook[:2],
)
async def test_respond_on_a_notebooks_card_reaches_its_model_and_the_run_completes(
    model: Model,
) -> None:
    run = agent_of(model).new_run(model.asks)
    assert (await run.run()).status == "interrupted"

    while run.pending:  # Respond on every approval card; 09's shipping form asks a speed
        pending = run.pending[0]
        if pending.kind == "tool-approval":
            result = await run.respond("Only refund half", interrupt=pending.id)
        else:
            result = await run.resume({"speed": "standard"}, interrupt=pending.id)

    assert result.status == "completed", result.error
    assert "Only refund half" in (result.output or "")
