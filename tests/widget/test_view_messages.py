"""The view's Python side, without a kernel: what it sends, and answers from the front end."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from pydantic import BaseModel, Field
from tests.helpers import Recorder, paused_delete, until
from tests.widget.recording import RecordingComm, recording_of, response_to

from pausepoint import (
    Action,
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    action,
    call,
)
from pausepoint.widget import RunView


class Refund(BaseModel):
    order_id: int
    amount: float = Field(gt=0)


async def paused_refund(executed: list[Refund]) -> AgentRun:
    """A run waiting for approval of a refund; approved refunds land in `executed`."""
    model = ScriptedModel([call("refund", order_id=1, amount=5.0), "ok"])
    run = Agent(model=model, actions=[refund_action(executed)]).new_run("x")
    await run.run()
    return run


def refund_action(executed: list[Refund]) -> Action:
    @action(needs_approval=True)
    async def refund(input: Refund) -> str:
        """Refund an order."""
        executed.append(input)
        return f"refunded {input.amount}"

    return refund


def _last_status(recording: RecordingComm) -> str | None:
    """The status the front end was last sent, None before any."""
    sent = [s["status"] for s in recording.updates() if "status" in s]
    return sent[-1] if sent else None


async def test_view_opens_with_the_full_state(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record)

    view = run.view
    state = comms[-1].opened_state()

    assert state["run_id"] == run.id
    assert state["status"] == "interrupted"
    assert state["items"] == [i.model_dump(mode="json") for i in run.prompt.items]
    (card,) = state["pending"]
    assert card["id"] == run.pending[0].id
    assert card["kind"] == "generic"
    assert card["message"] == "Approve deleting the record?"
    assert card["toolName"] == "delete_record"
    assert run.view is view


async def test_run_events_become_small_item_messages(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "Gone."]), actions=[delete_record]
    ).new_run("x")
    run.view  # noqa: B018 - opening the view subscribes it
    recording = comms[-1]

    await run.run()
    await until(lambda: _last_status(recording) == "interrupted")  # within an interval

    # Applying the messages to the opening state, as the front end does, gives the transcript.
    items = recording.opened_state()["items"]
    for message in recording.custom("items"):
        start = message["start"]
        assert start >= 1  # the user message is never sent again
        items[start : start + len(message["items"])] = message["items"]
    assert items == [i.model_dump(mode="json") for i in run.prompt.items]
    assert items[-1]["status"] == "interrupted"
    states = recording.updates()
    assert states[0]["status"] == "running"
    assert states[-1]["status"] == "interrupted"
    assert run.view.pending[0]["id"] == run.pending[0].id
    # the trait is current in the kernel without being resent
    assert run.view.items == [i.model_dump(mode="json") for i in run.prompt.items]
    assert not any("items" in s for s in states)


@pytest.mark.parametrize("from_thread", [False, True])
async def test_resume_request_runs_on_the_run_loop_and_answers_ok(
    delete_record: Action, recorder: Recorder, comms: list[RecordingComm], from_thread: bool
) -> None:
    run = await paused_delete(delete_record, "Gone.")
    recording = recording_of(run)
    message = {
        "type": "resume",
        "requestId": "r1",
        "interrupt": run.pending[0].id,
        "data": {"approved": True},
    }
    loop_threads: list[int] = []
    run.on("tool_call_started", lambda e: loop_threads.append(threading.get_ident()))

    if from_thread:
        await asyncio.to_thread(recording.browser_send, message)
    else:
        recording.browser_send(message)

    (response,) = await until(lambda: recording.custom("response"))
    assert response == {"type": "response", "requestId": "r1", "ok": True}
    await until(lambda: run.view.status == "completed")
    assert recorder.count("delete_record") == 2
    assert loop_threads == [threading.get_ident()]  # the action re-ran on the run's loop
    assert run.prompt.output == "Gone."
    answered = next(run.prompt.tool_calls()).interrupts[0].resolution
    assert answered is not None
    assert answered.by == "view"


async def test_invalid_answer_gets_an_error_response_with_problems(
    comms: list[RecordingComm],
) -> None:
    executed: list[Refund] = []
    run = await paused_refund(executed)
    recording = recording_of(run)
    before = run.prompt.model_dump_json()

    recording.browser_send(
        {
            "type": "resume",
            "requestId": "bad",
            "interrupt": run.pending[0].id,
            "data": {"approved": True, "editedArgs": {"order_id": 1, "amount": -3}},
        }
    )

    (response,) = await until(lambda: recording.custom("response"))
    assert response["ok"] is False
    assert response["error"]["name"] == "InvalidResolutionError"
    assert [p["path"] for p in response["error"]["problems"]] == ["$.editedArgs.amount"]
    assert run.prompt.model_dump_json() == before
    assert executed == []
    assert run.view.status == "interrupted"


async def test_double_click_runs_the_action_once(comms: list[RecordingComm]) -> None:
    executed: list[Refund] = []
    run = await paused_refund(executed)
    recording = recording_of(run)
    interrupt = run.pending[0].id

    threads = [
        threading.Thread(
            target=recording.browser_send,
            args=({"type": "resume", "requestId": f"r{i}", "interrupt": interrupt, "data": True},),
        )
        for i in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    responses = await until(
        lambda: len(recording.custom("response")) == 2 and recording.custom("response")
    )
    assert sorted(r["ok"] for r in responses) == [False, True]
    (refused,) = [r for r in responses if not r["ok"]]
    assert refused["error"]["name"] == "InterruptAlreadyResolvedError"
    await until(lambda: run.view.status == "completed")
    assert len(executed) == 1


async def test_a_second_card_answered_while_the_first_ones_action_runs_counts(
    comms: list[RecordingComm],
) -> None:
    """Two cards clicked one after the other: the second answer comes while the first
    one's action still runs, waits for it, and is recorded; nothing is refused."""
    entered = asyncio.Event()
    gate = asyncio.Event()
    moved: list[str] = []

    @action(needs_approval=True)
    async def move(to: str) -> str:
        """Move the files."""
        entered.set()
        await gate.wait()
        moved.append(to)
        return f"moved to {to}"

    model = ScriptedModel([[call("move", to="a"), call("move", to="b")], "done"])
    run = Agent(model=model, actions=[move]).new_run("x")
    await run.run()
    recording = recording_of(run)
    first, second = (entry.id for entry in run.pending)

    recording.browser_send({"type": "resume", "requestId": "a", "interrupt": first, "data": True})
    await entered.wait()
    assert run.busy
    recording.browser_send(
        {"type": "reject", "requestId": "b", "interrupt": second, "reason": "Not b."}
    )
    await asyncio.sleep(0)
    assert [r["requestId"] for r in recording.custom("response")] == ["a"]  # b waits
    gate.set()

    reply = await response_to(recording, {"type": "follow", "requestId": "f"})
    assert reply["ok"]
    await until(lambda: run.view.status == "completed")
    responses = {r["requestId"]: r for r in recording.custom("response")}
    assert [responses[r]["ok"] for r in "ab"] == [True, True], responses
    assert moved == ["a"]
    a, b = run.prompt.tool_calls()
    assert a.result == "moved to a"
    assert b.error is not None
    assert b.error.message == "Not b."
    answered = b.latest_interrupt
    assert answered is not None
    assert answered.resolution is not None
    assert answered.resolution.by == "view"


