"""Every failure of a run takes one path: one `failed` event, then `run_finished` with a
failed result whose error is read from the exception the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pausepoint import Agent, AgentRun, ModelRequest, ModelResponse, ScriptedModel, action, call
from pausepoint.errors import MaxTurnsExceededError
from pausepoint.store import Change, SQLiteStore, StoreConflictError
from pausepoint.transcript import ErrorInfo


class RefusesOutcomes(SQLiteStore):
    """A store whose writes of a final status are refused, as when another writer got
    there first."""

    def write(self, run_id: str, change: Change, **options: Any) -> int:
        if change.status in ("completed", "interrupted", "failed"):
            expected = options["expected_version"]
            raise StoreConflictError(run_id, expected, expected + 1)
        return super().write(run_id, change, **options)


class Broken:
    async def request(self, request: ModelRequest) -> ModelResponse:
        raise ConnectionError("endpoint down")


@action
def noop() -> None:
    """Do nothing."""


def watched(run: AgentRun) -> list[tuple[str, Any]]:
    events: list[tuple[str, Any]] = []
    run.on("failed", lambda e: events.append(("failed", e.error)))
    run.on("run_finished", lambda e: events.append(("run_finished", e.result.status)))
    return events


async def test_a_refused_outcome_save_emits_one_failed_event_and_a_failed_run_finished(
    tmp_path: Path,
) -> None:
    with RefusesOutcomes(tmp_path / "runs.db") as store:
        run = Agent(model=ScriptedModel(["done"])).new_run("x", store=store)
        events = watched(run)

        result = await run.run()

    assert result.status == "failed"
    assert result.error is not None
    assert result.error.name == "StoreConflictError"
    assert isinstance(result.exception, StoreConflictError)
    assert events == [("failed", result.error), ("run_finished", "failed")]
    assert run.result is result


async def test_a_failed_stretch_whose_outcome_save_is_refused_still_fails_once(
    tmp_path: Path,
) -> None:
    with RefusesOutcomes(tmp_path / "runs.db") as store:
        run = Agent(model=Broken()).new_run("x", store=store)
        events = watched(run)

        result = await run.run()

    assert result.error == ErrorInfo(name="ConnectionError", message="endpoint down")
    assert events == [("failed", result.error), ("run_finished", "failed")]


@pytest.mark.parametrize("cause", ["model", "max turns"])
async def test_every_failure_fires_failed_once_then_run_finished(cause: str) -> None:
    if cause == "model":
        agent = Agent(model=Broken())
    else:
        agent = Agent(model=ScriptedModel(lambda r: call("noop")), actions=[noop], max_turns=2)
    run = agent.new_run("x")
    events = watched(run)

    result = await run.run()

    assert result.status == run.status == "failed"
    assert result.error == ErrorInfo.from_exception(result.exception)  # type: ignore[arg-type]
    assert events == [("failed", result.error), ("run_finished", "failed")]
    if cause == "max turns":
        assert isinstance(result.exception, MaxTurnsExceededError)


def test_an_error_is_read_from_its_exception_in_one_way() -> None:
    assert ErrorInfo.from_exception(ValueError("bad")) == ErrorInfo(
        name="ValueError", message="bad"
    )
    assert ErrorInfo.from_exception(KeyError("id")).message == "missing key 'id'"
    assert ErrorInfo.from_exception(TimeoutError()).message == "TimeoutError()"
