"""Going back from the view: forks at a tool call or a model turn, named in the list,
shown in place as their own live view and answered there; and Compare for them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from tests.debug.helpers import Ledger, RecordingModel, refund_agent, refund_script
from tests.helpers import until
from tests.widget.recording import RecordingComm, comms, response_to

from pausepoint import AgentRun, ModelTurn, ToolCall

__all__ = ["comms"]


async def finished() -> tuple[AgentRun, RecordingComm, Ledger, RecordingModel]:
    ledger = Ledger()
    model = RecordingModel(refund_script())
    run = refund_agent(ledger, model).new_run("Refund order 42")
    await run.run()
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    return run, comm, ledger, model


def refund_call(run: AgentRun) -> ToolCall:
    return next(r for r in run.prompt.tool_calls() if r.name == "refund")


async def test_go_back_here_on_a_tool_call_opens_the_fork_in_place_answerable_there(
    comms: list[RecordingComm],
) -> None:
    run, comm, ledger, model = await finished()
    call_id = refund_call(run).id
    response = await response_to(
        comm, {"type": "fork", "requestId": "f1", "call": call_id, "open": True}
    )
    assert response["ok"] is True
    (fork,) = run.forks
    assert response["value"] == {
        "runId": fork.id,
        "name": "went back to refund",
        "interruptId": None,
    }
    assert run.view.forks[0]["name"] == "went back to refund"
    assert run.view.forks[0]["toolCallId"] == call_id
    await until(lambda: run.view.fork_view is not None)
    assert run.view.fork_view is fork.view
    sent = [u["fork_view"] for u in comm.updates() if "fork_view" in u]
    assert sent == [f"IPY_MODEL_{fork.view.model_id}"]

    child = fork.view.comm
    assert isinstance(child, RecordingComm)
    assert [c["kind"] for c in fork.view.pending] == ["breakpoint"]
    answer = {
        "type": "resume",
        "requestId": "a1",
        "interrupt": fork.pending[0].id,
        "data": {"action": "edit", "args": {"order": 42, "cents": 500}},
    }
    assert (await response_to(child, answer))["ok"] is True
    await until(lambda: fork.view.status == "completed")
    assert [r.cents for r in ledger.refunds] == [12_000, 500]
    assert model.calls == 4  # the turn after the fork point, and no other
    await until(lambda: run.view.forks[0]["name"] == "edited cents at refund")


async def test_go_back_here_on_a_turn_makes_a_fork_paused_before_the_model(
    comms: list[RecordingComm],
) -> None:
    run, comm, _, model = await finished()
    response = await response_to(comm, {"type": "fork", "requestId": "f1", "turn": 2, "open": True})
    assert response["ok"] is True
    (fork,) = run.forks
    assert response["value"]["name"] == "asked again at turn 3"
    assert fork.status == "paused"
    await until(lambda: run.view.fork_view is fork.view)
    assert fork.view.status == "paused"
    go_on = {"type": "debug", "requestId": "g1", "action": "continue"}
    assert (await response_to(fork.view.comm, go_on))["ok"] is True  # type: ignore[arg-type]
    await until(lambda: fork.view.status == "completed")
    assert model.calls == 4


async def test_the_forks_list_opens_and_closes_a_fork_in_place(
    comms: list[RecordingComm],
) -> None:
    run, comm, _, _ = await finished()
    first = run.fork(at=refund_call(run).id)
    run.view.refresh_forks()
    assert run.view.fork_view is None  # made from code: listed, not opened
    assert run.view.forks[0]["name"] == "went back to refund"
    opened = await response_to(comm, {"type": "show_fork", "requestId": "s1", "fork": first.id})
    assert opened["ok"] is True
    await until(lambda: run.view.fork_view is first.view)
    closed = await response_to(comm, {"type": "show_fork", "requestId": "s2", "fork": None})
    assert closed["ok"] is True
    await until(lambda: run.view.fork_view is None)
    unknown = await response_to(comm, {"type": "show_fork", "requestId": "s3", "fork": "run_x"})
    assert unknown["ok"] is False
    assert "run_x" in unknown["error"]["message"]


@pytest.mark.parametrize(
    ("request_", "says"),
    [
        ({"interrupt": "int_1", "turn": 1}, "one of interrupt"),
        ({}, "one of interrupt"),
        ({"turn": "2"}, "turn: Input should be a valid integer"),
        ({"call": 7}, "call: Input should be a valid string"),
        ({"turn": 9}, "3 assistant turn(s)"),
        ({"call": "call_nope"}, "Its tool calls"),
    ],
)
async def test_a_bad_fork_request_is_refused_and_makes_no_fork(
    comms: list[RecordingComm], request_: dict[str, Any], says: str
) -> None:
    run, comm, _, _ = await finished()
    response = await response_to(comm, {"type": "fork", "requestId": "f1", **request_})
    assert response["ok"] is False
    assert says in response["error"]["message"]
    assert run.forks == []
    assert run.view.fork_view is None


async def test_compare_shows_what_each_branch_did_at_a_tool_call_and_a_turn(
    comms: list[RecordingComm],
) -> None:
    run, comm, _, _ = await finished()
    at_call = run.fork(at=refund_call(run).id)
    await at_call.debug.edit({"order": 42, "cents": 500})
    value = (await response_to(comm, {"type": "branches", "requestId": "b1", "fork": at_call.id}))[
        "value"
    ]
    assert (value["kind"], value["toolName"], value["name"]) == (
        "tool call",
        "refund",
        "edited cents at refund",
    )
    assert value["parent"]["said"] == "Ran as the model asked (succeeded)"
    assert value["fork"]["said"] == "Ran with edited arguments: cents 12000 → 500"
    assert value["parent"]["items"][0]["result"] == "refunded 12000 on 42"
    assert value["fork"]["items"][0]["result"] == "refunded 500 on 42"

    from pausepoint import ModelTurn

    at_turn = run.fork(at=ModelTurn(2))
    value = (await response_to(comm, {"type": "branches", "requestId": "b2", "fork": at_turn.id}))[
        "value"
    ]
    assert (value["kind"], value["fork"]["said"], value["fork"]["items"]) == (
        "turn",
        "Not asked yet",
        [],
    )
    await at_turn.run()
    value = (await response_to(comm, {"type": "branches", "requestId": "b3", "fork": at_turn.id}))[
        "value"
    ]
    assert value["fork"]["said"] == "Asked the model again"
    assert value["fork"]["items"][0]["text"] == "Refunded."

    edited = run.fork(at=ModelTurn(2))
    edited.edit_item(0, text="Refund order 43")
    value = (await response_to(comm, {"type": "branches", "requestId": "b4", "fork": edited.id}))[
        "value"
    ]
    assert value["fork"]["said"] == "Not asked yet with the message edited"


async def test_a_fork_at_a_turn_has_its_message_and_a_result_edited_from_its_view(
    comms: list[RecordingComm],
) -> None:
    """Go back to turn 2, edit the message and the lookup's result from the fork's view:
    the model is asked again with both, and the fork is named by what was edited."""
    run, comm, _, model = await finished()
    response = await response_to(comm, {"type": "fork", "requestId": "f1", "turn": 2, "open": True})
    assert response["ok"] is True
    (fork,) = run.forks
    child = fork.view.comm
    assert isinstance(child, RecordingComm)
    lookup = next(i for i, item in enumerate(fork.prompt.items) if isinstance(item, ToolCall))
    assert fork.view.editable == [0, 2, 4]  # the message and both calls; not the turns

    said = {"type": "edit_item", "requestId": "e1", "position": 0, "text": "Refund order 43"}
    assert (await response_to(child, said))["ok"] is True
    edited = {"type": "edit_item", "requestId": "e2", "position": lookup}
    edited["result"] = {"order": 43, "total": 9_000}
    assert (await response_to(child, edited))["ok"] is True

    # The front end got both items, as it shows them; the names follow.
    sent = {m["start"]: m["items"][0] for m in child.custom("items")}
    assert sent[0]["text"] == "Refund order 43"
    assert sent[lookup]["result"] == {"order": 43, "total": 9_000}
    assert fork.fork_name == "asked again at turn 3 with 2 items edited"
    assert fork.view.edited == [0, lookup]
    await until(lambda: run.view.forks[0]["name"] == fork.fork_name)

    go_on = {"type": "debug", "requestId": "g1", "action": "continue"}
    assert (await response_to(child, go_on))["ok"] is True
    await until(lambda: fork.view.status == "completed")
    asked = model.received[-1]
    assert asked.items[0].text == "Refund order 43"  # type: ignore[union-attr]
    assert asked.items[lookup].result == {"order": 43, "total": 9_000}  # type: ignore[union-attr]
    assert fork.view.editable == []  # it moved on: nothing to edit before it any more
    late = {"type": "edit_item", "requestId": "e3", "position": 0, "text": "Again"}
    refused = await response_to(child, late)
    assert refused["ok"] is False
    assert refused["error"]["name"] == "ForkMovedOnError"


@pytest.mark.parametrize(
    ("request_", "says"),
    [
        ({"position": 0}, "one of text or result"),
        ({"position": "0", "text": "x"}, "position: Input should be a valid integer"),
        ({"position": 0, "text": "x", "result": 1}, "one of text or result"),
        ({"position": 1, "text": "x"}, "Item 1 is a AssistantMessage"),
        ({"position": 9, "text": "x"}, "pick a position from 0"),
        ({"position": 0, "text": 5}, "text: Input should be a valid string"),
    ],
)
async def test_a_bad_edit_from_the_view_is_refused_and_changes_nothing(
    comms: list[RecordingComm], request_: dict[str, Any], says: str
) -> None:
    run, _, _, _ = await finished()
    fork = run.fork(at=ModelTurn(2))
    child = fork.view.comm
    assert isinstance(child, RecordingComm)
    before = fork.prompt.model_dump_json()

    refused = await response_to(child, {"type": "edit_item", "requestId": "e1", **request_})

    assert refused["ok"] is False
    assert says in refused["error"]["message"]
    assert fork.prompt.model_dump_json() == before


async def test_a_run_that_is_not_a_fork_at_a_turn_offers_nothing_to_edit(
    comms: list[RecordingComm],
) -> None:
    run, comm, _, _ = await finished()
    at_call = run.fork(at=refund_call(run).id)
    assert run.view.editable == []
    assert at_call.view.editable == []
    refused = await response_to(
        comm, {"type": "edit_item", "requestId": "e1", "position": 0, "text": "x"}
    )
    assert refused["ok"] is False
    assert "fork made at a model turn" in refused["error"]["message"]


async def test_the_forks_list_says_how_to_reach_a_fork_by_the_notebook_variable(
    comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a notebook the run is held by a name the reader chose: the list says
    `finished.forks[0]`, not a `run` that may be another run of the notebook."""
    import IPython

    run, _, _, _ = await finished()
    other, _, _, _ = await finished()

    shell = SimpleNamespace(user_ns={"_": run, "run": other, "finished": run, "Out": {1: run}})
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    run.fork(at=refund_call(run).id)
    run.view.refresh_forks()
    assert [f["code"] for f in run.view.forks] == ["finished.forks[0]"]
