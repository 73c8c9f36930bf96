"""Every card of a view has its own key, even when another producer reuses an id of ours."""

from __future__ import annotations

from tests.helpers import paused_delete, until
from tests.widget.recording import RecordingComm, recording_of

from pausepoint import Action


async def test_a_foreign_interrupt_reusing_our_id_gets_a_card_of_its_own(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record, "Deleted.")
    ours = run.pending[0].id

    run.view.show_interrupt({"id": ours, "reason": "confirmation", "message": "Deploy?"})

    own, foreign = run.view.pending
    assert own["id"] == foreign["id"] == ours
    assert own["key"] == ours
    assert foreign["key"] != own["key"]
    assert (foreign["kind"], foreign["canResolve"]) == ("unbound", False)
    # the front end gets the keys too
    recording = recording_of(run)
    sent = [u["pending"] for u in recording.updates() if "pending" in u][-1]
    assert len({card["key"] for card in sent}) == 2


async def test_answering_the_shared_id_answers_only_the_runs_own_interrupt(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record, "Deleted.")
    ours = run.pending[0].id
    run.view.show_interrupt({"id": ours, "reason": "confirmation", "message": "Deploy?"})
    recording = recording_of(run)

    recording.browser_send(
        {"type": "resume", "requestId": "r", "interrupt": ours, "data": {"approved": True}}
    )

    await until(lambda: run.view.status == "completed")
    assert run.prompt.output == "Deleted."
    (left,) = run.view.pending
    assert (left["key"], left["canResolve"]) == (f"foreign:{ours}", False)


async def test_keys_stay_unique_even_when_an_own_id_looks_namespaced(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record, "Deleted.")
    entry = run.prompt.items[-1].interrupts[-1]  # type: ignore[union-attr]
    entry.id = "foreign:wf-1"  # a transcript from elsewhere may hold any id

    run.view.show_interrupt({"id": "wf-1", "reason": "confirmation"})
    run.view.show_interrupt({"id": "foreign:wf-1", "reason": "confirmation"})

    keys = [card["key"] for card in run.view.pending]
    assert keys[0] == "foreign:wf-1"
    assert len(keys) == len(set(keys)) == 3
