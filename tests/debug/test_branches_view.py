"""Two branches side by side in the view: the `branches` request, and the parent's list
of forks following each fork as it moves."""

from __future__ import annotations

import json
from typing import Any

from tests.debug.helpers import approval_agent
from tests.helpers import until
from tests.widget.recording import RecordingComm, comms

from pausepoint import AgentRun, ModelRequest, ScriptedModel, ToolCall, call
from pausepoint.models import Turn

__all__ = ["comms"]


def refund_after_lookup() -> ScriptedModel:
    def reply(request: ModelRequest) -> Turn:
        turns = sum(1 for item in request.items if item.type == "assistant")
        if turns == 0:
            return call("lookup", order=1)
        if turns == 1:
            return call("refund", cents=500)
        last = request.items[-1]
        assert isinstance(last, ToolCall)
        return f"Refund {last.status}."

    return ScriptedModel(reply)


async def approved_and_forked() -> tuple[AgentRun, AgentRun, RecordingComm, list[int]]:
    refunds: list[int] = []
    run = approval_agent(refund_after_lookup(), refunds).new_run("Go")
    await run.run()
    approval = run.pending[0].id
    await run.resume(True)
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    comm.browser_send({"type": "fork", "requestId": "f1", "interrupt": approval})
    await until(lambda: comm.custom("response"))
    (fork,) = run.forks
    return run, fork, comm, refunds


async def branches_of(comm: RecordingComm, fork_id: str, request_id: str) -> dict[str, Any]:
    comm.browser_send({"type": "branches", "requestId": request_id, "fork": fork_id})
    response = await until(
        lambda: next((r for r in comm.custom("response") if r["requestId"] == request_id), None)
    )
    assert response["ok"] is True, response
    value: dict[str, Any] = response["value"]
    return value


async def test_branches_show_each_runs_answer_and_what_followed_from_the_fork_point(
    comms: list[RecordingComm],
) -> None:
    run, fork, comm, refunds = await approved_and_forked()
    await fork.reject("not today")

    value = await branches_of(comm, fork.id, "b1")

    assert value["interruptId"] == fork.prompt.parent.interrupt_id  # type: ignore[union-attr]
    assert (value["kind"], value["toolName"]) == ("tool-approval", "refund")
    parent, forked = value["parent"], value["fork"]
    assert (parent["runId"], forked["runId"]) == (run.id, fork.id)
    assert parent["answer"]["type"] == "resume"
    assert parent["answer"]["data"] is True
    assert forked["answer"]["type"] == "reject"
    assert forked["answer"]["error"]["message"] == "not today"
    assert (parent["status"], forked["status"]) == ("completed", "completed")
    # Both start at the refund call, each with its own outcome, then what the model said.
    assert [i.get("status") for i in parent["items"][:1]] == ["succeeded"]
    assert [i.get("status") for i in forked["items"][:1]] == ["rejected"]
    assert parent["items"][-1]["text"] == "Refund succeeded."
    assert forked["items"][-1]["text"] == "Refund rejected."
    # Before the fork point: the user message, the lookup turn and call, the refund turn.
    assert len(parent["items"]) == len(run.prompt.items) - 4
    assert refunds == [500]


async def test_branches_of_a_fork_not_yet_answered_show_it_waiting(
    comms: list[RecordingComm],
) -> None:
    _run, fork, comm, _ = await approved_and_forked()
    value = await branches_of(comm, fork.id, "b1")
    assert value["fork"]["answer"] is None
    assert value["fork"]["status"] == "interrupted"
    assert [i["status"] for i in value["fork"]["items"]] == ["interrupted"]


async def test_branches_for_an_unknown_fork_are_refused_with_the_known_ones(
    comms: list[RecordingComm],
) -> None:
    _run, fork, comm, _ = await approved_and_forked()
    comm.browser_send({"type": "branches", "requestId": "b1", "fork": "run_nope"})
    response = await until(
        lambda: next((r for r in comm.custom("response") if r["requestId"] == "b1"), None)
    )
    assert response["ok"] is False
    assert response["error"]["name"] == "UsageError"
    assert fork.id in response["error"]["message"]


async def test_the_parents_list_of_forks_follows_a_fork_as_it_is_answered(
    comms: list[RecordingComm],
) -> None:
    run, fork, comm, _ = await approved_and_forked()
    assert [f["status"] for f in run.view.forks] == ["interrupted"]
    before = run.view.forks[0]["items"]

    await fork.reject("not today")

    (listed,) = run.view.forks
    assert listed["status"] == "completed"
    assert listed["items"] == len(fork.prompt.items) > before
    assert any(u.get("forks", [{}])[0].get("status") == "completed" for u in comm.updates())


async def test_a_fork_made_from_code_is_followed_once_a_cell_ends(
    comms: list[RecordingComm],
) -> None:
    refunds: list[int] = []
    run = approval_agent(refund_after_lookup(), refunds).new_run("Go")
    await run.run()
    approval = run.pending[0].id
    await run.resume(True)
    view = run.view
    fork = run.fork(at=approval)
    view.sync_at_cell_end()
    assert [f["runId"] for f in view.forks] == [fork.id]
    await fork.resume(False)
    assert view.forks[0]["status"] == "completed"


async def test_a_closed_view_stops_following_its_forks(comms: list[RecordingComm]) -> None:
    run, fork, _comm, _ = await approved_and_forked()
    view = run.view
    listed = view.forks
    view.close()
    await fork.reject("not today")
    assert view.forks == listed


async def test_large_values_in_the_branches_come_as_previews_with_the_whole_on_request(
    comms: list[RecordingComm],
) -> None:
    from pausepoint.widget._preview import PREVIEW_KEY, PREVIEW_LIMIT

    _run, fork, comm, _ = await approved_and_forked()
    long_reason = "no " * PREVIEW_LIMIT
    await fork.reject(long_reason)

    value = await branches_of(comm, fork.id, "b1")

    refused = value["fork"]["items"][0]
    shown = refused["interrupts"][-1]["resolution"]["error"]
    previews = [v for v in _walk(shown) if isinstance(v, dict) and PREVIEW_KEY in v]
    assert previews, shown
    assert len(str(value)) < 2 * PREVIEW_LIMIT
    comm.browser_send({"type": "value", "requestId": "v1", "ref": previews[0][PREVIEW_KEY]["ref"]})
    response = await until(
        lambda: next((r for r in comm.custom("response") if r["requestId"] == "v1"), None)
    )
    assert response["ok"] is True, response
    assert long_reason in json.dumps(response["value"])


def _walk(value: Any) -> list[Any]:
    found = [value]
    if isinstance(value, dict):
        for child in value.values():
            found += _walk(child)
    elif isinstance(value, list):
        for child in value:
            found += _walk(child)
    return found
