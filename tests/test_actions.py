"""@action: input models from hints, descriptions, options, and clear errors."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from pausepoint import ActionContext, Agent, ScriptedModel, action


def test_plain_parameters_become_the_input_schema() -> None:
    @action
    def transfer(amount: float, to: str = "savings") -> str:
        """Move money.

        Longer text that the model does not need."""
        return "ok"

    schema = transfer.input_schema()
    assert schema["required"] == ["amount"]
    assert schema["properties"]["to"]["default"] == "savings"
    assert transfer.description == "Move money."
    assert transfer.needs_approval is False


def test_a_model_defined_inside_a_function_resolves() -> None:
    class Local(BaseModel):
        x: int

    @action(name="local_action", needs_approval=True)
    async def handler(input: Local, ctx: ActionContext) -> int:
        return input.x

    assert handler.name == "local_action"
    assert handler.input_model is Local
    assert handler.needs_approval is True


def test_missing_hints_and_misnamed_model_parameters_are_refused() -> None:
    with pytest.raises(TypeError, match="needs a type hint"):

        @action
        def untyped(x) -> None:  # type: ignore[no-untyped-def]
            return None

    class Payload(BaseModel):
        y: int

    with pytest.raises(TypeError, match="name its model parameter 'input'"):

        @action
        def misnamed(payload: Payload) -> None:
            return None


def test_agent_refuses_duplicate_names_and_plain_functions() -> None:
    @action
    def a() -> None:
        return None

    with pytest.raises(ValueError, match="Two actions are named 'a'"):
        Agent(model=ScriptedModel([]), actions=[a, a])
    with pytest.raises(TypeError, match="decorate the function with @action"):
        Agent(model=ScriptedModel([]), actions=[print])  # type: ignore[list-item]
