"""Transcripts for store tests: one with every kind of item, and one step of a loop."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pausepoint import Prompt, ToolCall, ToolCallRequest
from pausepoint.transcript import (
    AssistantMessage,
    ErrorInfo,
    InterruptEntry,
    RejectResolution,
    ResumeResolution,
    UserMessage,
)

T0 = datetime(2026, 3, 1, 9, 30, 0, 123456, tzinfo=UTC)


def rich_prompt(run_id: str = "run_rich", *, waiting: bool = True) -> Prompt:
    """Every item kind and interrupt shape; the last turn waits on a person if `waiting`."""
    approval = InterruptEntry(
        id="int_approve",
        kind="tool-approval",
        message="Run delete_record?",
        data={"toolName": "delete_record", "args": {"id": 7}},
        created_at=T0,
        resolution=ResumeResolution(data={"approved": True, "editedArgs": {"id": 8}}, at=T0),
    )
    refused = InterruptEntry(
        id="int_refused",
        message="Send the e-mail?",
        data=None,
        state={"draft": [1, 2.5, None, True]},
        created_at=T0,
        expires_at=T0 + timedelta(hours=1),
        resolution=RejectResolution(error=ErrorInfo(name="Declined", message="no"), at=T0),
    )
    items: list[UserMessage | AssistantMessage | ToolCall] = [
        UserMessage(text='Tidy the records — ünïcødé, 漢字, emoji 🎉, \u2028 and "quotes"'),
        AssistantMessage(
            text="On it.",
            tool_calls=[
                ToolCallRequest(id="c1", name="delete_record", input={"id": 7}),
                ToolCallRequest(id="c2", name="send_mail", input={"to": ["a@b.c"]}),
            ],
        ),
        ToolCall(
            id="c1",
            name="delete_record",
            input={"id": 7},
            status="succeeded",
            result={"deleted": 8, "nested": {"list": [1, {"x": None}], "f": 0.1}},
            interrupts=[approval],
        ),
        ToolCall(
            id="c2",
            name="send_mail",
            input={"to": ["a@b.c"]},
            status="rejected",
            error=ErrorInfo(name="Declined", message="no"),
            interrupts=[refused],
        ),
        AssistantMessage(
            text="", tool_calls=[ToolCallRequest(id="c3", name="pick", input={"n": 3})]
        ),
    ]
    last = ToolCall(id="c3", name="pick", input={"n": 3})
    if waiting:
        last.status = "interrupted"
        last.interrupts.append(
            InterruptEntry(
                id="int_pick",
                message="Which colour?",
                data={"options": ["red", "blue"]},
                state={"step": 2},
                response_schema={"type": "object", "properties": {"colour": {"type": "string"}}},
                created_at=T0,
            )
        )
    items.append(last)
    return Prompt(run_id=run_id, thread_id="thread_rich", instructions="Be careful.", items=items)


def start_step(prompt: Prompt, n: int) -> ToolCall:
    """The first half of a loop step: the model asks for a call, its record starts."""
    prompt.items.append(
        AssistantMessage(tool_calls=[ToolCallRequest(id=f"call_{n}", name="bump", input={"n": n})])
    )
    record = ToolCall(id=f"call_{n}", name="bump", input={"n": n}, status="running")
    prompt.items.append(record)
    return record


def finish_step(record: ToolCall, n: int) -> None:
    """The second half: the call returns."""
    record.status = "succeeded"
    record.result = n + 1


def first_version(run_id: str) -> Prompt:
    """Version 1 of a run in the scripted history used by the crash test."""
    return Prompt(
        run_id=run_id,
        thread_id=f"thread_{run_id}",
        instructions=f"Instructions of {run_id}",
        items=[UserMessage(text=f"start {run_id} ✓")],
    )


def advance(prompt: Prompt, version: int) -> None:
    """Turn the scripted history's `version` of a run into the next one, in place, as the
    loop would: start a call, pause it, answer it, finish it and go on."""
    step = version % 4
    if step == 1:
        start_step(prompt, version)
        return
    record = prompt.items[-1]
    assert isinstance(record, ToolCall)
    if step == 2:
        record.status = "interrupted"
        record.interrupts.append(
            InterruptEntry(
                id=f"int_{prompt.run_id}_{version}",
                message=f"Go on with {version}?",
                data={"version": version, "padding": "·" * (version % 50)},
                state={"seen": [version, None]},
                created_at=T0,
            )
        )
    elif step == 3:
        record.interrupts[-1].resolution = ResumeResolution(data={"ok": version}, at=T0)
    else:
        record.status = "succeeded"
        record.result = {"version": version}
        prompt.items.append(AssistantMessage(text=f"after {version}"))
