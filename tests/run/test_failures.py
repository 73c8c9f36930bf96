"""Model errors fail the run without losing anything; action errors go back to the model."""

from __future__ import annotations

from pausepoint import (
    Agent,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    ToolCall,
    action,
    call,
)


class FlakyModel:
    """Fails on the listed request numbers, answers from a script otherwise."""

    def __init__(self, script: ScriptedModel, fail_on: set[int]) -> None:
        self.script = script
        self.fail_on = fail_on
        self.calls = 0

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        if self.calls in self.fail_on:
            raise ConnectionError("model endpoint unreachable")
        return await self.script.request(request)


@action
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_model_error_fails_the_run_and_run_again_continues() -> None:
    model = FlakyModel(ScriptedModel([call("add", a=1, b=2), "3"]), fail_on={2})
    run = Agent(model=model, actions=[add]).new_run("1+2?")
    failures = []
    run.on("failed", lambda e: failures.append(e.error))

    result = await run.run()

    assert result.status == "failed"
    assert result.error is not None
    assert (result.error.name, result.error.message) == (
        "ConnectionError",
        "model endpoint unreachable",
    )
    assert isinstance(result.exception, ConnectionError)
    assert failures == [result.error]
    before = run.prompt.model_dump_json()
    assert [type(i).__name__ for i in run.prompt.items] == [
        "UserMessage",
        "AssistantMessage",
        "ToolCall",
    ]

    result = await run.run()

    assert result.status == "completed"
    assert result.output == "3"
    assert run.prompt.model_dump_json().startswith(before[: before.rindex("]")])
    assert sum(isinstance(i, ToolCall) for i in run.prompt.items) == 1  # add ran once


async def test_action_exception_is_recorded_and_fed_back() -> None:
    @action
    async def explode(reason: str) -> str:
        raise ValueError(reason)

    model = ScriptedModel([call("explode", reason="bad input"), "It broke; moving on."])
    result = await Agent(model=model, actions=[explode]).new_run("try").run()

    assert result.status == "completed"
    record = model.requests[1].items[-1]
    assert isinstance(record, ToolCall)
    assert record.status == "failed"
    assert record.error is not None
    assert (record.error.name, record.error.message) == ("ValueError", "bad input")


async def test_unknown_action_and_bad_result_are_failures_the_model_sees() -> None:
    @action
    def returns_a_set() -> object:
        return {1, 2}

    model = ScriptedModel([[call("nope"), call("returns_a_set")], "ok"])
    result = await Agent(model=model, actions=[returns_a_set]).new_run("x").run()
    assert result.status == "completed"
    errors = [r.error.name for r in result.prompt.tool_calls() if r.error]
    assert errors == ["UnknownAction", "NotJSONError"]


async def test_sync_actions_run_and_their_results_are_recorded() -> None:
    model = ScriptedModel([call("add", a=2, b=3), "5"])
    result = await Agent(model=model, actions=[add]).new_run("2+3").run()
    assert next(result.prompt.tool_calls()).result == 5


async def test_a_key_error_says_which_key_was_missing() -> None:
    @action
    def find(key: str) -> str:
        return {}[key]  # type: ignore[no-any-return]

    model = ScriptedModel([call("find", key="99"), "ok"])
    result = await Agent(model=model, actions=[find]).new_run("x").run()
    error = next(result.prompt.tool_calls()).error
    assert error is not None
    assert (error.name, error.message) == ("KeyError", "missing key '99'")
