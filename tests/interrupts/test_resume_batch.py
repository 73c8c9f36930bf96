"""continue_with: a whole batch of AG-UI resume entries is checked before any of it applies."""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

import pytest
from ag_ui.core import ResumeEntry
from pydantic import BaseModel, Field

from pausepoint import ActionContext, ActionInterrupt, Agent, AgentRun, ScriptedModel, action, call
from pausepoint.errors import ResumeBatchError
from pausepoint.interrupts import BINDING_METADATA_KEY


class Refund(BaseModel):
    order_id: int
    amount: float = Field(gt=0)


class Speed(BaseModel):
    speed: str


async def _paused(*, expires: bool = False) -> tuple[AgentRun, list[str]]:
    ran: list[str] = []

    @action(needs_approval=True)
    async def refund(input: Refund) -> str:
        ran.append(f"refund {input.amount}")
        return "refunded"

    @action
    async def ship(ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt(
                "Which speed?",
                response_schema=Speed,
                expires_at=timedelta(seconds=-1) if expires else None,  # already past
            )
        ran.append(f"ship {ctx.resumption.data['speed']}")
        return "shipped"

    model = ScriptedModel([[call("refund", order_id=42, amount=30.0), call("ship")], "Done."])
    run = Agent(model=model, actions=[refund, ship]).new_run("go")
    await run.run()
    return run, ran


def _ids(run: AgentRun) -> tuple[str, str]:
    kinds = {p.kind: p.id for p in run.pending}
    return kinds["tool-approval"], kinds["generic"]


async def test_a_valid_batch_applies_every_answer_and_continues() -> None:
    run, ran = await _paused()
    approval, speed = _ids(run)

    result = await run.continue_with(
        [
            {"interruptId": approval, "status": "resolved", "payload": {"approved": True}},
            {"interruptId": speed, "status": "resolved", "payload": {"speed": "fast"}},
        ]
    )

    assert result.status == "completed"
    assert sorted(ran) == ["refund 30.0", "ship fast"]


async def test_cancelled_entries_decline_without_running() -> None:
    run, ran = await _paused()
    approval, speed = _ids(run)
    result = await run.continue_with(
        [
            ResumeEntry(interrupt_id=approval, status="cancelled"),
            ResumeEntry(interrupt_id=speed, status="resolved", payload={"speed": "slow"}),
        ]
    )
    assert result.status == "completed"
    assert ran == ["ship slow"]
    statuses = {r.name: r.status for r in run.prompt.tool_calls()}
    assert statuses == {"refund": "rejected", "ship": "succeeded"}


async def test_replaying_the_same_batch_is_harmless() -> None:
    run, ran = await _paused()
    approval, speed = _ids(run)
    batch = [
        {"interruptId": approval, "status": "cancelled"},
        {"interruptId": speed, "status": "resolved", "payload": {"speed": "fast"}},
    ]
    first = await run.continue_with(batch)
    after = run.prompt.model_dump_json()

    again = await run.continue_with(copy.deepcopy(batch))

    assert again.status == first.status == "completed"
    assert run.prompt.model_dump_json() == after
    assert ran == ["ship fast"]


def _with_binding(run: AgentRun, interrupt_id: str, **changes: Any) -> dict[str, Any]:
    pending = next(p for p in run.pending if p.id == interrupt_id)
    binding = dict(pending.to_agui()["metadata"][BINDING_METADATA_KEY]) | changes
    return {BINDING_METADATA_KEY: binding}


async def _refused(run: AgentRun, batch: list[dict[str, Any]]) -> ResumeBatchError:
    before = run.prompt.model_dump_json()
    with pytest.raises(ResumeBatchError) as info:
        await run.continue_with(batch)
    assert run.prompt.model_dump_json() == before  # nothing applied
    return info.value


@pytest.mark.parametrize(
    ("make_batch", "expected"),
    [
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "resolved", "payload": True},
                {"interruptId": a, "status": "cancelled"},
                {"interruptId": s, "status": "resolved", "payload": {"speed": "x"}},
            ],
            [("conflict", "a", None)],
            id="conflict",
        ),
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "resolved", "payload": True},
                {"interruptId": s, "status": "resolved", "payload": {"speed": "x"}},
                {"interruptId": "int_nope", "status": "cancelled"},
            ],
            [("unknown-interrupt", "int_nope", None)],
            id="unknown-interrupt",
        ),
        pytest.param(
            lambda a, s, run: [
                {"status": "cancelled"},
                {"interruptId": a, "status": "resolved", "payload": True},
                {"interruptId": s, "status": "resolved", "payload": {"speed": "x"}},
            ],
            [("unknown-interrupt", None, None)],
            id="missing-id",
        ),
        pytest.param(
            lambda a, s, run: [{"interruptId": a, "status": "resolved", "payload": True}],
            [("incomplete-batch", "s", None)],
            id="incomplete-batch",
        ),
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "resolved", "payload": True,
                 "metadata": _with_binding(run, a, interruptedRunId="run_other")},
                {"interruptId": s, "status": "resolved", "payload": {"speed": "x"}},
            ],
            [("stale", "a", None)],
            id="stale-run",
        ),
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "resolved", "payload": True},
                {"interruptId": s, "status": "resolved", "payload": {"speed": "x"},
                 "metadata": _with_binding(run, s, generation=3)},
            ],
            [("stale", "s", None)],
            id="stale-generation",
        ),
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "resolved", "payload": True},
                {"interruptId": s, "status": "resolved", "payload": {"speed": "x"},
                 "metadata": _with_binding(run, s, responseSchemaHash="sha256:" + "0" * 64)},
            ],
            [("invalid-response-schema", "s", None)],
            id="invalid-response-schema",
        ),
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "approved", "payload": True},
                {"interruptId": s, "status": "cancelled", "payload": None},
            ],
            [("invalid-payload", "a", None), ("invalid-payload", "s", None)],
            id="bad-status-and-cancelled-payload",
        ),
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "resolved", "payload": "yes"},
                {"interruptId": s, "status": "resolved", "payload": {"speed": 3}},
            ],
            [("invalid-payload", "a", "$"), ("invalid-payload", "s", "$.speed")],
            id="invalid-payload",
        ),
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "resolved",
                 "payload": {"approved": True, "editedArgs": {"order_id": 42, "amount": -5}}},
                {"interruptId": s, "status": "resolved", "payload": {"speed": "x"}},
            ],
            [("invalid-edited-args", "a", "$.editedArgs.amount")],
            id="invalid-edited-args",
        ),
        pytest.param(
            lambda a, s, run: [
                {"interruptId": a, "status": "resolved",
                 "payload": {"approved": False, "editedArgs": {"order_id": 1, "amount": 1}}},
                {"interruptId": s, "status": "resolved", "payload": {"speed": "x"}},
            ],
            [("invalid-edited-args", "a", "$.editedArgs")],
            id="edited-args-on-a-rejection",
        ),
    ],
)  # fmt: skip
async def test_each_refusal_has_its_code_and_nothing_is_applied(
    make_batch: Any, expected: list[tuple[str, str | None, str | None]]
) -> None:
    run, ran = await _paused()
    approval, speed = _ids(run)
    names = {approval: "a", speed: "s"}

    error = await _refused(run, make_batch(approval, speed, run))

    got = [
        (e.code, names.get(e.interrupt_id, e.interrupt_id) if e.interrupt_id else None, e.path)
        for e in error.errors
    ]
    assert got == expected
    assert ran == []


