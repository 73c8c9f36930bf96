"""Nothing is recorded that cannot be saved and loaded back: refused where it enters."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pausepoint import (
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    ActionContext,
    ActionInterrupt,
    Agent,
    ModelRequest,
    ModelResponse,
    Prompt,
    ScriptedModel,
    ToolCall,
    ToolCallRequest,
    action,
    call,
)
from pausepoint.errors import NotJSONError
from pausepoint.transcript import AssistantMessage, InterruptEntry, UserMessage


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def cycle() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def reloads_equal(prompt: Prompt) -> bool:
    return Prompt.model_validate_json(prompt.model_dump_json()) == prompt


def paused_run(answer_schema: dict[str, Any] | None = None) -> Any:
    @action
    async def ask(ctx: ActionContext) -> Any:
        if ctx.resumption is None:
            raise ActionInterrupt("Which?", response_schema=answer_schema)
        return ctx.resumption.data

    return Agent(model=ScriptedModel([call("ask"), "done"]), actions=[ask]).new_run("go")


# Scalars a person, an action or a model might produce, the awkward ones included.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    # Mapped, not sampled: hypothesis would print the strategy with repr(), which Python
    # refuses for integers this long.
    st.sampled_from([-1, 0, 1]).map(lambda offset: (10**MAX_INT_DIGITS + offset) * -offset),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
    st.sampled_from(["\ud83d", "cut \udc00 here", "😀"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.text(), st.sampled_from(["\ud800"])), inner, max_size=3),
    ),
    max_leaves=12,
)
awkward = st.one_of(
    values,
    st.sampled_from([nested(MAX_JSON_DEPTH), nested(MAX_JSON_DEPTH + 1), nested(5000)]),
    st.builds(cycle),
    st.builds(lambda v: {1: v}, values),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(awkward)
async def test_a_resume_value_is_refused_or_reloads_equal(value: Any) -> None:
    run = paused_run()
    await run.run()
    before = run.prompt.model_dump_json()
    try:
        result = await run.resume(value)
    except NotJSONError:
        assert run.prompt.model_dump_json() == before
        assert run.pending
        return
    assert result.status == "completed"
    assert reloads_equal(run.prompt)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(awkward)
async def test_an_action_result_is_refused_as_a_failure_or_reloads_equal(value: Any) -> None:
    @action
    def produce() -> Any:
        return value

    run = Agent(model=ScriptedModel([call("produce"), "done"]), actions=[produce]).new_run("go")
    result = await run.run()
    record = next(run.prompt.tool_calls())
    if record.status == "failed":
        assert record.error is not None
        assert record.error.name == "NotJSONError"
        assert record.result is None
    else:
        assert record.status == "succeeded"
    assert result.status == "completed"
    assert reloads_equal(run.prompt)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(awkward, awkward)
def test_interrupt_data_and_checkpoint_are_refused_or_usable(data: Any, state: Any) -> None:
    try:
        pause = ActionInterrupt("Which?", data, state=state)
    except NotJSONError:
        return
    prompt = Prompt(
        items=[
            UserMessage(text="go"),
            AssistantMessage(tool_calls=[ToolCallRequest(id="c", name="ask")]),
            ToolCall(
                id="c",
                name="ask",
                interrupts=[InterruptEntry(message="m", data=pause.data, state=pause.state)],
            ),
        ]
    )
    assert reloads_equal(prompt)


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ({"note": "cut \ud83d"}, "$.note", "lone surrogate"),
        ({"k": [1, {"\udc00": 2}]}, "$.k[1]", "key"),
        ([1, 10**MAX_INT_DIGITS], "$[1]", f"more than {MAX_INT_DIGITS} digits"),
        ({"deep": nested(MAX_JSON_DEPTH)}, "$.deep", f"more than {MAX_JSON_DEPTH} levels"),
        ({"x": math.nan}, "$.x", "nan"),
        ({"x": -math.inf}, "$.x", "inf"),
    ],
)
async def test_resume_refuses_values_that_would_not_load_back_and_names_the_path(
    value: Any, path: str, reason: str
) -> None:
    run = paused_run()
    await run.run()
    before = run.prompt.model_dump_json()
    with pytest.raises(NotJSONError, match=reason) as caught:
        await run.resume(value)
    assert caught.value.path.startswith(path)
    assert run.prompt.model_dump_json() == before


async def test_a_cycle_is_a_not_json_error_naming_where_it_loops() -> None:
    looped: dict[str, Any] = {"a": {"b": None}}
    looped["a"]["b"] = looped
    run = paused_run()
    await run.run()
    with pytest.raises(NotJSONError, match="cycle") as caught:
        await run.resume(looped)
    assert caught.value.path == "$.a.b"


async def test_deep_nesting_is_a_not_json_error_not_a_recursion_error() -> None:
    run = paused_run()
    await run.run()
    with pytest.raises(NotJSONError, match="levels deep"):
        await run.resume(nested(100_000))


async def test_the_deepest_accepted_value_reloads_inside_a_saved_prompt() -> None:
    run = paused_run()
    await run.run()
    await run.resume(nested(MAX_JSON_DEPTH - 1))
    assert reloads_equal(run.prompt)


async def test_the_largest_accepted_integer_reloads_inside_a_saved_prompt() -> None:
    run = paused_run()
    await run.run()
    await run.resume({"n": -(10**MAX_INT_DIGITS - 1)})
    assert reloads_equal(run.prompt)


async def test_an_action_result_with_a_lone_surrogate_fails_the_call_for_the_model() -> None:
    @action
    def read_file() -> str:
        return "half an emoji: \ud83d"

    seen: list[Any] = []

    class Watching:
        def __init__(self) -> None:
            self.turn = 0

        async def request(self, request: ModelRequest) -> ModelResponse:
            self.turn += 1
            if self.turn == 1:
                return ModelResponse(tool_calls=[ToolCallRequest(id="c1", name="read_file")])
            seen.extend(request.items)
            return ModelResponse(text="ok")

    run = Agent(model=Watching(), actions=[read_file]).new_run("go")
    result = await run.run()

    record = next(run.prompt.tool_calls())
    assert result.status == "completed"
    assert record.status == "failed"
    assert record.error is not None
    assert "lone surrogate" in record.error.message
    assert record in seen
    assert reloads_equal(run.prompt)


async def test_an_exception_message_with_a_lone_surrogate_is_recorded_printable() -> None:
    @action
    def explode() -> str:
        raise ValueError("bad \ud83d input")

    run = Agent(model=ScriptedModel([call("explode"), "done"]), actions=[explode]).new_run("go")
    await run.run()
    record = next(run.prompt.tool_calls())
    assert record.error is not None
    assert record.error.message == "bad \ufffd input"
    assert reloads_equal(run.prompt)


async def test_model_text_or_arguments_that_would_not_load_back_fail_the_turn() -> None:
    class Sloppy:
        async def request(self, request: ModelRequest) -> ModelResponse:
            return ModelResponse(
                tool_calls=[
                    ToolCallRequest.model_construct(id="c1", name="x", input={"n": math.nan})
                ]
            )

    run = Agent(model=Sloppy()).new_run("go")
    before = run.prompt.model_dump_json()
    result = await run.run()
    assert result.status == "failed"
    assert result.error is not None
    assert result.error.name == "NotJSONError"
    assert "$.n" in result.error.message
    assert run.prompt.model_dump_json() == before

    class Cut:
        async def request(self, request: ModelRequest) -> ModelResponse:
            return ModelResponse(text="cut \ud83d")

    run = Agent(model=Cut()).new_run("go")
    result = await run.run()
    assert result.status == "failed"
    assert len(run.prompt.items) == 1


async def test_a_user_message_with_a_lone_surrogate_is_refused_before_anything_changes() -> None:
    run = Agent(model=ScriptedModel(["hi", "again"])).new_run("go")
    await run.run()
    before = run.prompt.model_dump_json()
    with pytest.raises(NotJSONError, match="The message"):
        await run.run("cut \ud83d")
    assert run.prompt.model_dump_json() == before
    with pytest.raises(NotJSONError):
        Prompt.from_user("cut \ud83d")


def test_an_interrupt_message_with_a_lone_surrogate_is_refused_at_the_raise() -> None:
    with pytest.raises(NotJSONError, match="message"):
        ActionInterrupt("Approve \ud83d?")
