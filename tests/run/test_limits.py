"""Bounds: max_turns, per-action and agent-wide action timeouts, and the model timeout."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import threading
import weakref
from typing import Any

import pytest

from pausepoint import (
    Agent,
    ModelRequest,
    ModelResponse,
    Prompt,
    ScriptedModel,
    ToolCall,
    action,
    call,
)
from pausepoint._threads import is_alive, wait_idle
from pausepoint.errors import ActionTimeoutError, MaxTurnsExceededError, ModelTimeoutError
from pausepoint.transcript import AssistantMessage


@action
def ping() -> str:
    """Ping."""
    return "pong"


def always_ping(request: ModelRequest) -> Any:
    return call("ping")


def model_turns(prompt: Prompt) -> int:
    return sum(isinstance(item, AssistantMessage) for item in prompt.items)


async def test_a_model_that_never_stops_fails_after_fifty_turns_by_default() -> None:
    run = Agent(model=ScriptedModel(always_ping), actions=[ping]).new_run("x")
    finished: list[str] = []
    failed: list[str] = []
    run.on("run_finished", lambda e: finished.append(e.result.status))
    run.on("failed", lambda e: failed.append(e.error.name))

    result = await run.run()

    assert result.status == "failed"
    assert isinstance(result.exception, MaxTurnsExceededError)
    assert result.error is not None
    assert result.error.name == "MaxTurnsExceededError"
    assert "max_turns" in result.error.message
    assert model_turns(run.prompt) == 50
    assert all(r.status == "succeeded" for r in run.prompt.tool_calls())
    assert finished == ["failed"]
    assert failed == ["MaxTurnsExceededError"]
    assert Prompt.model_validate_json(run.prompt.model_dump_json()) == run.prompt


async def test_run_with_max_turns_continues_a_run_that_hit_the_limit() -> None:
    script = [call("ping")] * 5 + ["Finally."]
    run = Agent(model=ScriptedModel(script), actions=[ping], max_turns=3).new_run("x")
    assert (await run.run()).status == "failed"
    assert model_turns(run.prompt) == 3

    result = await run.run(max_turns=10)

    assert result.status == "completed"
    assert result.output == "Finally."
    assert model_turns(run.prompt) == 6


async def test_each_stretch_has_its_own_allowance() -> None:
    script = [call("ping"), call("ping"), "one", call("ping"), "two"]
    run = Agent(model=ScriptedModel(script), actions=[ping], max_turns=3).new_run("x")
    assert (await run.run()).output == "one"
    assert (await run.run("again")).output == "two"


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3"])
async def test_max_turns_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_turns"):
        Agent(model=ScriptedModel(["x"]), max_turns=bad)
    run = Agent(model=ScriptedModel(["x"])).new_run("x")
    with pytest.raises(ValueError, match="max_turns"):
        await run.run(max_turns=bad)
    assert len(run.prompt.items) == 1


def _seen_by_model(name: str, script_after: str) -> tuple[ScriptedModel, list[ToolCall]]:
    seen: list[ToolCall] = []

    def respond(request: ModelRequest) -> Any:
        tools = [i for i in request.items if isinstance(i, ToolCall)]
        if not tools:
            return call(name)
        seen.extend(tools)
        return script_after

    return ScriptedModel(respond), seen


async def test_an_action_past_its_timeout_fails_with_an_error_the_model_sees() -> None:
    never = asyncio.Event()

    @action(timeout=0.05)
    async def hang() -> str:
        """Wait forever."""
        await never.wait()
        return "never"

    model, seen = _seen_by_model("hang", "It timed out.")
    run = Agent(model=model, actions=[hang]).new_run("x")

    result = await run.run()

    assert result.status == "completed"
    (record,) = seen
    assert record.status == "failed"
    assert record.error is not None
    assert record.error.name == "ActionTimeoutError" == ActionTimeoutError.__name__
    assert "0.05 s" in record.error.message


async def test_the_agent_wide_action_timeout_applies_unless_the_action_sets_its_own() -> None:
    never = asyncio.Event()

    @action
    async def hang() -> str:
        """Wait forever."""
        await never.wait()
        return "never"

    model, seen = _seen_by_model("hang", "ok")
    run = Agent(model=model, actions=[hang], action_timeout=0.05).new_run("x")
    await run.run()
    assert seen[0].error is not None
    assert seen[0].error.name == "ActionTimeoutError"

    @action(timeout=5)
    async def quick() -> str:
        """Finish after the agent's default would have expired."""
        await asyncio.sleep(0.1)
        return "made it"

    run = Agent(
        model=ScriptedModel([call("quick"), "ok"]), actions=[quick], action_timeout=0.01
    ).new_run("x")
    await run.run()
    assert next(run.prompt.tool_calls()).result == "made it"