async def test_an_expired_interrupt_is_refused_in_a_batch() -> None:
    run, ran = await _paused(expires=True)
    approval, speed = _ids(run)
    error = await _refused(
        run,
        [
            {"interruptId": approval, "status": "resolved", "payload": True},
            {"interruptId": speed, "status": "resolved", "payload": {"speed": "x"}},
        ],
    )
    assert error.codes == ["expired"]
    assert ran == []


async def test_an_answer_to_an_older_pause_is_stale() -> None:
    run, _ = await _paused()
    approval, speed = _ids(run)
    await run.resume(True, interrupt=approval)
    error = await _refused(
        run,
        [
            {"interruptId": approval, "status": "resolved", "payload": False},
            {"interruptId": speed, "status": "resolved", "payload": {"speed": "x"}},
        ],
    )
    assert error.codes == ["stale"]


async def test_a_cancelled_entry_may_give_the_model_a_reason() -> None:
    run, ran = await _paused()
    approval, speed = _ids(run)
    batch = [
        {"interruptId": approval, "status": "cancelled", "metadata": {"reason": "Too much."}},
        {"interruptId": speed, "status": "cancelled"},
    ]
    await run.continue_with(batch)
    errors = {r.name: r.error.message for r in run.prompt.tool_calls() if r.error}
    assert errors == {"refund": "Too much.", "ship": "The user cancelled this interrupt."}
    after = run.prompt.model_dump_json()
    await run.continue_with(batch)  # a replay, reason included, changes nothing
    assert run.prompt.model_dump_json() == after
    assert ran == []


async def test_a_cancelled_entry_finishes_its_call_like_reject_does() -> None:
    run, _ = await _paused()
    approval, speed = _ids(run)
    finished: list[tuple[str, str]] = []
    run.on("tool_call_finished", lambda e: finished.append((e.tool_call.name, e.tool_call.status)))
    await run.continue_with(
        [
            {"interruptId": approval, "status": "cancelled"},
            {"interruptId": speed, "status": "cancelled"},
        ]
    )
    assert sorted(finished) == [("refund", "rejected"), ("ship", "rejected")]


async def test_replaying_on_a_rebuilt_run_goes_on_from_where_it_stands() -> None:
    from pausepoint import Prompt

    run, _ = await _paused()
    approval, speed = _ids(run)
    batch = [
        {"interruptId": approval, "status": "cancelled"},
        {"interruptId": speed, "status": "cancelled"},
    ]
    await run.continue_with(batch)
    rebuilt = AgentRun(run.agent, Prompt.model_validate_json(run.prompt.model_dump_json()))
    result = await rebuilt.continue_with(batch)
    assert result.status == "completed"
    assert rebuilt.prompt.model_dump_json() == run.prompt.model_dump_json()
