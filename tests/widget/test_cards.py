"""Cards show the arguments as the action will receive them, beside the model's own."""

from __future__ import annotations

from pydantic import BaseModel

from pausepoint import Agent, ScriptedModel, action, call
from pausepoint.widget._cards import validated_arguments
from pausepoint.widget._preview import PREVIEW_KEY, is_preview


class Deploy(BaseModel):
    service: str
    dry_run: bool
    replicas: float
    region: str = "eu-west-1"


def deploy_agent(**arguments: object) -> Agent:
    @action(needs_approval=True)
    async def deploy(input: Deploy) -> str:
        return "deployed"

    return Agent(model=ScriptedModel([call("deploy", **arguments), "ok"]), actions=[deploy])


async def test_an_approval_card_carries_the_validated_arguments() -> None:
    run = deploy_agent(service="api", dry_run="off", replicas="3e3").new_run("go")
    await run.run()
    (card,) = run.view.pending
    assert card["args"] == {"service": "api", "dry_run": "off", "replicas": "3e3"}
    assert card["validatedArgs"] == {
        "service": "api",
        "dry_run": False,
        "replicas": 3000.0,
        "region": "eu-west-1",
    }
    assert "argsProblems" not in card


def test_arguments_that_do_not_fit_the_action_are_reported_not_shown_as_validated() -> None:
    # A run restored under a changed action can hold such arguments; the card says so.
    @action(needs_approval=True)
    async def deploy(input: Deploy) -> str:
        return "deployed"

    shown = validated_arguments(deploy, {"service": "api", "dry_run": "maybe", "replicas": 1})
    assert "validatedArgs" not in shown
    assert [problem["path"] for problem in shown["argsProblems"]] == ["$.dry_run"]
    assert "bool" in shown["argsProblems"][0]["message"]
    assert validated_arguments(None, {"x": 1}) == {}


async def test_large_validated_arguments_travel_as_a_preview_like_the_model_input() -> None:
    run = deploy_agent(service="x" * 100_000, dry_run=True, replicas=1).new_run("go")
    await run.run()
    (card,) = run.view.pending
    assert is_preview(card["args"])
    assert is_preview(card["validatedArgs"])
    ref = card["validatedArgs"][PREVIEW_KEY]["ref"]
    assert run.view.full_value(ref)["service"] == "x" * 100_000
