"""A strict mirror: RemoteRun refuses events that would make its transcript say something
false (a run of another thread, a second call under an id still open, a pause bound to
another request) with a `RemoteProtocolError`; the refused event records nothing."""

from __future__ import annotations

import copy
from typing import Any

from pausepoint import Agent, ModelResponse, ScriptedModel, action, call
from pausepoint.agui import RemoteRun
from pausepoint.errors import RemoteProtocolError
from pausepoint.interrupts import BINDING_METADATA_KEY
from pausepoint.run import FailedEvent
from pausepoint.transcript import AssistantMessage, ToolCall, UserMessage

from .canned import FOREIGN_RUN, Canned, refused, serving, stream
from .test_remote import DONE, START, text, tool_call


@action(needs_approval=True)
def refund(order_id: int) -> str:
    """Refund an order."""
    return "ok"


def approval() -> dict[str, Any]:
    """An approval as pausepoint's server sends it, with its binding."""
    local = Agent(
        model=ScriptedModel([ModelResponse(tool_calls=[call("refund", order_id=42)]), "Done."]),
        actions=[refund],
    ).new_run("Refund order 42")
    local.run_sync()
    return local.agui_interrupts()[0]


def follow(*replies: Any) -> tuple[RemoteRun, list[Any], list[FailedEvent]]:
    server = Canned(*replies)
    results: list[Any] = []
    failed: list[FailedEvent] = []
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        remote.on("failed", failed.append)
        results.append(remote.run_sync("Refund order 42"))
        if remote.pending:
            results.append(remote.resume_sync(True))
    return remote, results, failed


def refusal(result: Any, failed: list[FailedEvent], event: str) -> RemoteProtocolError:
    assert result.status == "failed"
    assert result.error.name == "RemoteProtocolError"
    exception = failed[-1].exception
    assert isinstance(exception, RemoteProtocolError)
    assert exception.event == event
    return exception


def test_a_run_finished_naming_another_thread_is_refused_and_records_nothing() -> None:
    def reply(body: dict[str, Any]) -> list[dict[str, Any]]:
        *events, finished = stream(START, *text("m1", "Refunded."), DONE)(body)
        return [*events, {**finished, "threadId": "thread_of_someone_else"}]

    remote, (result,), failed = follow(reply)

    error = refusal(result, failed, "RUN_FINISHED")
    assert "'thread_of_someone_else', not this run's thread" in str(error)
    # The text it would have closed is not written: the transcript is as it was.
    assert remote.prompt.items == [UserMessage(text="Refund order 42")]
    assert remote.status == "failed"


def test_a_run_started_or_run_error_naming_another_thread_is_refused() -> None:
    def started_elsewhere(body: dict[str, Any]) -> list[dict[str, Any]]:
        first, *rest = stream(START, *text("m1", "Refunded."), DONE)(body)
        return [{**first, "threadId": "thread_of_someone_else"}, *rest]

    remote, (result,), failed = follow(started_elsewhere)
    refusal(result, failed, "RUN_STARTED")
    assert remote.prompt.items == [UserMessage(text="Refund order 42")]

    error = {"type": "RUN_ERROR", "threadId": "thread_of_someone_else", "code": "cancelled"}
    remote, (result,), failed = follow(stream(START, error))
    refusal(result, failed, "RUN_ERROR")
    assert result.error.name != "cancelled"  # another thread's ending is not this one's


def test_a_second_call_under_an_id_still_open_is_refused() -> None:
    twice = stream(
        START,
        *tool_call("call_1", "refund", '{"order_id": 42}', "m1"),
        *tool_call("call_1", "refund", '{"order_id": 43}', "m1"),
        {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "call_1", "content": "ok"},
        DONE,
    )

    remote, (result,), failed = follow(twice)

    error = refusal(result, failed, "TOOL_CALL_START")
    assert "'call_1' is already the id of a call that has not ended" in str(error)
    assert not [i for i in remote.prompt.items if isinstance(i, ToolCall)]


def test_a_call_reusing_the_id_of_a_paused_call_is_refused() -> None:
    interrupt = approval()
    call_id = interrupt["toolCallId"]
    paused = stream(
        START,
        *tool_call(call_id, "refund", '{"order_id": 42}', "m1"),
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [interrupt]}},
    )
    # The continuation starts a new call under the id of the call it is answering; it is
    # told apart from the same call told again once its arguments are all there.
    again = stream(START, *tool_call(call_id, "refund", '{"order_id": 7}', "m2"), DONE)

    remote, (paused_result, result), failed = follow(paused, again)

    assert paused_result.status == "interrupted"
    refusal(result, failed, "TOOL_CALL_END")
    (record,) = [i for i in remote.prompt.items if isinstance(i, ToolCall)]
    assert record.input == {"order_id": 42}


