"""The tool definitions pausepoint gives a TanStack AI web client hash, in the released
`@tanstack/ai` package, to exactly the digests of the bindings its server writes: a client
that declares them sees each approval as a `tool-approval`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tests.agui.served_agent import build
from tests.interrupts.tanstack_node import TanStackNode

from pausepoint import Agent, ScriptedModel, action, call
from pausepoint.agui import tool_definitions
from pausepoint.interrupts import BINDING_METADATA_KEY

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@action(needs_approval=True)
def wipe() -> str:
    """Wipe the cache, with no arguments."""
    return "wiped"


@pytest.mark.node
@pytest.mark.parametrize(
    ("agent", "asked"),
    [
        (build(), call("refund", order_id=42, amount=30.0)),
        (Agent(model=ScriptedModel([call("wipe"), "Done."]), actions=[wipe]), call("wipe")),
    ],
    ids=["with arguments", "without arguments"],
)
async def test_each_definition_hashes_to_the_digests_of_its_approvals_binding(
    tanstack: TanStackNode, agent: Agent, asked: object
) -> None:
    [definition] = tool_definitions(agent)
    agent.model = ScriptedModel([asked, "Done."])
    run = agent.new_run("Go")
    await run.run()
    [pause] = run.agui_interrupts()
    binding = pause["metadata"][BINDING_METADATA_KEY]

    hashed, normalized = tanstack.values(
        [
            {"op": "schemaHash", "schema": definition["inputSchema"]},
            {"op": "approvalSchema", "inputSchema": definition["inputSchema"]},
        ]
    )
    assert definition["name"] == binding["toolName"]
    assert definition["needsApproval"] is True
    assert hashed == binding["inputSchemaHash"]
    assert normalized["responseSchemaHash"] == binding["responseSchemaHash"]
    assert normalized["approvalSchemaHash"] == binding["approvalSchemaHash"]


def test_only_the_actions_that_need_approval_are_defined() -> None:
    assert [d["name"] for d in tool_definitions(build())] == ["refund"]


def test_the_command_line_prints_the_definitions_as_json_and_serves_nothing() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pausepoint.agui",
            "tests.agui.served_agent:agent",
            "--tool-definitions",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == tool_definitions(build())
