"""Property names are data: names a browser's objects treat specially round-trip."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from pausepoint import ActionContext, ActionInterrupt, Agent, ScriptedModel, action, call
from pausepoint.errors import InvalidResolutionError

NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "", "a.b", "~0"]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {name: {"type": "string"} for name in NAMES},
    "required": NAMES,
    "additionalProperties": False,
}


def agent_asking(schema: dict[str, Any]) -> Agent:
    @action
    async def ask(ctx: ActionContext) -> Any:
        if ctx.resumption is None:
            raise ActionInterrupt("Fill this in", response_schema=schema)
        return ctx.resumption.data

    return Agent(model=ScriptedModel([call("ask"), "done"]), actions=[ask])


async def test_an_answer_with_prototype_named_properties_round_trips() -> None:
    run = agent_asking(SCHEMA).new_run("go")
    await run.run()
    answer = {name: f"value of {name!r}" for name in NAMES}
    await run.resume(answer)
    (tool,) = [item for item in run.prompt.items if item.type == "tool"]
    assert tool.result == answer
    assert run.prompt.output == "done"


async def test_problems_name_dotted_and_prototype_keys_unambiguously() -> None:
    run = agent_asking(SCHEMA).new_run("go")
    await run.run()
    with pytest.raises(InvalidResolutionError) as caught:
        await run.resume({"constructor": 5, "toString": "x", "hasOwnProperty": "x", "": "x"})
    paths = {problem.path: problem.message for problem in caught.value.problems}
    assert paths["$.constructor"] == "5 is not of type 'string'"
    assert paths['$["a.b"]'] == "Field required"
    assert paths["$.__proto__"] == "Field required"
    assert paths['$["~0"]'] == "Field required"


class Proto(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    proto: str = Field(alias="__proto__")
    dotted: int = Field(alias="a.b")


async def test_edited_arguments_with_a_proto_named_field_reach_the_action() -> None:
    received: list[Proto] = []

    @action(needs_approval=True)
    async def act(input: Proto) -> str:
        received.append(input)
        return "ok"

    model = ScriptedModel([call("act", **{"__proto__": "model's", "a.b": 1}), "done"])
    run = Agent(model=model, actions=[act]).new_run("go")
    await run.run()
    assert "__proto__" in act.input_schema()["properties"]
    with pytest.raises(InvalidResolutionError) as caught:
        await run.resume({"approved": True, "editedArgs": {"__proto__": "mine", "a.b": "x"}})
    assert [p.path for p in caught.value.problems] == ['$.editedArgs["a.b"]']
    await run.resume({"approved": True, "editedArgs": {"__proto__": "mine", "a.b": 2}})
    assert [(r.proto, r.dotted) for r in received] == [("mine", 2)]


async def test_a_pattern_the_browser_leaves_to_the_kernel_is_reported_at_its_field() -> None:
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}}
    run = agent_asking(schema).new_run("go")
    await run.run()
    with pytest.raises(InvalidResolutionError) as caught:
        await run.resume({"code": "a" * 31 + "!"})
    assert [(p.path, p.message) for p in caught.value.problems] == [
        ("$.code", "String should match pattern '^(a+)+$'")
    ]
    await run.resume({"code": "a" * 31})
    assert run.prompt.output == "done"