async def test_reject_request_records_the_reason(
    delete_record: Action, recorder: Recorder, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record, "Kept.")
    recording = recording_of(run)

    recording.browser_send(
        {"type": "reject", "requestId": "r", "interrupt": run.pending[0].id, "reason": "Not now."}
    )

    await until(lambda: recording.custom("response"))
    await until(lambda: run.view.status == "completed")
    record = next(run.prompt.tool_calls())
    assert record.error is not None
    assert record.error.message == "Not now."
    assert recorder.count("delete_record") == 1


async def test_malformed_requests_are_answered_with_an_error(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record)
    recording = recording_of(run)
    before = run.prompt.model_dump_json()

    recording.browser_send({"type": "explode", "requestId": "a"})
    recording.browser_send({"type": "resume", "requestId": "b"})
    recording.browser_send({"type": "resume", "requestId": "c", "interrupt": "int_missing"})
    recording.browser_send({"type": "resume"})  # no id: answered with a null id

    responses = await until(
        lambda: len(recording.custom("response")) == 4 and recording.custom("response")
    )
    codes = {r["requestId"]: (r["error"]["name"], r["error"]["code"]) for r in responses}
    assert codes == {
        "a": ("BadRequest", "bad-request"),
        "b": ("BadRequest", "bad-request"),
        "c": ("UnknownInterruptError", "not-found"),
        None: ("BadRequest", "bad-request"),
    }
    assert run.prompt.model_dump_json() == before


