"""Large values reach the front end as bounded previews; the whole value on request."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel
from tests.helpers import until
from tests.widget.recording import RecordingComm, recording_of

from pausepoint import (
    ActionContext,
    ActionInterrupt,
    Agent,
    AgentRun,
    ScriptedModel,
    action,
    call,
)
from pausepoint.widget._preview import PREVIEW_CHARS, PREVIEW_KEY, PREVIEW_LIMIT

MIB = 1024 * 1024
RESULT = "r" * (5 * MIB)
ANSWER = "a" * (50 * MIB)
SENT_BOUND = 64 * 1024
"""What a run with a 5 MiB result and a 50 MiB answer may send to the front end, in all
(the front-end bundle aside; unbounded, it was about 110 MiB)."""


class Topic(BaseModel):
    topic: str


class Doc(BaseModel):
    body: str


def large_value_actions() -> list[Any]:
    @action
    async def fetch_log(input: Topic) -> str:
        """Fetch a log."""
        return RESULT

    @action
    async def ask_dump(input: Topic, ctx: ActionContext) -> str:
        """Ask for a memory dump."""
        if ctx.resumption is None:
            raise ActionInterrupt("Paste the dump")
        return f"stored {len(ctx.resumption.data)} characters"

    return [fetch_log, ask_dump]


def markers(value: Any) -> list[dict[str, Any]]:
    """Every preview marker in a JSON value, depth first."""
    if isinstance(value, dict):
        if PREVIEW_KEY in value:
            return [value[PREVIEW_KEY]]
        return [m for v in value.values() for m in markers(v)]
    if isinstance(value, list):
        return [m for v in value for m in markers(v)]
    return []


async def large_run() -> AgentRun:
    model = ScriptedModel([call("fetch_log", topic="a"), call("ask_dump", topic="b"), "done"])
    return Agent(model=model, actions=large_value_actions(), max_answer_bytes=64 * MIB).new_run("x")


def bytes_sent(recording: RecordingComm) -> int:
    """Bytes of every message the view sent, without the front-end bundle it opens with."""
    total = 0
    for msg_type, data in recording.messages:
        if msg_type == "comm_open":
            state = {k: v for k, v in data["state"].items() if k not in ("_esm", "_css")}
            data = {**data, "state": state}
        total += len(json.dumps(data))
    return total


def ask_value(recording: RecordingComm, ref: str, request_id: str) -> dict[str, Any]:
    recording.browser_send({"type": "value", "requestId": request_id, "ref": ref})
    return next(r for r in recording.custom("response") if r["requestId"] == request_id)


async def test_a_large_result_and_answer_send_bounded_messages(
    comms: list[RecordingComm],
) -> None:
    run = await large_run()
    run.view  # noqa: B018 - opening the view subscribes it
    recording = comms[-1]

    await run.run()
    await run.resume(ANSWER)
    run.view.sync_at_cell_end()  # the whole transcript once more, as at a cell's end

    assert run.view.status == "completed"
    assert bytes_sent(recording) < SENT_BOUND
    # the transcript the front end holds names both values with their sizes
    shown = {m["bytes"]: m for m in markers(run.view.items)}
    assert len(RESULT) in shown
    assert len(ANSWER) in shown
    for marker in shown.values():
        assert len(marker["text"]) == PREVIEW_CHARS
    assert shown[len(RESULT)]["text"] == RESULT[:PREVIEW_CHARS]


async def test_show_all_fetches_the_whole_value_by_its_reference(
    comms: list[RecordingComm],
) -> None:
    run = await large_run()
    await run.run()
    await run.resume(ANSWER)
    recording = recording_of(run)
    shown = {m["bytes"]: m for m in markers(run.view.items)}

    result = ask_value(recording, shown[len(RESULT)]["ref"], "v1")
    answer = ask_value(recording, shown[len(ANSWER)]["ref"], "v2")

    assert result == {"type": "response", "requestId": "v1", "ok": True, "value": RESULT}
    assert answer["ok"] is True
    assert answer["value"] == ANSWER


async def test_an_unknown_reference_is_refused_with_an_error(comms: list[RecordingComm]) -> None:
    run = await large_run()
    await run.run()
    recording = recording_of(run)

    missing = ask_value(recording, "item/99/result", "v1")
    malformed = ask_value(recording, "nothing", "v2")
    recording.browser_send({"type": "value", "requestId": "v3"})

    assert missing["ok"] is False
    assert missing["error"]["name"] == "UsageError"
    assert malformed["ok"] is False
    bad = next(r for r in recording.custom("response") if r["requestId"] == "v3")
    assert bad["error"]["name"] == "BadRequest"


async def test_small_values_are_sent_as_they_are(comms: list[RecordingComm]) -> None:
    model = ScriptedModel([call("ask_dump", topic="b"), "done"])
    run = Agent(model=model, actions=large_value_actions()).new_run("x")
    await run.run()
    await run.resume("y" * (PREVIEW_LIMIT // 2))

    assert run.view.items == [i.model_dump(mode="json") for i in run.prompt.items]


def big_args_action() -> Any:
    @action(needs_approval=True)
    async def publish(input: Doc) -> str:
        """Publish a document."""
        return f"published {len(input.body)}"

    return publish


async def test_a_card_with_large_arguments_previews_them_and_refuses_the_preview_back(
    comms: list[RecordingComm],
) -> None:
    body = "b" * (3 * PREVIEW_LIMIT)
    model = ScriptedModel([call("publish", body=body), "done"])
    run = Agent(model=model, actions=[big_args_action()]).new_run("x")
    await run.run()
    recording = recording_of(run)
    (card,) = run.view.pending
    (marker,) = markers(card["args"])

    # "approve with edits" built from the preview is refused, and nothing is recorded
    recording.browser_send(
        {
            "type": "resume",
            "requestId": "r1",
            "interrupt": card["id"],
            "data": {"approved": True, "editedArgs": card["args"]},
        }
    )
    (refused,) = recording.custom("response")
    assert refused["ok"] is False
    assert "preview" in refused["error"]["message"]
    assert run.pending[0].interrupt.resolution is None

    # the whole arguments come back by reference, and approving with them runs the action
    full = ask_value(recording, marker["ref"], "v1")
    assert full["value"] == {"body": body}
    recording.browser_send(
        {
            "type": "resume",
            "requestId": "r2",
            "interrupt": card["id"],
            "data": {"approved": True, "editedArgs": full["value"]},
        }
    )
    await until(lambda: run.view.status == "completed")
    tool = run.prompt.items[2]
    assert tool.result == f"published {len(body)}"  # type: ignore[union-attr]


async def test_streamed_text_stops_at_the_limit_and_the_message_is_a_preview(
    comms: list[RecordingComm],
) -> None:
    text = " ".join(f"w{i:04}" for i in range(PREVIEW_LIMIT // 3))  # twice the limit
    # A delay shorter than the clock's resolution: the model yields to the loop between
    # words without waiting (10 µs took a millisecond a word: 14 s for 11,000 words).
    run = Agent(model=ScriptedModel([text], token_delay=1e-9)).new_run("x")
    run.view  # noqa: B018 - opening the view subscribes it
    recording = comms[-1]

    await run.run()

    deltas = "".join(m["delta"] for m in recording.custom("text"))
    assert PREVIEW_LIMIT // 2 < len(deltas) <= PREVIEW_LIMIT + 2
    assert text.startswith(deltas.removesuffix(" …"))
    (marker,) = markers(run.view.items)
    assert marker["bytes"] == len(text.encode())


@pytest.mark.parametrize("limit_factor", [1, 3])
async def test_text_just_over_or_far_over_the_limit_is_previewed_at_its_size(
    comms: list[RecordingComm], limit_factor: int
) -> None:
    text = "é" * (limit_factor * PREVIEW_LIMIT // 2 + 1)  # two bytes a character
    run = Agent(model=ScriptedModel([text])).new_run("x")
    await run.run()

    (marker,) = markers(run.view.items)
    assert marker["bytes"] == len(text.encode("utf-8"))
    assert json.loads(json.dumps(marker))["text"] == text[:PREVIEW_CHARS]


async def test_copy_json_gets_the_whole_transcript(comms: list[RecordingComm]) -> None:
    run = await large_run()
    await run.run()

    whole = ask_value(recording_of(run), "prompt/json", "v1")

    assert whole["value"] == run.prompt.model_dump(mode="json")
    assert not markers(whole["value"])


async def test_a_model_request_shown_in_the_view_previews_its_large_values(
    comms: list[RecordingComm],
) -> None:
    run = await large_run()
    await run.run()
    recording = recording_of(run)

    recording.browser_send({"type": "model_request", "requestId": "m1", "turn": 1})
    (response,) = recording.custom("response")
    assert response["ok"] is True, response
    (marker,) = markers(response["value"]["items"])
    whole = ask_value(recording, marker["ref"], "v1")

    assert marker["bytes"] == len(RESULT)
    assert whole["value"] == RESULT
