"""`pausepoint.host`: another framework's agent run in this kernel through its own AG-UI
events. What each framework's pauses become is tested with the framework's own agents
(test_interop_langchain_hitl.py, test_interop_pydantic_ai.py, both served and hosted);
here, what hosting itself does: the events a source gives, how a hosted run ends however
it ends, and what it says it lacks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from tests.helpers import require_peer
from tests.widget.recording import RecordingComm, comms

import pausepoint
from pausepoint.agui import HostedRun, RemoteLimits, host
from pausepoint.errors import UsageError
from pausepoint.transcript import AssistantMessage

__all__ = ["comms"]


def said(run: HostedRun) -> list[str]:
    return [i.text for i in run.prompt.items if isinstance(i, AssistantMessage)]


def answer_with(text: str, *, after: list[dict[str, Any]] | None = None) -> Any:
    """An event source answering every request with `text`; `after` follows RUN_FINISHED.
    Its `bodies` are the requests, `closed` counts the streams closed."""
    bodies: list[dict[str, Any]] = []
    closed: list[int] = []

    async def source(body: dict[str, Any]) -> AsyncIterator[Any]:
        bodies.append(body)
        thread, run = body["threadId"], body["runId"]
        try:
            yield {"type": "RUN_STARTED", "threadId": thread, "runId": run}
            # The same events as SSE text, as a framework's encoder writes them.
            yield (
                "data: "
                + json.dumps({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"})
                + "\n\n"
            )
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": text}
            yield {"type": "TEXT_MESSAGE_END", "messageId": "m1"}
            yield {"type": "RUN_FINISHED", "threadId": thread, "runId": run}
            for event in after or []:
                yield event
        finally:
            closed.append(1)

    source.bodies = bodies  # type: ignore[attr-defined]
    source.closed = closed  # type: ignore[attr-defined]
    return source


async def test_a_hosted_source_is_run_and_read_as_a_served_agent_would_be() -> None:
    source = answer_with("Hello from the framework.")
    run = host(source)

    result = await run.run("Hi")

    assert result.status == "completed", result.error
    assert said(run) == ["Hello from the framework."]
    (body,) = source.bodies
    assert body["threadId"] == run.id
    assert body["messages"][-1]["content"] == "Hi"
    assert body["protocolVersion"] == "1.0"
    # The next request carries the conversation, as it would to a server.
    await run.run("Again")
    assert [m["role"] for m in source.bodies[-1]["messages"]] == ["user", "assistant", "user"]


async def test_what_a_source_sends_after_its_last_event_is_read_but_not_heard() -> None:
    """A framework may save its state after its last event: the stream is read to its end;
    what comes after RUN_FINISHED changes nothing."""
    late = {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"}
    source = answer_with("Done.", after=[late])
    run = host(source)

    result = await run.run("Hi")

    assert result.status == "completed", result.error
    assert said(run) == ["Done."]
    assert source.closed == [1]
    assert late not in run.events


async def test_a_hosted_run_ends_with_its_frameworks_failure() -> None:
    async def source(body: dict[str, Any]) -> AsyncIterator[Any]:
        yield {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}
        raise RuntimeError("the graph has no node 'agent'")

    run = host(source)
    result = await run.run("Hi")

    assert result.status == "failed"
    assert result.error is not None
    assert (result.error.name, result.error.message) == (
        "RuntimeError",
        "the graph has no node 'agent'",
    )
    assert run.status == "failed"


async def test_a_source_that_sends_too_much_is_cut_off_within_the_limits() -> None:
    async def source(body: dict[str, Any]) -> AsyncIterator[Any]:
        yield {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}
        yield {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}
        while True:
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "la"}

    run = host(source, limits=RemoteLimits(max_events=50))
    result = await run.run("Sing")

    assert result.status == "failed"
    assert result.error is not None
    assert "more than 50 events" in result.error.message


async def test_stop_closes_the_frameworks_stream_and_keeps_what_it_said() -> None:
    writing = asyncio.Event()
    closed: list[bool] = []

    async def source(body: dict[str, Any]) -> AsyncIterator[Any]:
        try:
            yield {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}
            yield {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Thinking"}
            writing.set()
            await asyncio.Event().wait()  # a model that never finishes
        finally:
            closed.append(True)

    run = host(source)
    started = run.start("Hi")
    assert started is run
    await writing.wait()

    stopped = await run.cancel("Enough.")

    assert stopped is not None
    assert stopped.status == "cancelled"
    assert closed == [True]
    # What was written stays, as a reply cut by the stop, and goes back on Continue.
    assert said(run) == ["Thinking"]
    (cut,) = [i for i in run.prompt.items if isinstance(i, AssistantMessage)]
    assert cut.stopped
    assert run.messages[-1]["content"] == "Thinking"


async def test_a_hosted_run_says_what_it_lacks_naming_its_framework(
    comms: list[RecordingComm],
) -> None:
    run = HostedRun(answer_with("Hi."), framework="LangGraph", thread_id="t-hosted")
    await run.run("Hello")

    for refused in (
        lambda: run.debug,
        lambda: run.fork(at="x"),
        lambda: run.edit_item(0, text="x"),
        lambda: run.model_request(0),
    ):
        with pytest.raises(UsageError, match="executed by LangGraph"):
            refused()
    with pytest.raises(UsageError, match="no debugger, forks, Retry or store"):
        await run.retry()
    meta = run.view.meta
    assert meta["hosted"] == "LangGraph"
    assert repr(run) == "<HostedRun t-hosted completed (LangGraph)>"


def test_what_cannot_be_hosted_is_refused_saying_what_can() -> None:
    with pytest.raises(UsageError, match="compiled LangGraph graph, a Pydantic AI Agent"):
        pausepoint.host(42)
    with pytest.raises(UsageError, match="takes no options; got deps"):
        host(answer_with("x"), deps=1)


def test_a_langgraph_graph_without_a_checkpointer_is_refused_saying_how_to_compile_it() -> None:
    require_peer("langgraph", "LangGraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph

    graph = StateGraph(MessagesState)
    graph.add_node("agent", lambda state: {"messages": []})
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)

    with pytest.raises(UsageError, match=r"compile it with one, e\.g\. graph\.compile\("):
        host(graph.compile())
    assert host(graph.compile(checkpointer=InMemorySaver())).framework == "LangGraph"
