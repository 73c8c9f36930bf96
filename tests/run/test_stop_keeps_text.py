"""Stop while the model writes: what it wrote stays, marked stopped, and Continue asks the
model again; a call cut short says so in one short line."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from pausepoint import Agent, AgentRun, ModelRequest, ModelResponse, Prompt, TextDelta, action
from pausepoint.models import StreamEvent
from pausepoint.transcript import AssistantMessage


class Slowly:
    """Writes two words, then waits until released; the second request answers at once."""

    def __init__(self) -> None:
        self.wrote = asyncio.Event()
        self.requests: list[ModelRequest] = []

    async def request(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("the loop streams when it can")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        if len(self.requests) > 1:
            yield ModelResponse(text="Here is the whole answer.")
            return
        yield TextDelta("Here is ")
        yield TextDelta("the start")
        self.wrote.set()
        await asyncio.Event().wait()
        yield ModelResponse(text="never")


async def stopped_while_writing() -> tuple[AgentRun, Slowly]:
    model = Slowly()
    run = Agent(model=model).new_run("Tell me everything")
    run.start()
    await model.wrote.wait()
    await asyncio.sleep(0)  # the second word reaches the loop
    await run.cancel()
    return run, model


async def test_stop_while_the_model_writes_keeps_the_partial_text_marked_stopped() -> None:
    run, _ = await stopped_while_writing()

    last = run.prompt.items[-1]
    assert run.status == "cancelled"
    assert isinstance(last, AssistantMessage)
    assert last.text == "Here is the start"
    assert last.stopped
    assert run.prompt.output is None  # a stopped message is not the run's answer
    again = Prompt.model_validate_json(run.prompt.model_dump_json())
    assert again == run.prompt
    stopped = again.items[-1]
    assert isinstance(stopped, AssistantMessage)
    assert stopped.stopped


async def test_continue_after_the_stop_asks_the_model_again_with_what_was_said() -> None:
    run, model = await stopped_while_writing()

    result = await run.run()

    assert result.status == "completed"
    assert result.output == "Here is the whole answer."
    seen = model.requests[-1].items[-1]
    assert isinstance(seen, AssistantMessage)
    assert seen.text == "Here is the start"


async def test_a_call_cut_short_explains_itself_in_one_short_line() -> None:
    started = asyncio.Event()

    @action
    async def crunch() -> str:
        """Crunch for a long time."""
        started.set()
        await asyncio.Event().wait()
        return "done"

    from pausepoint import ScriptedModel, call

    run = Agent(model=ScriptedModel([call("crunch"), "ok"]), actions=[crunch]).new_run("go")
    run.start()
    await started.wait()
    await run.cancel()

    record = next(run.prompt.tool_calls())
    assert record.error is not None
    assert record.error.message == "Stopped by the user while it ran; its outcome is unknown."
