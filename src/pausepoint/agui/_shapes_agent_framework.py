"""Microsoft Agent Framework's pauses as agent-framework-ag-ui serves them.

Both kinds carry `metadata.agent_framework`:

- a tool that needs approval (`type: "function_approval_request"`, its `function_call`:
  `call_id`, `name`, `arguments`), reason `tool_call`, on the call its `toolCallId`
  names. It is answered `{"approved": bool, "editedArgs"?: {...}}`: `editedArgs` a full
  replacement of the arguments (offered when the response schema has it; a hosted tool's
  has not). A denial carries no reason: the model reads the framework's own "Error: Tool
  call invocation was rejected by user.", so there is no Respond; a `cancelled` entry
  would end the run with nothing said to the model.
- a workflow executor's `request_info` (`type: "workflow_request_info"`), reason
  `input_required`: a question whose answer is a value of its response type (the
  interrupt's `responseSchema`), handed to the executor's response handler. Cancelling it
  drops the request without telling the executor, so its card offers no Reject.

A workflow's approval (an `AgentExecutor`'s tool, asked by `request_info`; its metadata
names the `source_executor_id`) is the first kind too, answered the same way but without
Edit arguments: agent-framework-core 1.23.0 runs the call it stored, not the edited one
the adapter passes on (`_bind_approval_response_to_pending_request` in
`agent_framework/_tools.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..transcript.decisions import parse_approval
from ._shape import Decision, Shape

__all__ = ["agent_framework_approval", "agent_framework_request"]

SOURCE = "Agent Framework"


def _metadata(interrupt: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = interrupt.get("metadata")
    found = metadata.get("agent_framework") if isinstance(metadata, Mapping) else None
    return found if isinstance(found, Mapping) else {}


def _properties(interrupt: Mapping[str, Any]) -> Mapping[str, Any]:
    schema = interrupt.get("responseSchema")
    found = schema.get("properties") if isinstance(schema, Mapping) else None
    return found if isinstance(found, Mapping) else {}


def agent_framework_approval(interrupt: Mapping[str, Any]) -> Shape | None:
    """An Agent Framework tool that needs approval: a card on the call it names."""
    metadata = _metadata(interrupt)
    call = metadata.get("function_call")
    properties = _properties(interrupt)
    if (
        interrupt.get("reason") != "tool_call"
        or metadata.get("type") != "function_approval_request"
        or not isinstance(call, Mapping)
        or interrupt.get("toolCallId") != call.get("call_id")
        or "approved" not in properties  # a `confirm_changes` steps review asks otherwise
    ):
        return None
    editable = "editedArgs" in properties and "source_executor_id" not in metadata
    decisions: tuple[Decision, ...] = (
        ("approve", "edit", "reject") if editable else ("approve", "reject")
    )

    def resolve(answer: Any) -> dict[str, Any]:
        approval = parse_approval(answer)
        payload: dict[str, Any] = {"approved": approval.approved}
        if approval.edited_args is not None:
            payload["editedArgs"] = approval.edited_args
        return payload

    def decline(_: str) -> dict[str, Any]:
        # Any key beside these would be read as an edited argument and refused.
        return {"approved": False}

    return Shape(SOURCE, "tool-approval", resolve, decline, decisions=decisions)


def agent_framework_request(interrupt: Mapping[str, Any]) -> Shape | None:
    """A workflow's `request_info`: a question in text, or a form from its schema."""
    metadata = _metadata(interrupt)
    schema = interrupt.get("responseSchema")
    if (
        interrupt.get("reason") != "input_required"
        or metadata.get("type") != "workflow_request_info"
        or not isinstance(schema, Mapping)
    ):
        return None
    message = interrupt.get("message")
    if not isinstance(message, str) or not message:
        request_type = metadata.get("request_type")
        message = f"The workflow asks for {request_type or 'an answer'}."

    def resolve(answer: Any) -> Any:
        return answer  # the executor's response handler reads the value itself

    def decline(_: str) -> Any:  # pragma: no cover - refused before (no Reject offered)
        raise AssertionError("an Agent Framework request offers no Reject")

    return Shape(SOURCE, "generic", resolve, decline, decisions=(), message=message, schema=schema)