def test_an_answered_call_told_again_as_it_runs_is_the_same_call() -> None:
    # LangGraph's adapter tells a call again as it carries out its answer.
    interrupt = approval()
    call_id = interrupt["toolCallId"]
    paused = stream(
        START,
        *tool_call(call_id, "refund", '{"order_id": 42}', "m1"),
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [interrupt]}},
    )
    again = stream(
        START,
        *tool_call(call_id, "refund", '{"order_id": 42}', "m2"),
        {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": call_id, "content": '"ok"'},
        DONE,
    )

    remote, (paused_result, result), _ = follow(paused, again)

    assert (paused_result.status, result.status) == ("interrupted", "completed")
    (record,) = [i for i in remote.prompt.items if isinstance(i, ToolCall)]
    assert (record.status, record.result) == ("succeeded", "ok")


def test_an_id_reused_once_its_call_has_ended_is_a_new_call() -> None:
    # Some model servers number calls per turn: call_0 again in the next turn is new.
    def turn(n: int) -> list[dict[str, Any]]:
        return [
            *tool_call("call_0", "lookup", f'{{"order": {n}}}', f"m{n}"),
            {
                "type": "TOOL_CALL_RESULT",
                "messageId": f"r{n}",
                "toolCallId": "call_0",
                "content": f'"order {n} found"',
            },
        ]

    remote, (result,), failed = follow(
        stream(START, *turn(1), *turn(2), *text("m3", "Both."), DONE)
    )

    assert (result.status, failed) == ("completed", [])
    records = [i for i in remote.prompt.items if isinstance(i, ToolCall)]
    assert [(r.input, r.status, r.result) for r in records] == [
        ({"order": 1}, "succeeded", "order 1 found"),
        ({"order": 2}, "succeeded", "order 2 found"),
    ]


def test_a_pause_bound_to_another_request_is_refused_not_offered() -> None:
    interrupt = copy.deepcopy(approval())
    interrupt["metadata"][BINDING_METADATA_KEY]["interruptedRunId"] = FOREIGN_RUN
    paused = stream(
        START,
        *tool_call(interrupt["toolCallId"], "refund", '{"order_id": 42}', "m1"),
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [interrupt]}},
    )

    remote, (result,), failed = follow(paused)

    error = refusal(result, failed, "RUN_FINISHED")
    assert f"bound to run {FOREIGN_RUN!r}, not to this request's run 'run_" in str(error)
    assert remote.pending == ()
    assert remote.interrupts == []
    assert [type(i) for i in remote.prompt.items] == [UserMessage]  # the call it closed too
    assert remote.view.pending == []


def test_unbound_pauses_of_other_producers_are_still_shown_read_only() -> None:
    unbound = {"id": "9f1c", "reason": "refund_approval", "message": "Approve?"}
    paused = stream(
        START,
        *text("m1", "Asking."),
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [unbound]}},
    )

    remote, (result,), failed = follow(paused)

    assert (result.status, failed) == ("interrupted", [])
    assert remote.interrupts == [unbound]
    assert remote.prompt.items[-1] == AssistantMessage(text="Asking.")
    (card,) = remote.view.pending
    assert card["canResolve"] is False


def test_pending_tool_call_ids_naming_a_call_the_stream_never_started_are_refused() -> None:
    """A success outcome's `pendingToolCallIds` (AG-UI 1.0, which this client declares)
    may only name calls it heard; a call it did name waits, the others are refused."""
    bodies: list[dict[str, Any]] = []

    def reply(body: dict[str, Any]) -> list[dict[str, Any]]:
        bodies.append(body)
        *events, _ = stream(START, *text("m1", "Shipping."), *tool_call("c1", "ship", "{}", "m1"))(
            body
        )
        outcome = {"type": "success", "pendingToolCallIds": ["c1", "c_unheard"]}
        return [*events, {**DONE, "outcome": outcome}]

    remote, (result,), failed = follow(reply)

    assert bodies[0]["protocolVersion"] == "1.0"
    error = refusal(result, failed, "RUN_FINISHED")
    assert "pendingToolCallIds names 'c_unheard', a call this stream never started" in str(error)
    # Nothing of the refused stretch is recorded: no call waits, and none is left running.
    assert remote.deferred == []
    assert remote.prompt.items == [UserMessage(text="Refund order 42")]


def test_a_pending_tool_call_ids_that_is_not_a_list_of_ids_is_refused() -> None:
    def reply(body: dict[str, Any]) -> list[dict[str, Any]]:
        *events, _ = stream(START, *tool_call("c1", "ship", "{}", "m1"))(body)
        return [*events, {**DONE, "outcome": {"type": "success", "pendingToolCallIds": [7]}}]

    _, (result,), failed = follow(reply)

    assert "pendingToolCallIds is a list of call ids" in str(
        refusal(result, failed, "RUN_FINISHED")
    )


UNBOUND = {"id": "ask-1", "reason": "input_required", "message": "Which warehouse?"}
PAUSED = stream(
    START,
    *text("m1", "Which one?"),
    {**DONE, "outcome": {"type": "interrupt", "interrupts": [UNBOUND]}},
)


async def test_a_continuation_that_failed_after_the_server_went_on_leaves_no_pause_open() -> None:
    """Only a refusal before anything happened keeps the pauses: a run that failed after
    the server took the answer and moved on waits on nothing."""
    moved = stream(
        START,
        *text("m2", "Shipping from north."),
        {"type": "RUN_ERROR", "message": "The warehouse is closed."},
    )
    with serving(Canned(PAUSED, moved).app()) as url:
        remote = RemoteRun(url)
        await remote.run("Ship order 7")
        assert [c.id for c in remote.foreign] == ["ask-1"]

        failed = await remote.continue_with([{"interruptId": "ask-1", "status": "resolved"}])

    assert failed.status == "failed"
    assert remote.foreign == []
    assert remote.interrupts == []


async def test_a_continuation_refused_with_an_http_error_keeps_the_pause_open() -> None:
    with serving(Canned(PAUSED, refused(409, "stale")).app()) as url:
        remote = RemoteRun(url)
        await remote.run("Ship order 7")

        failed = await remote.continue_with([{"interruptId": "ask-1", "status": "resolved"}])

    assert failed.status == "failed"
    assert failed.error is not None
    assert "409" in failed.error.name
    assert [c.id for c in remote.foreign] == ["ask-1"]
