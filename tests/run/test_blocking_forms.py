"""The blocking calls are made from the async ones, so they take the same arguments."""

from __future__ import annotations

import inspect

import pytest

from pausepoint import Agent, AgentRun, ScriptedModel


@pytest.mark.parametrize("name", ["run", "resume", "reject"])
def test_each_blocking_call_takes_the_same_arguments_as_its_async_call(name: str) -> None:
    blocking = getattr(AgentRun, f"{name}_sync")
    assert inspect.signature(blocking) == inspect.signature(getattr(AgentRun, name))
    assert blocking.__name__ == f"{name}_sync"
    assert "await" in (blocking.__doc__ or "")


def test_a_blocking_call_passes_every_keyword_through() -> None:
    run = Agent(model=ScriptedModel(["hi", "again"])).new_run("x")
    assert run.run_sync().status == "completed"
    assert run.run_sync("more", max_turns=1).output == "again"
