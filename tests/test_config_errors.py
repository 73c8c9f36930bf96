"""Settings are checked where they are given: a wrong type or value is a `UsageError`
that says what was given and what is expected, never a bare TypeError later in a run."""

from __future__ import annotations

from typing import Any

import pytest

from pausepoint import Action, Agent, ScriptedModel, UsageError, action

untyped_action: Any = action
"""`action` as code without type checking calls it."""
SECONDS = ("action_timeout", "model_timeout", "lease_ttl")
COUNTS = ("max_turns", "max_answer_bytes")


def ping() -> str:
    return "pong"


def agent(**settings: Any) -> Agent:
    return Agent(model=ScriptedModel([]), **settings)


@pytest.mark.parametrize("setting", SECONDS)
def test_a_number_of_seconds_given_as_text_is_refused_where_it_is_given(setting: str) -> None:
    with pytest.raises(UsageError) as caught:
        agent(**{setting: "5"})
    assert str(caught.value) == (
        f"{setting} must be a finite number of seconds > 0 or None, not '5' (str)."
    )


@pytest.mark.parametrize("setting", SECONDS)
@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (True, "True (bool)"),
        (0, "0 (int)"),
        (-1.5, "-1.5 (float)"),
        (float("nan"), "nan (float)"),
        (float("inf"), "inf (float)"),
        (10**400, "(int)"),
        ([5], "[5] (list)"),
    ],
)
def test_a_number_of_seconds_that_is_not_a_positive_finite_number_is_refused(
    setting: str, value: object, shown: str
) -> None:
    with pytest.raises(UsageError, match=rf"^{setting} must be .* not .*") as caught:
        agent(**{setting: value})
    assert str(caught.value).endswith(f"{shown}.")


@pytest.mark.parametrize("setting", COUNTS)
@pytest.mark.parametrize(
    ("value", "shown"),
    [("5", "'5' (str)"), (True, "True (bool)"), (0, "0 (int)"), (2.5, "2.5 (float)"),
     (None, "None (NoneType)")],
)  # fmt: skip
def test_a_count_that_is_not_a_whole_number_above_zero_is_refused(
    setting: str, value: object, shown: str
) -> None:
    with pytest.raises(UsageError) as caught:
        agent(**{setting: value})
    assert str(caught.value) == f"{setting} must be a whole number > 0, not {shown}."


def test_good_settings_are_kept_as_numbers() -> None:
    built = agent(
        action_timeout=5, model_timeout=None, lease_ttl=0.5, max_turns=3, max_answer_bytes=10
    )
    assert (built.action_timeout, built.model_timeout, built.lease_ttl) == (5.0, None, 0.5)
    assert isinstance(built.action_timeout, float)
    assert (built.max_turns, built.max_answer_bytes) == (3, 10)


def test_an_action_timeout_given_as_text_is_refused_at_the_decorator() -> None:
    with pytest.raises(UsageError) as caught:
        untyped_action(timeout="5")
    assert (
        str(caught.value)
        == "timeout must be a finite number of seconds > 0 or None, not '5' (str)."
    )


@pytest.mark.parametrize("value", [True, 0, -1, float("nan")])
def test_an_action_timeout_that_is_not_a_positive_number_is_refused_at_the_decorator(
    value: object,
) -> None:
    with pytest.raises(UsageError, match=r"^timeout must be a finite number of seconds"):
        untyped_action(timeout=value)


def test_needs_approval_given_as_text_is_refused_rather_than_read_as_true() -> None:
    with pytest.raises(UsageError, match=r"needs_approval must be True or False, not 'no' \(str\)"):
        untyped_action(needs_approval="no")


def test_an_action_built_directly_checks_its_timeout() -> None:
    model = action(ping).input_model
    with pytest.raises(UsageError, match=r"^Action 'ping': timeout must be .* not '5' \(str\)"):
        Action(fn=ping, name="ping", description="", input_model=model, timeout="5")  # type: ignore[arg-type]


def test_a_good_action_timeout_is_kept_in_seconds() -> None:
    assert action(timeout=2)(ping).timeout == 2.0
    assert action(ping).timeout is None


def test_a_refused_setting_is_also_a_type_error_for_code_that_catches_those() -> None:
    with pytest.raises(TypeError):
        agent(action_timeout="5")