async def test_streaming_text_is_coalesced(comms: list[RecordingComm]) -> None:
    words = " ".join(f"w{i}" for i in range(1000))
    run = Agent(model=ScriptedModel([words], token_delay=0.0005)).new_run("talk")
    run.view  # noqa: B018
    recording = comms[-1]
    loop = asyncio.get_running_loop()

    started = loop.time()
    await run.run()
    elapsed = loop.time() - started

    texts = recording.custom("text")
    assert 1 <= len(texts) <= elapsed * 30 + 2
    assert len(texts) < 1000 / 10
    assert run.view.items[-1]["text"] == words


async def test_cell_end_sends_the_transcript_once_when_changed(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7)]), actions=[delete_record]
    ).new_run("x")
    view = run.view
    recording = comms[-1]
    view.sync_at_cell_end()
    assert not any("items" in s for s in recording.updates())

    await run.run()
    view.sync_at_cell_end()
    view.sync_at_cell_end()

    synced = [s["items"] for s in recording.updates() if "items" in s]
    assert synced == [[i.model_dump(mode="json") for i in run.prompt.items]]


async def test_cell_end_leaves_the_transcript_to_a_front_end_that_follows_its_messages(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    """A front end that applies the items messages says so: a long run's whole transcript
    is not sent to it again at the end of each cell; status and cards still are."""
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "done"]), actions=[delete_record]
    ).new_run("x")
    view = run.view
    recording = comms[-1]
    reply = await response_to(recording, {"type": "follow", "requestId": "pp-follow"})
    assert reply == {"type": "response", "requestId": "pp-follow", "ok": True}

    await run.run()
    await until(lambda: _last_status(recording) == "interrupted")
    sent_live = len(recording.updates())
    view.sync_at_cell_end()

    assert [sorted(s) for s in recording.updates()[sent_live:]] == [
        ["error", "pending", "started_at", "status"]
    ]
    items = recording.custom("items")
    assert items[-1]["items"][-1]["status"] == "interrupted"  # the messages carried it
    assert view.items == [i.model_dump(mode="json") for i in run.prompt.items]


async def test_cell_end_resends_status_and_cards_changed_since_the_last_cell(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    """A headless client keeps only the current cell's messages: what a background run
    changed must reach it again when a cell ends, once."""
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "done"]), actions=[delete_record]
    ).new_run("x")
    view = run.view
    recording = comms[-1]
    view.sync_at_cell_end()
    assert recording.updates() == []

    await run.run()
    await until(lambda: _last_status(recording) == "interrupted")
    sent_live = len(recording.updates())
    view.sync_at_cell_end()
    view.sync_at_cell_end()

    at_cell_end = recording.updates()[sent_live:]
    assert [sorted(s) for s in at_cell_end] == [
        ["items"],
        ["error", "pending", "started_at", "status"],
    ]
    assert at_cell_end[1]["status"] == "interrupted"
    assert [card["id"] for card in at_cell_end[1]["pending"]] == [run.pending[0].interrupt.id]


