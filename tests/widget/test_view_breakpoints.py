"""A breakpoint in the view: its card, and the buttons' answers reaching the run."""

from __future__ import annotations

from tests.debug.helpers import Ledger, refund_agent, refund_script
from tests.helpers import until
from tests.widget.recording import RecordingComm

from pausepoint import AgentRun


async def paused(ledger: Ledger) -> tuple[AgentRun, RecordingComm]:
    run = refund_agent(ledger, refund_script()).new_run("Refund", breakpoints=["refund"])
    await run.run()
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    return run, comm


async def test_the_view_shows_a_breakpoint_card_with_the_action_and_its_schema(
    comms: list[RecordingComm],
) -> None:
    _run, comm = await paused(Ledger())
    (card,) = comm.opened_state()["pending"]
    assert card["kind"] == "breakpoint"
    assert card["toolName"] == "refund"
    assert card["args"] == {"order": 42, "cents": 12_000}
    assert card["inputSchema"]["properties"]["cents"]["type"] == "integer"


async def test_the_edit_button_answer_runs_the_action_with_the_edited_arguments(
    comms: list[RecordingComm],
) -> None:
    ledger = Ledger()
    run, comm = await paused(ledger)
    comm.browser_send(
        {
            "type": "resume",
            "requestId": "r1",
            "interrupt": run.pending[0].id,
            "data": {"action": "edit", "args": {"order": 42, "cents": 900}},
        }
    )
    (response,) = await until(lambda: comm.custom("response"))
    assert response["ok"] is True
    await until(lambda: run.view.status == "completed")
    assert [r.cents for r in ledger.refunds] == [900]


async def test_a_malformed_button_answer_is_refused_and_changes_nothing(
    comms: list[RecordingComm],
) -> None:
    ledger = Ledger()
    run, comm = await paused(ledger)
    before = run.prompt.model_dump_json()
    comm.browser_send(
        {"type": "resume", "requestId": "r1", "interrupt": run.pending[0].id, "data": True}
    )
    (response,) = await until(lambda: comm.custom("response"))
    assert response["ok"] is False
    assert response["error"]["name"] == "InvalidResolutionError"
    assert run.prompt.model_dump_json() == before


async def test_the_step_button_goes_on_from_a_pause_before_the_model(
    comms: list[RecordingComm],
) -> None:
    ledger = Ledger()
    run = refund_agent(ledger, refund_script()).new_run("Refund", step=True)
    await run.run()
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    await until(lambda: run.view.status == "paused")
    comm.browser_send({"type": "debug", "requestId": "r1", "action": "step"})
    (response,) = await until(lambda: comm.custom("response"))
    assert response["ok"] is True
    await until(lambda: run.view.status == "interrupted")
    assert run.pending[0].kind == "breakpoint"
    assert run.pending[0].tool_call.name == "lookup"


async def test_a_step_button_when_not_paused_before_the_model_is_refused(
    comms: list[RecordingComm],
) -> None:
    run, comm = await paused(Ledger())
    comm.browser_send({"type": "debug", "requestId": "r1", "action": "continue"})
    (response,) = await until(lambda: comm.custom("response"))
    assert response["ok"] is False
    assert response["error"]["name"] == "NoPendingInterruptError"
    assert run.pending[0].kind == "breakpoint"


async def test_the_view_sends_a_turns_model_request_on_demand(
    comms: list[RecordingComm],
) -> None:
    run = refund_agent(Ledger(), refund_script()).new_run("Refund")
    await run.run()
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    comm.browser_send({"type": "model_request", "requestId": "r1", "turn": 1})
    (response,) = await until(lambda: comm.custom("response"))
    assert response["ok"] is True
    expected = run.model_request(1)
    assert response["value"]["instructions"] == expected.instructions
    assert response["value"]["items"] == [i.model_dump(mode="json") for i in expected.items]
    assert [a["name"] for a in response["value"]["actions"]] == ["lookup", "refund"]


async def test_fork_here_in_the_view_forks_the_run_and_lists_the_fork(
    comms: list[RecordingComm],
) -> None:
    ledger = Ledger()
    run = refund_agent(ledger, refund_script()).new_run("Refund", breakpoints=["refund"])
    await run.run()
    stop = run.pending[0].id
    await run.debug.continue_()
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    comm.browser_send({"type": "fork", "requestId": "r1", "interrupt": stop})
    (response,) = await until(lambda: comm.custom("response"))
    assert response["ok"] is True
    (fork,) = run.forks
    assert response["value"] == {
        "runId": fork.id,
        "name": "went back to refund",
        "interruptId": stop,
    }
    assert run.view.forks == [
        {
            "runId": fork.id,
            "code": "run.forks[0]",  # no notebook variable holds the run here
            "name": "went back to refund",
            "interruptId": stop,
            "toolCallId": None,
            "turn": None,
            "status": "interrupted",
            "items": len(fork.prompt.items),
            "open": False,  # Fork here lists the fork; Go back here also opens it
        }
    ]
    assert [p.id for p in fork.pending] == [stop]
    assert run.view.fork_view is None


async def test_fork_here_at_an_unknown_interrupt_is_refused(
    comms: list[RecordingComm],
) -> None:
    run = refund_agent(Ledger(), refund_script()).new_run("Refund")
    await run.run()
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    comm.browser_send({"type": "fork", "requestId": "r1", "interrupt": "int_nope"})
    (response,) = await until(lambda: comm.custom("response"))
    assert response["error"]["name"] == "UnknownInterruptError"
    assert run.forks == []
