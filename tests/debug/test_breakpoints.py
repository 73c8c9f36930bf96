"""Breakpoints and stepping: debugging pauses before actions, answered from code."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tests.debug.helpers import Ledger, RecordingModel, refund_agent, refund_script

from pausepoint import Prompt, UsageError
from pausepoint.errors import InvalidResolutionError, RunSuspendedError


async def test_a_named_breakpoint_pauses_before_that_action_only() -> None:
    ledger = Ledger()
    run = refund_agent(ledger, refund_script()).new_run("Refund 42", breakpoints=["refund"])
    result = await run.run()
    assert result.status == "interrupted"
    (pending,) = result.pending
    assert (pending.kind, pending.tool_call.name) == ("breakpoint", "refund")
    assert ledger.lookups == [42]
    assert ledger.refunds == []
    result = await run.debug.continue_()
    assert result.status == "completed"
    assert [r.cents for r in ledger.refunds] == [12_000]


async def test_a_predicate_breakpoint_pauses_only_where_it_holds() -> None:
    ledger = Ledger()
    script = [
        call_refund(1, 500),
        call_refund(2, 20_000),
        "Done.",
    ]
    run = refund_agent(ledger, script).new_run(
        "Refund", breakpoints=[lambda c: c.name == "refund" and c.input["cents"] > 10_000]
    )
    result = await run.run()
    assert [r.cents for r in ledger.refunds] == [500]
    assert result.pending[0].tool_call.input == {"order": 2, "cents": 20_000}


def call_refund(order: int, cents: int):  # type: ignore[no-untyped-def]
    from pausepoint import call

    return call("refund", order=order, cents=cents)


async def test_stepping_pauses_before_every_model_call_and_action_until_continue() -> None:
    ledger = Ledger()
    script = [call_refund(1, 100), call_refund(2, 200), call_refund(3, 300), "Done."]
    model = RecordingModel(script)
    run = refund_agent(ledger, model).new_run("Refund", step=True)
    result = await run.run()
    assert result.status == "paused"  # before the first model request
    assert run.debug.before_model
    assert model.calls == 0
    result = await run.debug.step()
    assert model.calls == 1
    assert result.status == "interrupted"  # before the action the model asked for
    assert run.pending[0].tool_call.input["order"] == 1
    assert ledger.refunds == []
    result = await run.debug.step()
    assert [r.order for r in ledger.refunds] == [1]
    assert result.status == "paused"  # before the next model request
    assert model.calls == 1
    await run.debug.step()
    assert run.pending[0].tool_call.input["order"] == 2
    result = await run.debug.continue_()
    assert result.status == "completed"  # Continue: no more stops
    assert [r.order for r in ledger.refunds] == [1, 2, 3]
    assert model.calls == 4


async def test_a_pause_before_the_model_survives_a_save_and_restore() -> None:
    model = RecordingModel(refund_script())
    run = refund_agent(Ledger(), model).new_run("Refund", step=True)
    await run.run()
    saved = run.prompt.model_dump_json()
    restored = refund_agent(Ledger(), model).new_run(Prompt.model_validate_json(saved))
    assert (await restored.wait()).status == "paused"
    result = await restored.debug.continue_()
    assert result.status == "completed"
    assert restored.prompt.model_pause is None


async def test_skip_and_edit_are_refused_before_a_model_request() -> None:
    run = refund_agent(Ledger(), refund_script()).new_run("Refund", step=True)
    await run.run()
    before = run.prompt.model_dump_json()
    with pytest.raises(UsageError, match="before a model request"):
        await run.debug.skip()
    with pytest.raises(UsageError):
        await run.debug.edit({"order": 1, "cents": 1})
    assert run.prompt.model_dump_json() == before


async def test_skip_does_not_run_the_action_and_tells_the_model() -> None:
    ledger = Ledger()
    run = refund_agent(ledger, refund_script()).new_run("Refund", breakpoints=["refund"])
    await run.run()
    result = await run.debug.skip()
    assert result.status == "completed"
    assert ledger.refunds == []
    record = next(r for r in run.prompt.tool_calls() if r.name == "refund")
    assert record.status == "rejected"
    assert record.error is not None
    assert record.error.name == "SkippedByDebugger"


async def test_edit_runs_the_action_with_the_edited_arguments() -> None:
    ledger = Ledger()
    run = refund_agent(ledger, refund_script()).new_run("Refund", breakpoints=["refund"])
    await run.run()
    await run.debug.edit({"order": 42, "cents": 500})
    assert [r.cents for r in ledger.refunds] == [500]
    record = next(r for r in run.prompt.tool_calls() if r.name == "refund")
    assert record.input["cents"] == 12_000  # what the model asked stays recorded
    assert record.effective_input["cents"] == 500


async def test_an_edit_that_does_not_fit_the_input_is_refused_and_changes_nothing() -> None:
    ledger = Ledger()
    run = refund_agent(ledger, refund_script()).new_run("Refund", breakpoints=["refund"])
    await run.run()
    before = run.prompt.model_dump_json()
    with pytest.raises(InvalidResolutionError):
        await run.debug.edit({"order": 42, "cents": "lots"})
    with pytest.raises(InvalidResolutionError):
        await run.resume({"action": "jump"})
    assert run.prompt.model_dump_json() == before
    assert ledger.refunds == []


async def test_a_breakpoint_blocks_run_like_any_pause() -> None:
    run = refund_agent(Ledger(), refund_script()).new_run("Refund", breakpoints=["refund"])
    await run.run()
    with pytest.raises(RunSuspendedError):
        await run.run()


def test_a_breakpoint_that_is_neither_a_name_nor_a_function_is_refused() -> None:
    with pytest.raises(UsageError):
        refund_agent(Ledger(), refund_script()).new_run("x", breakpoints=[42])  # type: ignore[list-item]


async def test_a_breakpoint_is_not_offered_to_agui_clients_as_resumable() -> None:
    from pausepoint.interrupts import classify

    run = refund_agent(Ledger(), refund_script()).new_run("Refund", breakpoints=["refund"])
    await run.run()
    (wire,) = run.agui_interrupts()
    assert wire["reason"] == "pausepoint:breakpoint"
    assert classify(wire).can_resolve is False


async def test_a_breakpoint_survives_a_save_and_restore_in_a_fresh_process(
    tmp_path: Path,
) -> None:
    ledger = Ledger()
    run = refund_agent(ledger, refund_script()).new_run("Refund", breakpoints=["refund"])
    await run.run()
    saved = tmp_path / "run.json"
    saved.write_text(run.prompt.model_dump_json(), encoding="utf-8")
    program = textwrap.dedent(
        f"""
        import asyncio, json, pathlib
        from tests.debug.helpers import Ledger, RecordingModel, refund_agent, refund_script
        from pausepoint import Prompt

        async def main():
            ledger = Ledger()
            prompt = Prompt.model_validate_json(pathlib.Path({str(saved)!r}).read_text())
            run = refund_agent(ledger, refund_script()).new_run(prompt)
            kinds = [p.kind for p in run.pending]
            result = await run.debug.edit({{"order": 42, "cents": 700}})
            print(json.dumps({{"kinds": kinds, "status": result.status,
                              "refunds": [r.cents for r in ledger.refunds],
                              "prompt": run.prompt.model_dump(mode="json")}}))

        asyncio.run(main())
        """
    )
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
        timeout=120,
    )
    report = json.loads(done.stdout)
    assert report["kinds"] == ["breakpoint"]
    assert report["status"] == "completed"
    assert report["refunds"] == [700]
    finished = Prompt.model_validate(report["prompt"])
    entry = next(r for r in finished.tool_calls() if r.name == "refund").interrupts[0]
    assert entry.kind == "breakpoint"
    assert entry.resolution is not None
    assert ledger.refunds == []  # the first process never ran it
