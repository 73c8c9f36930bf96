"""Every request a front end sends to a run view gets exactly one reply, and one it cannot
serve gets an error with a code, as a tampered page or a buggy front end would send them:
through the comm on the kernel's thread and from another thread (an ipykernel 7
subshell)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from tests.helpers import Recorder, paused_delete, until
from tests.widget.recording import RecordingComm

from pausepoint import Action, Agent, ScriptedModel, call

MIB = 1024 * 1024


def nested(levels: int, *, dicts: bool = False) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"k": value} if dicts else [value]
    return value


def send(recording: RecordingComm, content: Any, *, from_thread: bool) -> None:
    """What the front end's `model.send(content)` does, on this thread or another one."""
    if not from_thread:
        recording.browser_send(content)
        return
    failures: list[BaseException] = []

    def deliver() -> None:
        try:
            recording.browser_send(content)
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    thread = threading.Thread(target=deliver)
    thread.start()
    thread.join()
    assert failures == []


async def settled() -> None:
    """Let the loop run what the handler may have scheduled on it."""
    for _ in range(3):
        await asyncio.sleep(0)


def recording_of(run: Any) -> RecordingComm:
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    return comm


HOSTILE: dict[str, tuple[Callable[[str], Any], str | None, str]] = {
    # name: (the message, given the pending interrupt id; the reply's id; the error code)
    "superscript digit": (
        lambda _: {"type": "value", "requestId": "q", "ref": "item/²"},
        "q",
        "not-found",
    ),
    "circled digit": (
        lambda _: {"type": "value", "requestId": "q", "ref": "item/①"},
        "q",
        "not-found",
    ),
    "arabic-indic digit": (
        lambda _: {"type": "value", "requestId": "q", "ref": "item/٣"},
        "q",
        "not-found",
    ),
    "digit in a path step": (
        lambda _: {"type": "value", "requestId": "q", "ref": "item/1/text/²"},
        "q",
        "not-found",
    ),
    "1 MB reference": (
        lambda _: {"type": "value", "requestId": "q", "ref": "item/" + "x" * MIB},
        "q",
        "too-large",
    ),
    "1 MB of digits": (
        lambda _: {"type": "value", "requestId": "q", "ref": "item/" + "1" * MIB},
        "q",
        "too-large",
    ),
    "reference that is a list": (
        lambda _: {"type": "value", "requestId": "q", "ref": ["item/0"]},
        "q",
        "bad-request",
    ),
    "500 nested lists": (
        lambda i: {"type": "resume", "requestId": "q", "interrupt": i, "data": nested(500)},
        "q",
        "too-deep",
    ),
    "600 nested dicts": (
        lambda i: {
            "type": "resume",
            "requestId": "q",
            "interrupt": i,
            "data": nested(600, dicts=True),
        },
        "q",
        "too-deep",
    ),
    "nested reference": (
        lambda _: {"type": "value", "requestId": "q", "ref": nested(700)},
        "q",
        "too-deep",
    ),
    "unknown type": (lambda _: {"type": "explode", "requestId": "q"}, "q", "bad-request"),
    "no type": (lambda _: {"requestId": "q"}, "q", "bad-request"),
    "missing request id": (lambda _: {"type": "value", "ref": "item/0"}, None, "bad-request"),
    "number as request id": (
        lambda _: {"type": "value", "requestId": 7, "ref": "item/0"},
        None,
        "bad-request",
    ),
    "1 MB request id": (
        lambda _: {"type": "value", "requestId": "r" * MIB, "ref": "item/0"},
        None,
        "too-large",
    ),
    "not an object": (lambda _: ["value", "item/0"], None, "bad-request"),
    "reason that is not text": (
        lambda i: {"type": "reject", "requestId": "q", "interrupt": i, "reason": {"why": 1}},
        "q",
        "bad-request",
    ),
    "debug action unknown": (
        lambda _: {"type": "debug", "requestId": "q", "action": "jump"},
        "q",
        "bad-request",
    ),
}


@pytest.mark.parametrize("from_thread", [False, True], ids=["kernel thread", "other thread"])
@pytest.mark.parametrize("case", list(HOSTILE))
async def test_a_request_the_view_cannot_serve_gets_exactly_one_error_reply_with_a_code(
    delete_record: Action, comms: list[RecordingComm], case: str, from_thread: bool
) -> None:
    run = await paused_delete(delete_record)
    recording = recording_of(run)
    before = run.prompt.model_dump_json()
    message, request_id, code = HOSTILE[case]

    send(recording, message(run.pending[0].id), from_thread=from_thread)
    await settled()

    [reply] = recording.custom("response")
    assert reply["requestId"] == request_id
    assert reply["ok"] is False
    assert reply["error"]["code"] == code
    assert reply["error"]["message"]
    assert len(reply["error"]["message"]) < 1000  # a hostile value is never echoed whole
    assert run.prompt.model_dump_json() == before
    assert run.view.status == "interrupted"


