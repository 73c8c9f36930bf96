"""Finding steps of a long run from the view: filters by tool, status and text read in the
kernel (statuses from `pausepoint.transcript.decisions`), one page at a time, and jumps to a
call, the first pause or the last failure; a request that cannot be read is refused with a code."""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers import until
from tests.widget.recording import RecordingComm, comms, response_to

from pausepoint import ActionContext, ActionInterrupt, Agent, AgentRun, ScriptedModel, action
from pausepoint.transcript import (
    AssistantMessage,
    ErrorInfo,
    InterruptEntry,
    Item,
    RejectResolution,
    ResumeResolution,
    ToolCall,
    ToolCallRequest,
    UserMessage,
)
from pausepoint.widget._find import Filter, TranscriptIndex

__all__ = ["comms"]


def turn(n: int, name: str = "lookup", **fields: Any) -> list[Item]:
    record = ToolCall(id=f"c{n}", name=name, input={"n": n}, **{"status": "succeeded", **fields})
    return [
        AssistantMessage(tool_calls=[ToolCallRequest(id=f"c{n}", name=name, input={"n": n})]),
        record,
    ]


def approval(resolution: Any = None) -> InterruptEntry:
    return InterruptEntry(kind="tool-approval", message="Refund?", resolution=resolution)


def transcript() -> list[Item]:
    """c1 plain, c2 failed, c3 waiting, c4 edited in the view, c5 answered by a policy,
    c6 cancelled, c7 declined in the inbox, c8 failed, c9 a question nobody answered in time."""
    edited = ResumeResolution(data={"approved": True, "editedArgs": {"n": 40}}, by="view")
    expired = RejectResolution(error=ErrorInfo(name="InterruptExpired", message="late"))
    return [
        UserMessage(text="Look everything up, politely"),
        *turn(1, result={"label": "first record"}),
        *turn(2, status="failed", error=ErrorInfo(name="KeyError", message="no record 2")),
        *turn(3, "refund", status="interrupted", interrupts=[approval()]),
        *turn(4, "refund", interrupts=[approval(edited)]),
        *turn(5, "refund", interrupts=[approval(ResumeResolution(data=True, by="policy"))]),
        *turn(6, status="cancelled"),
        *turn(
            7,
            "refund",
            status="rejected",
            interrupts=[
                approval(
                    RejectResolution(error=ErrorInfo(name="Rejected", message="no"), by="inbox")
                )
            ],
        ),
        *turn(8, status="failed", error=ErrorInfo(name="ValueError", message="broken")),
        *turn(9, "ask", status="rejected", interrupts=[approval(expired)]),
        AssistantMessage(text="All done, politely."),
    ]


def calls_of(items: list[Item], positions: Any) -> list[str]:
    return [getattr(items[p], "id", f"message {p}") for p in positions]


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (Filter(status="waiting"), ["c3"]),
        (Filter(status="failed"), ["c2", "c8"]),
        (Filter(status="cancelled"), ["c6"]),
        (Filter(status="edited"), ["c4"]),
        (Filter(status="answered"), ["c4", "c7"]),
        (Filter(tool="refund"), ["c3", "c4", "c5", "c7"]),
        (Filter(tool="refund", status="answered"), ["c4", "c7"]),
        (Filter(tool="nothing"), []),
    ],
)
def test_a_filter_by_tool_and_status_finds_the_calls_that_fit(
    where: Filter, expected: list[str]
) -> None:
    items = transcript()
    found = TranscriptIndex(lambda: items).find(where)
    assert calls_of(items, found.positions) == expected
    assert found.calls == 9


def test_a_text_search_reads_messages_results_errors_and_the_answers_words() -> None:
    items = transcript()
    index = TranscriptIndex(lambda: items)
    assert calls_of(items, index.find(Filter(text="POLITELY")).positions) == [
        "message 0",
        "message 19",
    ]
    assert calls_of(items, index.find(Filter(text="first record")).positions) == ["c1"]
    assert calls_of(items, index.find(Filter(text="no record 2")).positions) == ["c2"]
    # The words of a decision: "Approved with changes: n 4 → 40".
    assert calls_of(items, index.find(Filter(text="n 4 → 40")).positions) == ["c4"]
    assert calls_of(items, index.find(Filter(status="failed", text="broken")).positions) == ["c8"]


def test_the_index_follows_a_call_whose_status_changes_and_new_steps() -> None:
    items = transcript()
    index = TranscriptIndex(lambda: items)
    assert calls_of(items, index.find(Filter(status="waiting")).positions) == ["c3"]
    waiting = items[6]
    assert isinstance(waiting, ToolCall)
    waiting.interrupts[0].resolution = ResumeResolution(data=True, by="view")
    waiting.status = "failed"
    items.extend(turn(10, status="interrupted", interrupts=[approval()]))
    assert calls_of(items, index.find(Filter(status="waiting")).positions) == ["c10"]
    assert calls_of(items, index.find(Filter(status="failed")).positions) == ["c2", "c3", "c8"]
    assert calls_of(items, index.find(Filter(status="answered")).positions) == ["c3", "c4", "c7"]
    assert index.find(Filter()).calls == 10


