"""Shape readers: another producer's pause, without pausepoint's binding, read as a card
answered here in that producer's own words. The built-in Pydantic AI reader is tested
against Pydantic AI's own adapter in test_interop_pydantic_ai.py; here, the registry."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pausepoint.agui import RemoteRun, Shape, _shapes, register_shape
from pausepoint.errors import UsageError

from .canned import Canned, serving, stream
from .test_remote import DONE, START, text, tool_call

ASK = {
    "id": "hr-1",
    "reason": "human_review",
    "toolCallId": "c1",
    "message": "Send the invoice to ACME?",
}


@pytest.fixture(autouse=True)
def readers() -> Iterator[None]:
    kept = list(_shapes._READERS)
    yield
    _shapes._READERS[:] = kept


def paused(body: dict[str, Any]) -> list[dict[str, Any]]:
    return stream(
        START,
        *text("m1", "Sending."),
        *tool_call("c1", "send_invoice", '{"to": "ACME"}', "m1"),
        {**DONE, "outcome": {"type": "interrupt", "interrupts": [ASK]}},
    )(body)


def review(interrupt: Any) -> Shape | None:
    """A made-up producer's review: `{verdict: "yes" | "no", note?}`."""
    if interrupt.get("reason") != "human_review":
        return None
    return Shape(
        "Acme Flows",
        "tool-approval",
        resolve=lambda answer: {"verdict": "yes" if answer else "no"},
        decline=lambda reason: {"verdict": "no", "note": reason},
    )


async def test_an_unknown_shape_stays_read_only() -> None:
    with serving(Canned(paused).app()) as url:
        remote = RemoteRun(url)
        await remote.run("Invoice ACME")

    assert remote.pending == ()
    assert [c.id for c in remote.foreign] == ["hr-1"]
    assert remote.read_from("hr-1") is None


async def test_a_registered_reader_makes_the_pause_a_card_answered_in_its_own_words() -> None:
    register_shape(review)
    server = Canned(paused, stream(START, *text("m2", "Not sent."), DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        await remote.run("Invoice ACME")
        (pending,) = remote.pending
        assert (pending.id, pending.kind, remote.read_from("hr-1")) == (
            "hr-1",
            "tool-approval",
            "Acme Flows",
        )
        assert remote.view.pending[0]["readFrom"] == "Acme Flows"

        done = await remote.reject("Wrong address.")

    assert done.status == "completed"
    assert server.bodies[-1]["resume"] == [
        {
            "interruptId": "hr-1",
            "status": "resolved",
            "payload": {"verdict": "no", "note": "Wrong address."},
        }
    ]


async def test_a_reader_that_raises_is_skipped_and_the_pause_stays_read_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @register_shape
    def broken(interrupt: Any) -> Shape | None:
        raise KeyError("verdict")

    with caplog.at_level(logging.ERROR, "pausepoint"), serving(Canned(paused).app()) as url:
        remote = RemoteRun(url)
        result = await remote.run("Invoice ACME")

    assert result.status == "interrupted"
    assert [c.id for c in remote.foreign] == ["hr-1"]
    assert "the shape reader" in caplog.text


def test_register_shape_takes_a_function() -> None:
    with pytest.raises(UsageError, match="function of an interrupt"):
        register_shape(42)  # type: ignore[arg-type]


async def test_an_answer_the_server_refuses_is_taken_back_and_the_card_waits_again() -> None:
    register_shape(review)
    refusing = refused_first("The review service is read-only today.")
    server = Canned(paused, refusing, stream(START, *text("m2", "Sent."), DONE))
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        await remote.run("Invoice ACME")

        refused = await remote.resume(True)

        assert refused.status == "failed"
        assert refused.error is not None
        assert refused.error.message == "The review service is read-only today."
        # Not taken by the server, so not recorded here: the same card waits again.
        (pending,) = remote.pending
        assert pending.id == "hr-1"
        assert pending.interrupt.resolution is None
        assert pending.tool_call.status == "interrupted"
        assert [card["id"] for card in remote.view.pending] == ["hr-1"]

        done = await remote.resume(True)

    assert done.status == "completed"
    # The refused answer was not sent again beside the new one.
    assert server.bodies[-1]["resume"] == [
        {"interruptId": "hr-1", "status": "resolved", "payload": {"verdict": "yes"}}
    ]


def refused_first(message: str) -> Any:
    """A reply that refuses the request before doing anything: RUN_STARTED, RUN_ERROR."""
    return stream(START, {"type": "RUN_ERROR", "message": message})


async def test_a_refused_decline_is_taken_back_whole_and_the_run_saves_and_loads(
    tmp_path: Path,
) -> None:
    register_shape(review)
    server = Canned(paused, refused_first("Try again later."))
    with serving(server.app()) as url:
        remote = RemoteRun(url)
        await remote.run("Invoice ACME")

        refused = await remote.reject("Wrong address.")

    assert refused.status == "failed"
    (pending,) = remote.pending
    record = pending.tool_call
    assert (record.status, record.error, pending.interrupt.resolution) == (
        "interrupted",
        None,
        None,
    )
    loaded = RemoteRun.load(remote.save(tmp_path / "invoice.json"))
    assert loaded.prompt == remote.prompt
    assert [p.id for p in loaded.pending] == ["hr-1"]
