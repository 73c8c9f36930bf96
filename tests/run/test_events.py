"""Events: typed, in order; sync or async handlers; a failing handler never breaks the run."""

from __future__ import annotations

import logging

import pytest

from pausepoint import Action, Agent, ScriptedModel, call


async def test_events_arrive_in_order_for_a_full_interrupt_cycle(delete_record: Action) -> None:
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "Gone."]), actions=[delete_record]
    ).new_run("x")
    names: list[str] = []
    run.on("*", lambda e: names.append(e.name))
    await run.run()
    await run.resume({"approved": True})
    assert names == [
        "run_started",
        "message",
        "tool_call_started",
        "interrupted",
        "run_finished",
        "resolved",
        "run_started",
        "tool_call_started",
        "tool_call_finished",
        "text_delta",
        "message",
        "completed",
        "run_finished",
    ]


async def test_sync_and_async_handlers_both_run(delete_record: Action) -> None:
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "Gone."]), actions=[delete_record]
    ).new_run("x")
    got: list[str] = []

    async def async_handler(event: object) -> None:
        got.append("async")

    run.on("interrupted", async_handler)
    run.on("interrupted", lambda e: got.append("sync"))
    await run.run()
    assert got == ["async", "sync"]


async def test_a_raising_handler_is_logged_and_the_run_goes_on(
    delete_record: Action, caplog: pytest.LogCaptureFixture
) -> None:
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "Gone."]), actions=[delete_record]
    ).new_run("x")
    later: list[str] = []

    def broken(event: object) -> None:
        raise RuntimeError("handler bug")

    async def broken_async(event: object) -> None:
        raise RuntimeError("async handler bug")

    run.on("interrupted", broken)
    run.on("interrupted", broken_async)
    run.on("interrupted", lambda e: later.append(e.message))
    with caplog.at_level(logging.ERROR, logger="pausepoint"):
        result = await run.run()
    assert result.status == "interrupted"
    assert later == ["Approve deleting the record?"]
    assert sum("handler raised" in r.message for r in caplog.records) == 2
    assert (await run.resume({"approved": True})).status == "completed"


async def test_unsubscribe_and_unknown_event_names(delete_record: Action) -> None:
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "Gone."]), actions=[delete_record]
    ).new_run("x")
    got: list[str] = []
    off = run.on("interrupted", lambda e: got.append("x"))
    off()
    await run.run()
    assert got == []
    with pytest.raises(ValueError, match="Unknown event"):
        run.on("interupted", print)  # type: ignore[arg-type]


async def test_text_streams_as_deltas_before_the_message() -> None:
    run = Agent(model=ScriptedModel(["Hello there, friend."])).new_run("hi")
    parts: list[str] = []
    run.on("text_delta", lambda e: parts.append(e.text))
    result = await run.run()
    assert "".join(parts) == result.output == "Hello there, friend."
    assert len(parts) == 3


async def test_wait_returns_the_result_of_a_background_start(delete_record: Action) -> None:
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "Gone."]), actions=[delete_record]
    ).start("x")
    assert run.result is None
    result = await run.wait()
    assert result.status == "interrupted"
    assert run.result is result
    await run.resume({"approved": True})
    assert (await run.wait()).status == "completed"