async def test_an_arabic_indic_digit_never_names_a_transcript_item(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    """`int("٢") == 2`: a reference the view never made must not serve item 2."""
    run = await paused_delete(delete_record)
    recording = recording_of(run)
    assert len(run.prompt.items) > 2

    recording.browser_send({"type": "value", "requestId": "a", "ref": "item/2"})
    recording.browser_send({"type": "value", "requestId": "b", "ref": "item/٢"})

    served, refused = recording.custom("response")
    assert served["ok"] is True
    assert refused["ok"] is False


async def test_a_request_just_within_the_depth_limit_is_served(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record)
    recording = recording_of(run)
    interrupt = run.pending[0].id

    # The answer itself is deeper than a run accepts (100 levels): the run's own refusal,
    # with its path, is what comes back, once.
    recording.browser_send(
        {"type": "resume", "requestId": "r", "interrupt": interrupt, "data": nested(110)}
    )

    [reply] = await until(lambda: recording.custom("response"))
    assert reply["error"]["name"] == "NotJSONError"
    assert reply["error"]["code"] == "invalid-answer"
    assert run.view.status == "interrupted"


@pytest.mark.parametrize("from_thread", [False, True], ids=["kernel thread", "other thread"])
async def test_a_20_mib_rejection_reason_is_refused_as_too_large_and_nothing_is_recorded(
    delete_record: Action, recorder: Recorder, comms: list[RecordingComm], from_thread: bool
) -> None:
    run = await paused_delete(delete_record)
    recording = recording_of(run)
    before = run.prompt.model_dump_json()
    reason = "no" * (10 * MIB)

    send(
        recording,
        {"type": "reject", "requestId": "big", "interrupt": run.pending[0].id, "reason": reason},
        from_thread=from_thread,
    )
    await settled()

    [reply] = recording.custom("response")
    assert reply["requestId"] == "big"
    assert reply["error"]["code"] == "too-large"
    assert reply["error"]["name"] == "AnswerTooLargeError"
    assert run.prompt.model_dump_json() == before
    assert recorder.count("delete_record") == 1
    assert run.view.status == "interrupted"


async def test_the_answer_limit_is_the_agents_own(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    """A reason well under the default limit but over the agent's is refused before the
    run sees it; the run's limit then still holds for what gets through."""
    model = ScriptedModel([call("delete_record", id=7), "Kept."])
    run = Agent(model=model, actions=[delete_record], max_answer_bytes=1000).new_run("x")
    await run.run()
    recording = recording_of(run)
    interrupt = run.pending[0].id

    recording.browser_send(
        {"type": "reject", "requestId": "r", "interrupt": interrupt, "reason": "n" * 100_000}
    )

    [reply] = recording.custom("response")
    assert reply["error"]["code"] == "too-large"
    assert run.pending[0].id == interrupt


async def test_a_good_request_from_another_thread_gets_one_ok_reply(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    run = await paused_delete(delete_record)
    recording = recording_of(run)
    message = {
        "type": "resume",
        "requestId": "ok",
        "interrupt": run.pending[0].id,
        "data": {"approved": True},
    }

    send(recording, message, from_thread=True)
    await until(lambda: run.view.status == "completed")
    await run.wait()
    await settled()

    assert recording.custom("response") == [{"type": "response", "requestId": "ok", "ok": True}]


def test_an_answer_with_no_running_loop_gets_one_no_loop_error(
    delete_record: Action, comms: list[RecordingComm]
) -> None:
    """A run whose loop has closed, shown where no loop runs: nothing can take the answer,
    and the front end hears so at once instead of waiting for its timeout."""
    run = asyncio.run(paused_delete(delete_record))
    recording = recording_of(run)
    before = run.prompt.model_dump_json()

    from_other_thread = threading.Thread(
        target=recording.browser_send,
        args=({"type": "resume", "requestId": "r", "interrupt": run.pending[0].id, "data": {}},),
    )
    from_other_thread.start()
    from_other_thread.join()

    [reply] = recording.custom("response")
    assert (reply["requestId"], reply["error"]["code"]) == ("r", "no-loop")
    assert run.prompt.model_dump_json() == before
