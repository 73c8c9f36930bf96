"""One hierarchy: misuse raises UsageError, which `except PausepointError` catches."""

from __future__ import annotations

import ast
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import pausepoint
from pausepoint import (
    ActionInterrupt,
    Agent,
    PausepointError,
    ScriptedModel,
    UsageError,
    action,
)
from pausepoint.interrupts import digest


@action
def ping() -> str:
    return "pong"


def agent_with_two_pings() -> None:
    Agent(model=ScriptedModel([]), actions=[ping, ping])


def unknown_event() -> None:
    Agent(model=ScriptedModel([])).new_run("x").on("no_such_event", print)  # type: ignore[arg-type]


def start_without_a_loop() -> None:
    Agent(model=ScriptedModel([])).new_run("x").start()


def action_without_hints() -> None:
    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    action(untyped)


def naive_deadline() -> None:
    ActionInterrupt("x", expires_at=datetime(2030, 1, 1))


def openai_with_client_and_url() -> None:
    from pausepoint.models.openai import OpenAIChatModel

    OpenAIChatModel("m", client=object(), base_url="http://127.0.0.1:1")  # type: ignore[arg-type]


MISUSES: dict[str, Callable[[], Any]] = {
    "an action that is not one": lambda: Agent(model=ScriptedModel([]), actions=[print]),  # type: ignore[list-item]
    "two actions with one name": agent_with_two_pings,
    "an unknown event": unknown_event,
    "start() with no running loop": start_without_a_loop,
    "an action parameter without a type hint": action_without_hints,
    "a response schema that is not a dict": lambda: ActionInterrupt("x", response_schema=5),  # type: ignore[arg-type]
    "a naive expires_at": naive_deadline,
    "digest() of bytes": lambda: digest(b"x"),  # type: ignore[arg-type]
    "a non-positive answer limit": lambda: Agent(model=ScriptedModel([]), max_answer_bytes=0),
    "client and base_url together": openai_with_client_and_url,
}


@pytest.mark.parametrize("misuse", MISUSES.values(), ids=MISUSES.keys())
def test_misuse_raises_a_usage_error_that_except_pausepoint_error_catches(
    misuse: Callable[[], Any],
) -> None:
    with pytest.raises(UsageError) as caught:
        misuse()
    assert isinstance(caught.value, PausepointError)
    # Code written against the built-in errors keeps working.
    assert isinstance(caught.value, TypeError)
    assert isinstance(caught.value, ValueError)


async def test_a_resume_batch_of_the_wrong_shape_is_a_usage_error() -> None:
    run = Agent(model=ScriptedModel([])).new_run("x")
    with pytest.raises(UsageError, match="Resume entries"):
        await run.continue_with([5])  # type: ignore[list-item]


def test_pausepoint_raises_no_bare_builtin_errors() -> None:
    # Protocol errors are allowed: a module's __getattr__ raises AttributeError, a
    # Sequence's __getitem__ raises IndexError, and re-raising a caught error is fine.
    allowed = {"AttributeError", "IndexError"}
    builtins = {"TypeError", "ValueError", "RuntimeError", "KeyError", "ImportError", "Exception"}
    found = []
    for path in Path(pausepoint.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                name = getattr(node.exc.func, "id", None)
                if name in builtins and name not in allowed:
                    found.append(f"{path.name}:{node.lineno} raises {name}")
    assert found == []
