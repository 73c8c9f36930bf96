"""The inbox sends large card values as previews and the whole value on request."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import until
from tests.widget.recording import RecordingComm, comm_of
from tests.widget.test_view_previews import markers

from pausepoint import ActionContext, ActionInterrupt, Agent, Inbox, ScriptedModel, action, call
from pausepoint.store import SQLiteStore
from pausepoint.widget._preview import PREVIEW_LIMIT

DUMP = "d" * (4 * PREVIEW_LIMIT)


def dump_agent() -> Agent:
    @action
    def review(id: int, ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("Review this dump", data={"dump": DUMP})
        return "reviewed"

    return Agent(model=ScriptedModel([call("review", id=1), "Done."]), actions=[review], name="ops")


async def test_inbox_cards_preview_large_data_and_give_it_whole_on_request(
    tmp_path: Path, comms: list[RecordingComm]
) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    agent = dump_agent()
    run = agent.new_run("go", store=store)
    await run.run()
    box = Inbox(store, agents={"ops": agent}, poll=None)

    (entry,) = box.entries
    (card,) = entry["cards"]
    (marker,) = markers(card["data"])
    assert marker["bytes"] > len(DUMP)
    comm_of(box).browser_send({"type": "value", "requestId": "v1", "ref": marker["ref"]})
    (response,) = await until(lambda: comm_of(box).custom("response"))

    assert response["ok"] is True
    assert response["value"] == {"dump": DUMP}


async def test_an_inbox_answer_holding_a_preview_is_refused(
    tmp_path: Path, comms: list[RecordingComm]
) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    agent = dump_agent()
    run = agent.new_run("go", store=store)
    await run.run()
    box = Inbox(store, agents={"ops": agent}, poll=None)
    (card,) = box.entries[0]["cards"]

    comm_of(box).browser_send(
        {"type": "resume", "requestId": "r1", "interrupt": card["id"], "data": card["data"]}
    )
    comm_of(box).browser_send({"type": "value", "requestId": "v2", "ref": "card/nothing"})

    refused, unknown = await until(
        lambda: len(comm_of(box).custom("response")) == 2 and comm_of(box).custom("response")
    )
    assert refused["ok"] is False
    assert refused["error"]["name"] == "InvalidResolutionError"
    assert store.summary(run.id).status == "interrupted"
    assert unknown["ok"] is False
