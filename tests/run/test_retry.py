"""Retry: ask the model again for the turn that ended the run. The turn it replaces stays in
the transcript, set aside, and no later model request carries it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.helpers import until
from tests.run.endings import ask, hang
from tests.run.test_stop_keeps_text import stopped_while_writing

from pausepoint import (
    Agent,
    AgentRun,
    ModelRequest,
    ModelResponse,
    Prompt,
    ReplayModel,
    ScriptedModel,
    ToolCall,
    action,
    call,
)
from pausepoint.errors import InvalidTranscriptError, RunSuspendedError
from pausepoint.events import SetAsideEvent
from pausepoint.store import Change, SQLiteStore, StoreConflictError
from pausepoint.transcript import AssistantMessage, UserMessage


class Answers:
    """Answers each request with the next of `replies` (a `call(...)` or text), or raises
    it when it is an exception; keeps every request it was sent."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []

    async def request(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, str):
            return ModelResponse(text=reply)
        return ModelResponse(tool_calls=[reply])


@action
def lookup_a() -> str:
    """Look up A."""
    return "A"


def kinds(items: Any) -> list[str]:
    return [item.type for item in items]


async def test_retry_after_stop_sets_the_stopped_reply_aside_and_asks_again() -> None:
    run, model = await stopped_while_writing()
    seen: list[SetAsideEvent] = []
    run.on("set_aside", seen.append)

    result = await run.retry()

    assert result.status == "completed"
    assert result.output == "Here is the whole answer."
    stopped, answer = run.prompt.items[1], run.prompt.items[2]
    assert isinstance(stopped, AssistantMessage)
    assert isinstance(answer, AssistantMessage)
    assert stopped.text == "Here is the start"  # kept for people to read
    assert stopped.set_aside is not None
    assert stopped.set_aside.by == "code"
    assert answer.set_aside is None
    # The model was asked without the stopped reply (Continue would have sent it).
    assert kinds(model.requests[-1].items) == ["user"]
    assert [(e.position, e.message.text) for e in seen] == [(1, "Here is the start")]
    again = Prompt.model_validate_json(run.prompt.model_dump_json())
    assert again == run.prompt
    assert again.output == "Here is the whole answer."


async def test_retry_of_a_final_answer_asks_for_it_again_without_the_old_one() -> None:
    model = Answers("First try.", "Second try.", "Third try.")
    run = Agent(model=model).new_run("Write a haiku")
    await run.run()

    assert (await run.retry()).output == "Second try."
    assert (await run.retry(by="view")).output == "Third try."

    assert kinds(model.requests[1].items) == kinds(model.requests[2].items) == ["user"]
    texts = [(i.text, i.set_aside.by if i.set_aside else None) for i in run.prompt.items[1:]]
    assert texts == [("First try.", "code"), ("Second try.", "view"), ("Third try.", None)]
    # What each turn was sent is rebuilt the same way, set-aside turns counted as turns.
    assert kinds(run.model_request(2).items) == ["user"]


async def test_retry_after_a_failed_request_sets_nothing_aside() -> None:
    model = Answers(call("lookup_a"), ConnectionError("endpoint down"), "Done.")
    run = Agent(model=model, actions=[lookup_a]).new_run("go")
    assert (await run.run()).status == "failed"

    result = await run.retry()

    assert result.status == "completed"
    assert not any(
        isinstance(i, AssistantMessage) and i.set_aside is not None for i in run.prompt.items
    )
    assert kinds(model.requests[-1].items) == ["user", "assistant", "tool"]


async def test_retry_after_a_stopped_call_sets_its_turn_aside() -> None:
    model = Answers(call("hang"), "Skipped the slow part.")
    run = Agent(model=model, actions=[hang]).new_run("go")
    run.start()
    await until(
        lambda: any(isinstance(i, ToolCall) and i.status == "running" for i in run.prompt.items)
    )
    await run.cancel()

    result = await run.retry()

    assert result.output == "Skipped the slow part."
    turn, record = run.prompt.items[1], run.prompt.items[2]
    assert isinstance(turn, AssistantMessage)
    assert turn.set_aside is not None
    assert isinstance(record, ToolCall)
    assert record.status == "cancelled"
    assert kinds(model.requests[-1].items) == ["user"]


async def test_retry_while_an_answer_is_awaited_is_refused_and_changes_nothing() -> None:
    run = Agent(model=ScriptedModel([call("ask"), "ok"]), actions=[ask]).new_run("go")
    await run.run()
    before = run.prompt.model_dump_json()

    with pytest.raises(RunSuspendedError, match="Answer them first"):
        await run.retry()
    with pytest.raises(Exception, match="positive int"):
        await run.retry(max_turns=0)

    assert run.prompt.model_dump_json() == before
    assert run.status == "interrupted"


async def test_a_retry_is_durable_and_a_reloaded_run_still_leaves_the_turn_out(
    tmp_path: Path,
) -> None:
    model = Answers("First try.", "Second try.", "Third try.")
    agent = Agent(model=model)
    store = SQLiteStore(tmp_path / "runs.db")
    run = agent.new_run("Write a haiku", store=store)
    await run.run()
    await run.retry()

    loaded = AgentRun.load(store, run.id, agent)
    first = loaded.prompt.items[1]
    assert isinstance(first, AssistantMessage)
    assert first.set_aside is not None
    assert loaded.prompt.output == "Second try."
    assert (await loaded.retry()).output == "Third try."
    assert kinds(model.requests[-1].items) == ["user"]
    store.close()


class RefusesWrites(SQLiteStore):
    refuse = False

    def write(self, run_id: str, change: Change, **options: Any) -> int:
        if self.refuse:
            expected = options["expected_version"]
            raise StoreConflictError(run_id, expected, expected + 1)
        return super().write(run_id, change, **options)


async def test_a_retry_the_store_refuses_is_taken_back(tmp_path: Path) -> None:
    model = Answers("First try.", "Second try.")
    store = RefusesWrites(tmp_path / "runs.db")
    run = Agent(model=model).new_run("Write a haiku", store=store)
    await run.run()
    before = run.prompt.model_dump_json()
    store.refuse = True

    with pytest.raises(StoreConflictError):
        await run.retry()

    assert run.prompt.model_dump_json() == before
    assert len(model.requests) == 1
    store.close()


def test_a_set_aside_turn_that_waits_is_refused_on_load() -> None:
    run = Agent(model=ScriptedModel([call("ask"), "ok"]), actions=[ask]).new_run("go")
    run.run_sync()
    data = run.prompt.model_dump(mode="json")
    data["items"][1]["set_aside"] = {"at": "2026-12-01T10:00:00Z", "by": "view"}

    with pytest.raises(InvalidTranscriptError) as caught:
        Prompt.model_validate(data)

    assert [p.rule for p in caught.value.problems] == ["set-aside-turns-wait-on-nobody"]
    assert caught.value.problems[0].path == "items[2].interrupts[0]"


def test_a_replay_follows_the_turns_the_run_kept() -> None:
    model = Answers("First try.", "Second try.")
    run = Agent(model=model).new_run("Write a haiku")
    run.run_sync()
    run.retry_sync()

    replayed = Agent(model=ReplayModel(run.prompt)).new_run(
        Prompt(items=[UserMessage(text="Write a haiku")])
    )

    assert replayed.run_sync().output == "Second try."