async def test_a_restored_run_can_be_answered_from_its_view(
    delete_record: Action, recorder: Recorder, comms: list[RecordingComm]
) -> None:
    from pausepoint import Prompt

    script = ScriptedModel([call("delete_record", id=7), "Gone."])
    first = Agent(model=script, actions=[delete_record]).new_run("x")
    await first.run()
    restored = AgentRun(
        Agent(model=script, actions=[delete_record]),
        Prompt.model_validate_json(first.prompt.model_dump_json()),
    )
    view = RunView(restored)  # the run never ran here: answers go to the view's loop
    recording = comms[-1]
    assert view.status == "interrupted"

    recording.browser_send(
        {
            "type": "resume",
            "requestId": "r",
            "interrupt": restored.pending[0].id,
            "data": {"approved": True},
        }
    )

    await until(lambda: view.status == "completed")
    assert restored.prompt.output == "Gone."


async def test_interrupt_with_schema_shows_it_on_the_card(comms: list[RecordingComm]) -> None:
    class Shipping(BaseModel):
        speed: str

    @action
    async def ship(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("Which speed?", response_schema=Shipping)
        return ctx.resumption.data["speed"]

    run = Agent(model=ScriptedModel([call("ship"), "ok"]), actions=[ship]).new_run("x")
    await run.run()
    (card,) = run.view.pending
    assert card["responseSchema"] == Shipping.model_json_schema()
    assert card["inputSchema"] is None


async def test_plain_text_form_of_a_displayed_run_summarises_it(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record)
    bundle = run._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"].startswith(f"<AgentRun {run.id} interrupted>")
    assert f"waiting on {run.pending[0].id}: Approve deleting the record?" in data["text/plain"]


async def test_interrupts_from_other_producers_show_as_unbound_cards(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record, "Deleted.")
    other = Agent(
        model=ScriptedModel([call("delete_record", id=8)]), actions=[delete_record]
    ).new_run("y")
    await other.run()
    recording = recording_of(run)

    foreign = {"id": "wf-1", "reason": "confirmation", "message": "Approve the deploy?"}
    classified = run.view.show_interrupt(foreign)
    run.view.show_interrupt(other.pending[0].to_agui())

    assert classified.kind == "unbound"
    ours, workflow, other_run = run.view.pending
    assert ours["canResolve"] is True
    assert (workflow["kind"], workflow["canResolve"], workflow["message"]) == (
        "unbound",
        False,
        "Approve the deploy?",
    )
    assert "no binding" in workflow["readOnlyReason"]
    assert (other_run["kind"], other_run["canResolve"]) == ("unbound", False)
    assert other.id in other_run["readOnlyReason"]
    # The AG-UI reason and the sentence for people are two fields.
    assert (ours["aguiReason"], ours["readOnlyReason"]) == ("input_required", None)
    assert workflow["aguiReason"] is None
    # answering this run's own card still works, and the foreign cards stay
    recording.browser_send(
        {"type": "resume", "requestId": "r", "interrupt": ours["id"], "data": {"approved": True}}
    )
    await until(lambda: run.view.status == "completed")
    assert [c["id"] for c in run.view.pending] == ["wf-1", other.pending[0].id]


async def test_a_view_opened_after_the_run_ended_shows_how_it_ended(
    comms: list[RecordingComm],
) -> None:
    done = Agent(model=ScriptedModel(["Hi."])).new_run("x")
    await done.run()
    assert done.view.status == "completed"

    failed = Agent(model=ScriptedModel([])).new_run("x")
    await failed.run()
    assert failed.view.status == "failed"
    assert failed.view.error["name"] == "ScriptExhaustedError"


async def test_a_closed_view_is_replaced_when_the_run_is_shown_again(
    comms: list[RecordingComm],
) -> None:
    run = Agent(model=ScriptedModel(["Hi."])).new_run("x")
    first = run.view
    first.close()
    bundle = run._repr_mimebundle_()
    assert run.view is not first
    assert bundle is not None


async def test_streamed_text_never_arrives_before_the_items_it_follows(
    comms: list[RecordingComm],
) -> None:
    @action
    def ping() -> str:
        return "pong"

    def script(request: ModelRequest) -> Any:
        turns = sum(1 for i in request.items if i.type == "assistant")
        if turns == 0:
            return ModelResponse(tool_calls=[call("ping")])
        return "All good, " * 20

    model = ScriptedModel(script, token_delay=0.002)
    run = Agent(model=model, actions=[ping]).new_run("x")
    recording = recording_of(run)
    await run.run()

    # Replay the messages as the front end does: appending an assistant item clears the
    # streamed text, so text must only ever belong to the turn still to come.
    items = recording.opened_state()["items"]
    streamed = ""
    for message in recording.custom():
        if message["type"] == "text":
            streamed += message["delta"]
        elif message["type"] == "items":
            start = message["start"]
            for offset, item in enumerate(message["items"]):
                if start + offset >= len(items) and item["type"] == "assistant":
                    assert item["text"].startswith(streamed)
                    streamed = ""
            items[start : start + len(message["items"])] = message["items"]
    assert items == [i.model_dump(mode="json") for i in run.prompt.items]


async def test_a_run_answered_at_each_pause_from_code_sends_its_state_paced(
    comms: list[RecordingComm],
) -> None:
    """300 pauses answered at once from code: the front end gets the latest state at most
    once an interval, not once a pause, and the end of the run at once and whole."""

    @action(needs_approval=True)
    def step(n: int) -> int:
        return n

    model = ScriptedModel([call("step", n=i) for i in range(300)] + ["done"])
    run = Agent(model=model, actions=[step]).new_run("x")
    recording = recording_of(run)
    loop = asyncio.get_running_loop()

    started = loop.time()
    result = await run.run()
    while result.status == "interrupted":
        result = await run.resume(True)
    elapsed = loop.time() - started

    statuses = [s["status"] for s in recording.updates() if "status" in s]
    assert statuses[-1] == "completed"
    assert len(statuses) <= elapsed * 30 + 3
    assert len(statuses) < 300
    items = recording.opened_state()["items"]
    for message in recording.custom("items"):
        start = message["start"]
        items[start : start + len(message["items"])] = message["items"]
    assert items == [i.model_dump(mode="json") for i in run.prompt.items]


async def test_a_cell_that_ends_while_a_pause_waits_to_be_sent_sends_it(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    """A pause right after another change waits for the end of the interval; a cell ending
    first (nbclient keeps only its messages) sends it then, with the transcript."""
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "done"]), actions=[delete_record]
    ).new_run("x")
    view = run.view
    recording = comms[-1]

    await run.run()
    view.sync_at_cell_end()

    assert _last_status(recording) == "interrupted"
    items = recording.custom("items")
    assert items[-1]["items"][-1]["status"] == "interrupted"


async def test_a_page_that_follows_late_gets_the_transcript_the_messages_changed(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    """A host that gives a page opened again the state it keeps (marimo keeps the state
    and its updates, not the items messages, and does not ask the kernel) would draw a
    transcript the messages have moved past: the page's `follow` sends the `items` trait
    again, once, which brings the host's copy up to date too."""
    run = Agent(
        model=ScriptedModel([call("delete_record", id=7), "done"]), actions=[delete_record]
    ).new_run("x")
    assert run.view is not None  # the view, made: its comm is the last one
    recording = comms[-1]

    def items_synced() -> list[Any]:
        return [s["items"] for s in recording.updates() if "items" in s]

    await response_to(recording, {"type": "follow", "requestId": "pp-follow"})
    assert items_synced() == []  # nothing moved since the view was made

    await run.run()
    await until(lambda: _last_status(recording) == "interrupted")
    assert recording.custom("items")

    await response_to(recording, {"type": "follow", "requestId": "pp-follow-2"})
    assert items_synced() == [[i.model_dump(mode="json") for i in run.prompt.items]]

    await response_to(recording, {"type": "follow", "requestId": "pp-follow-3"})
    assert len(items_synced()) == 1  # the host has it now: not again