async def test_an_actions_own_timeout_error_is_not_mistaken_for_its_deadline() -> None:
    @action(timeout=30)
    async def fetch() -> str:
        """Fetch something that times out on its own."""
        raise TimeoutError("upstream took too long")

    run = Agent(model=ScriptedModel([call("fetch"), "ok"]), actions=[fetch]).new_run("x")
    await run.run()
    error = next(run.prompt.tool_calls()).error
    assert error is not None
    assert (error.name, error.message) == ("TimeoutError", "upstream took too long")


async def test_a_timed_out_sync_action_is_never_started_again_while_its_thread_lives() -> None:
    release = threading.Event()
    runs: list[int] = []

    @action(timeout=0.05)
    def stuck() -> str:
        """Block a thread."""
        runs.append(1)
        release.wait(10)
        return "late"

    model, _seen = _seen_by_model("stuck", "ok")
    run = Agent(model=model, actions=[stuck]).new_run("x")
    assert (await run.run()).status == "completed"
    record = next(run.prompt.tool_calls())
    key = (run.id, record.id)
    assert is_alive(key)
    assert record.status == "failed"
    assert "background" in record.error.message  # type: ignore[union-attr]

    assert (await run.run("again?")).status == "completed"
    release.set()
    assert await asyncio.to_thread(wait_idle, key, 10)
    assert runs == [1]
    assert record.status == "failed"
    assert record.result is None  # the late value never lands in the transcript


async def test_a_model_request_past_model_timeout_fails_the_run_and_a_retry_goes_on() -> None:
    hang = asyncio.Event()

    class Stuck:
        async def request(self, request: ModelRequest) -> ModelResponse:
            if not hang.is_set():
                await asyncio.Event().wait()
            return ModelResponse(text="back")

    run = Agent(model=Stuck(), model_timeout=0.05).new_run("x")
    before = run.prompt.model_dump_json()

    result = await run.run()

    assert result.status == "failed"
    assert isinstance(result.exception, ModelTimeoutError)
    assert "model_timeout" in result.error.message  # type: ignore[union-attr]
    assert run.prompt.model_dump_json() == before
    hang.set()
    assert (await run.run()).output == "back"


@pytest.mark.parametrize("field", ["action_timeout", "model_timeout"])
def test_timeouts_must_be_positive(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Agent(model=ScriptedModel(["x"]), **{field: 0})
    with pytest.raises(ValueError, match="timeout"):
        action(timeout=-1)(lambda: None)


class _Request:
    """What a web framework keeps in a context variable while it serves one request."""


_SERVING: contextvars.ContextVar[_Request | None] = contextvars.ContextVar("serving")


async def test_what_a_finished_run_was_started_with_is_not_kept_by_its_model_timeout() -> None:
    # A server runs many short runs on one loop, each with a model timeout far longer
    # than the run: once a run ends, nothing of its request may wait in the loop.
    @action
    def lookup() -> str:
        """Look it up."""
        return "found"

    served: list[weakref.ref[_Request]] = []
    for _ in range(3):
        request = _Request()
        _SERVING.set(request)
        served.append(weakref.ref(request))
        del request
        model = ScriptedModel([ModelResponse(tool_calls=[call("lookup")]), "Done."])
        run = Agent(model=model, actions=[lookup], model_timeout=3600).new_run("x")
        assert (await run.run()).status == "completed"
        _SERVING.set(None)  # the server is done with the request and its run
        del run
    await asyncio.sleep(0)  # the loop lets go of the step that woke this test
    gc.collect()

    assert [ref() for ref in served] == [None, None, None]
