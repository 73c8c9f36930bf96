"""Answers to interrupts with a response schema are checked in the kernel before anything
is recorded, the same way live (pydantic) and after a restore (the recorded JSON Schema)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    Prompt,
    ScriptedModel,
    action,
    call,
)
from pausepoint.errors import InvalidResolutionError


class Order(BaseModel):
    quantity: int = Field(ge=1, le=10)
    speed: Literal["standard", "express"] = "standard"


RAW_SCHEMA = {
    "type": "object",
    "properties": {
        "room": {"type": "string", "minLength": 1},
        "guests": {"type": "integer", "minimum": 1},
    },
    "required": ["room"],
    "additionalProperties": False,
}


def _agent(schema: Any, received: list[Any]) -> Agent:
    @action
    async def ask(ctx: ActionContext) -> str:
        """Ask for details."""
        if ctx.resumption is None:
            raise ActionInterrupt("Details?", response_schema=schema)
        received.append(ctx.resumption.data)
        return "thanks"

    return Agent(model=ScriptedModel([call("ask"), "Done."]), actions=[ask])


async def _paused(schema: Any, *, restored: bool) -> tuple[AgentRun, list[Any]]:
    received: list[Any] = []
    run = _agent(schema, received).new_run("go")
    await run.run()
    if restored:  # a new process: only the JSON Schema in the transcript is known
        run = AgentRun(
            _agent(schema, received), Prompt.model_validate_json(run.prompt.model_dump_json())
        )
    return run, received


@pytest.mark.parametrize("restored", [False, True])
@pytest.mark.parametrize(
    ("schema", "answer", "paths"),
    [
        (Order, {"quantity": 0}, ["$.quantity"]),
        (Order, {"quantity": "4"}, ["$.quantity"]),
        (Order, {"quantity": 2, "speed": "warp"}, ["$.speed"]),
        (Order, {}, ["$.quantity"]),
        (RAW_SCHEMA, {"guests": 0}, ["$.guests", "$.room"]),
        (RAW_SCHEMA, {"room": "A", "gift": True}, ["$.gift"]),
        (RAW_SCHEMA, "room A", ["$"]),
    ],
)
async def test_invalid_answers_raise_with_paths_and_record_nothing(
    schema: Any, answer: Any, paths: list[str], restored: bool
) -> None:
    run, received = await _paused(schema, restored=restored)
    before = run.prompt.model_dump_json()

    with pytest.raises(InvalidResolutionError) as info:
        await run.resume(answer)

    assert sorted(p.path for p in info.value.problems) == paths
    assert run.prompt.model_dump_json() == before
    assert received == []


@pytest.mark.parametrize("restored", [False, True])
@pytest.mark.parametrize(
    ("schema", "answer"),
    [(Order, {"quantity": 3, "speed": "express"}), (RAW_SCHEMA, {"room": "A", "guests": 2})],
)
async def test_valid_answers_reach_the_action(schema: Any, answer: Any, restored: bool) -> None:
    run, received = await _paused(schema, restored=restored)
    result = await run.resume(answer)
    assert result.status == "completed"
    assert received == [answer]


async def test_pydantic_schema_is_recorded_as_json_schema() -> None:
    run, _ = await _paused(Order, restored=False)
    assert run.pending[0].response_schema == Order.model_json_schema()


async def test_resumption_parse_gives_the_model_instance() -> None:
    got: list[Order] = []

    @action
    async def ask(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("How many?", response_schema=Order)
        got.append(ctx.resumption.parse(Order))
        return "ok"

    run = Agent(model=ScriptedModel([call("ask"), "ok"]), actions=[ask]).new_run("x")
    await run.run()
    await run.resume({"quantity": 2})
    assert got == [Order(quantity=2)]


def test_a_response_schema_must_be_a_model_class_or_a_dict() -> None:
    with pytest.raises(TypeError, match="pydantic model class or a JSON Schema dict"):
        ActionInterrupt("x", response_schema=["not", "a", "schema"])  # type: ignore[arg-type]


def test_an_invalid_json_schema_is_refused_at_the_raise() -> None:
    with pytest.raises(ValueError, match="not a valid JSON Schema"):
        ActionInterrupt("x", response_schema={"type": "bogus"})