def test_jump_targets_are_a_call_number_the_first_pause_and_the_last_failure() -> None:
    items = transcript()
    index = TranscriptIndex(lambda: items)
    assert calls_of(items, [index.target(1)[0]]) == ["c1"]
    assert calls_of(items, [index.target(9)[0]]) == ["c9"]
    assert index.target(10) == (None, 9)
    assert calls_of(items, [index.target("first-pause")[0]]) == ["c3"]
    assert calls_of(items, [index.target("last-failure")[0]]) == ["c8"]
    quiet = [UserMessage(text="hi"), *turn(1)]
    assert TranscriptIndex(lambda: quiet).target("last-failure") == (None, 1)


# Through the view's request path, on a real run.


@action
async def lookup(n: int) -> dict[str, int]:
    """Look n up; every seventh fails."""
    if n % 7 == 0:
        raise ValueError(f"no record {n}")
    return {"n": n}


@action
async def ask(n: int, ctx: ActionContext) -> int:
    """Ask a person about n."""
    if ctx.resumption is None:
        raise ActionInterrupt(f"Go on with {n}?")
    return n


def script(calls: int) -> list[Any]:
    return [
        *(
            ToolCallRequest(id=f"call_{n}", name="ask" if n == 30 else "lookup", input={"n": n})
            for n in range(1, calls + 1)
        ),
        "All done.",
    ]


async def finished_run(calls: int = 60) -> tuple[AgentRun, RecordingComm]:
    run = Agent(model=ScriptedModel(script(calls)), actions=[lookup, ask]).new_run("go")
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    result = await run.run()
    if result.status == "interrupted":  # the question at call 30, answered in the view
        answer = {"type": "resume", "requestId": "a", "interrupt": run.pending[0].id, "data": 1}
        assert (await response_to(comm, answer))["ok"] is True
        await until(lambda: run.status == "completed")
    return run, comm


async def test_a_filter_from_the_view_answers_one_page_of_items_as_the_view_draws_them(
    comms: list[RecordingComm],
) -> None:
    run, comm = await finished_run()
    request = {"type": "find", "requestId": "f1", "filter": {"status": "failed"}, "count": 3}
    response = await response_to(comm, request)
    assert response["ok"] is True
    value = response["value"]
    assert (value["total"], value["calls"], value["from"]) == (8, 60, 0)
    assert [(i["call"], i["item"]["id"], i["item"]["status"]) for i in value["items"]] == [
        (7, "call_7", "failed"),
        (14, "call_14", "failed"),
        (21, "call_21", "failed"),
    ]
    assert all(run.prompt.items[i["position"]].id == i["item"]["id"] for i in value["items"])
    assert value["ms"] >= 0
    following = await response_to(comm, {**request, "requestId": "f2", "from": 6})
    assert [i["call"] for i in following["value"]["items"]] == [49, 56]

    text = {"type": "find", "requestId": "f3", "filter": {"tool": "lookup", "text": "record 35"}}
    assert [i["call"] for i in (await response_to(comm, text))["value"]["items"]] == [35]


async def test_jumps_from_the_view_answer_the_page_around_their_step(
    comms: list[RecordingComm],
) -> None:
    run, comm = await finished_run()
    first = await response_to(comm, {"type": "find", "requestId": "j1", "jump": {"call": 1}})
    value = first["value"]
    assert value["call"] == 1
    assert run.prompt.items[value["target"]].id == "call_1"
    assert value["items"][0]["position"] == 0  # the page starts at the transcript's start
    assert "call_1" in [i["item"].get("id") for i in value["items"]]

    failure = await response_to(
        comm, {"type": "find", "requestId": "j2", "jump": "last-failure", "count": 10}
    )
    value = failure["value"]
    assert (value["call"], run.prompt.items[value["target"]].id) == (56, "call_56")
    positions = [i["position"] for i in value["items"]]
    assert positions == list(range(value["target"] - 5, value["target"] + 5))

    pause = await response_to(comm, {"type": "find", "requestId": "j3", "jump": "first-pause"})
    assert pause["value"]["call"] == 30
    answered = {"type": "find", "requestId": "a1", "filter": {"status": "answered"}}
    assert [i["call"] for i in (await response_to(comm, answered))["value"]["items"]] == [30]


@pytest.mark.parametrize(
    "request_",
    [
        {"filter": {"status": "sleepy"}},
        {"filter": {"colour": "red"}},
        {"filter": "failed"},
        {"filter": {"text": "x" * 201}},
        {"filter": {}, "count": 10_000},
        {"filter": {}, "from": -1},
        {"jump": {"call": 0}},
        {"jump": "somewhere"},
    ],
)
async def test_a_find_request_it_cannot_read_is_refused_as_a_bad_request(
    comms: list[RecordingComm], request_: dict[str, Any]
) -> None:
    _, comm = await finished_run(10)
    response = await response_to(comm, {"type": "find", "requestId": "bad", **request_})
    assert response["ok"] is False
    assert response["error"]["code"] == "bad-request"


async def test_a_jump_past_the_last_call_is_refused_as_not_found(
    comms: list[RecordingComm],
) -> None:
    _, comm = await finished_run(10)
    response = await response_to(comm, {"type": "find", "requestId": "j", "jump": {"call": 11}})
    assert response["ok"] is False
    assert response["error"]["code"] == "not-found"
    assert "10 tool calls" in response["error"]["message"]
