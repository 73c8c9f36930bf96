"""The tool definitions a TanStack AI web client declares for a served agent.

The released `@tanstack/ai-client` shows a pause as a `tool-approval` only when the
client declares that tool itself, with `needsApproval: true` and an input schema whose
digest is the binding's `inputSchemaHash`. These definitions are the agent's approval
actions with the very schemas the server hashes, so the digests always match::

    import definitions from "./tools.json";
    const tools = definitions.map((d) => toolDefinition(d).client());

They come from ``python -m pausepoint.agui module:agent --tool-definitions`` (a JSON file
to import), from the `toolDefinitions` of the server's GET description, or from here.
"""

from __future__ import annotations

from typing import Any

from ..run import Agent

__all__ = ["tool_definitions"]


def tool_definitions(agent: Agent) -> list[dict[str, Any]]:
    """For each action of `agent` that needs approval, the `toolDefinition({...})`
    options a TanStack AI client declares: ``{name, description, needsApproval: true,
    inputSchema}`` (JSON, camelCase), in the agent's order."""
    return [
        {
            "name": spec.name,
            "description": spec.description,
            "needsApproval": True,
            "inputSchema": spec.input_schema,
        }
        for spec in agent.action_specs
        if agent.actions[spec.name].needs_approval
    ]
