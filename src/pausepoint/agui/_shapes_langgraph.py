"""LangGraph's pauses as ag-ui-langgraph serves them: langchain's human in the loop.

ag-ui-langgraph puts an interrupt's value under `metadata.langgraph.raw`. langchain's
`HumanInTheLoopMiddleware` pauses in one of two ways:

- per call (`interrupt_mode="per_call"`): one interrupt per gated call, its value a
  `ToolApprovalRequest` (`type: "tool_approval"`, `tool_call_id`, `name`, `args`,
  `description`), answered with one decision (`{"type": "approve"}`, `{"type": "edit",
  "edited_action": {"name", "args"}}`, `{"type": "respond", "message"}`, `{"type":
  "reject", "message"?}`);
- batched (the default): one interrupt per model turn, its value a `HITLRequest`
  (`action_requests`: name, args, description; `review_configs`: action name and
  `allowed_decisions`), answered `{"decisions": [...]}`, one per request, in order.

The Agent Inbox convention (`interrupt([HumanInterrupt])`, answered with a list of one
`HumanResponse`) is a tool approval of the action it names: see `agent_inbox`.

Any other value of LangGraph's `interrupt(value)` is a question answered with a value
(`Command(resume=value)`): a string is a question answered in text; a dict with a
`message` (or `question`) and a JSON Schema (the interrupt's `responseSchema`, or the
value's `responseSchema` / `response_schema`) is a form. A plain `interrupt()` has no
way to be refused: its card offers no Reject. Any other value stays read-only.

Several open interrupts go back keyed by id in `forwardedProps.command.resume`: the
adapter turns several resume entries into a value LangGraph does not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..transcript.decisions import parse_approval
from ._shape import DECISIONS, Decision, Shape, decision_of_answer

__all__ = ["agent_inbox", "langchain_batched", "langchain_per_call", "langgraph_value"]

SOURCE = "LangGraph"


def _raw(interrupt: Mapping[str, Any]) -> Any:
    metadata = interrupt.get("metadata")
    langgraph = metadata.get("langgraph") if isinstance(metadata, Mapping) else None
    return langgraph.get("raw") if isinstance(langgraph, Mapping) else None


def _decision(name: str) -> Any:
    """The functions that turn a card's answer into one langchain decision for `name`."""

    def resolve(answer: Any) -> dict[str, Any]:
        approval = parse_approval(answer)
        kind = decision_of_answer(answer)
        if kind == "respond":
            return {"type": "respond", "message": approval.response}
        if kind == "edit":
            return {"type": "edit", "edited_action": {"name": name, "args": approval.edited_args}}
        return {"type": "approve"} if kind == "approve" else {"type": "reject"}

    def decline(reason: str) -> dict[str, Any]:
        # langchain's own refusal: a `cancelled` entry reaches the middleware as a value
        # it cannot read.
        return {"type": "reject", "message": reason} if reason else {"type": "reject"}

    return resolve, decline


def _allowed(values: Any) -> tuple[Decision, ...] | None:
    if not isinstance(values, list):
        return None
    allowed = tuple(d for d in DECISIONS if d in values)
    return allowed or None


def _schema_decisions(schema: Any) -> tuple[Decision, ...] | None:
    """The decisions a per-call `response_schema` allows: the `type` constant of each
    branch (a `$ref` read from its `$defs`); None when it says none."""
    if not isinstance(schema, Mapping):
        return None
    found_defs = schema.get("$defs")
    defs: Mapping[str, Any] = found_defs if isinstance(found_defs, Mapping) else {}

    def deref(node: Any) -> Any:
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return defs.get(ref.removeprefix("#/$defs/"))
        return node

    branches = schema.get("oneOf") or schema.get("anyOf") or [schema]
    found: list[str] = []
    for branch in branches if isinstance(branches, list) else []:
        node = deref(branch)
        properties = node.get("properties") if isinstance(node, Mapping) else None
        kind = properties.get("type") if isinstance(properties, Mapping) else None
        if isinstance(kind, Mapping) and isinstance(kind.get("const"), str):
            found.append(kind["const"])
        elif isinstance(kind, Mapping) and isinstance(kind.get("enum"), list):
            found.extend(v for v in kind["enum"] if isinstance(v, str))
    return _allowed(found)


def langchain_per_call(interrupt: Mapping[str, Any]) -> Shape | None:
    """langchain's per-call approval: a card on the call its `tool_call_id` names."""
    raw = _raw(interrupt)
    if not isinstance(raw, Mapping) or raw.get("type") != "tool_approval":
        return None
    name, call_id = raw.get("name"), raw.get("tool_call_id")
    if not isinstance(name, str) or not isinstance(call_id, str):
        return None
    if interrupt.get("toolCallId") not in (None, call_id):
        return None
    resolve, decline = _decision(name)
    description = raw.get("description")
    return Shape(
        SOURCE,
        "tool-approval",
        resolve,
        decline,
        decisions=_schema_decisions(interrupt.get("responseSchema")),
        message=description if isinstance(description, str) else None,
        keyed=True,
    )


def langchain_batched(interrupt: Mapping[str, Any]) -> Shape | None:
    """langchain's batched review: a card on each call it asks about, answered together."""
    raw = _raw(interrupt)
    if not isinstance(raw, Mapping):
        return None
    requests, configs = raw.get("action_requests"), raw.get("review_configs")
    if not isinstance(requests, list) or not requests or not isinstance(configs, list):
        return None
    parts: list[Shape] = []
    for index, request in enumerate(requests):
        name = request.get("name") if isinstance(request, Mapping) else None
        if not isinstance(name, str):
            return None
        config = _config_for(configs, index, name)
        resolve, decline = _decision(name)
        description = request.get("description")
        args = request.get("args")
        parts.append(
            Shape(
                SOURCE,
                "tool-approval",
                resolve,
                decline,
                decisions=_allowed(config.get("allowed_decisions")),
                message=description if isinstance(description, str) else None,
                tool_name=name,
                args=args if isinstance(args, Mapping) else None,
                keyed=True,
            )
        )

    def whole(_: Any) -> Any:
        raise AssertionError("a batch is answered by its parts")

    batch = Shape(SOURCE, "tool-approval", whole, whole, keyed=True)
    return batch.with_parts(
        parts, str(interrupt.get("id")), lambda payloads: {"decisions": payloads}
    )


def _config_for(configs: list[Any], index: int, name: str) -> Mapping[str, Any]:
    """The review config of the `index`th request: the one beside it (langchain lists
    them side by side), else the first for its action."""
    if index < len(configs):
        beside = configs[index]
        if isinstance(beside, Mapping) and beside.get("action_name") == name:
            return beside
    for config in configs:
        if isinstance(config, Mapping) and config.get("action_name") == name:
            return config
    return {}


_INBOX_FLAGS: dict[str, Decision] = {
    "allow_accept": "approve",
    "allow_edit": "edit",
    "allow_respond": "respond",
    "allow_ignore": "reject",
}


def agent_inbox(interrupt: Mapping[str, Any]) -> Shape | None:
    """The Agent Inbox's question: a tool approval of the action its one `HumanInterrupt`
    names (`action_request`: `action`, `args`; `description`, the card's question),
    answered with the `[HumanResponse]` the node reads from `interrupt(...)[0]`.

    Approve is `accept`, Edit arguments `edit` (the action with its edited `args`),
    Respond `response` (the words), and Reject `ignore`. `ignore` carries no words: a
    Reject's reason stays in this transcript, and Respond is how to tell the node why.

    The card offers what the request's `config` allows (`allow_accept`, `allow_edit`,
    `allow_respond`, `allow_ignore`). ag-ui-langgraph 0.0.47 drops every value key named
    `config` before the interrupt is sent, so from its server (or `pausepoint.host`) the
    flags never arrive: the card then offers what the action implies, Approve, Respond
    and Reject, and Edit arguments when it has arguments to edit. A node that allows less
    must still refuse the rest itself.
    """
    raw = _raw(interrupt)
    if not isinstance(raw, list) or len(raw) != 1 or not isinstance(raw[0], Mapping):
        return None
    request = raw[0].get("action_request")
    name = request.get("action") if isinstance(request, Mapping) else None
    args = request.get("args") if isinstance(request, Mapping) else None
    if not isinstance(name, str) or not name or not isinstance(args, Mapping):
        return None
    config = raw[0].get("config")
    if isinstance(config, Mapping):
        decisions = tuple(d for flag, d in _INBOX_FLAGS.items() if config.get(flag) is True)
    else:
        decisions = tuple(d for d in DECISIONS if d != "edit" or args)
    if not decisions:
        return None  # nothing it takes could be sent from a card: shown read-only

    def resolve(answer: Any) -> list[dict[str, Any]]:
        kind = decision_of_answer(answer)
        if kind == "respond":
            return [{"type": "response", "args": parse_approval(answer).response}]
        if kind == "edit":
            edited = parse_approval(answer).edited_args
            return [{"type": "edit", "args": {"action": name, "args": edited}}]
        return [{"type": "accept" if kind == "approve" else "ignore", "args": None}]

    def decline(_: str) -> list[dict[str, Any]]:
        return [{"type": "ignore", "args": None}]  # `ignore` has no room for a reason

    description = raw[0].get("description")
    return Shape(
        SOURCE,
        "tool-approval",
        resolve,
        decline,
        decisions=decisions,
        message=description if isinstance(description, str) and description else None,
        tool_name=name,
        args=args,
        keyed=True,
    )


def langgraph_value(interrupt: Mapping[str, Any]) -> Shape | None:
    """A plain `interrupt(value)` of a LangGraph node: a question in text or a form."""
    metadata = interrupt.get("metadata")
    if not isinstance(metadata, Mapping) or not isinstance(metadata.get("langgraph"), Mapping):
        return None
    raw = _raw(interrupt)
    if isinstance(raw, str) and raw.strip():
        return _question(raw, {"type": "string"})
    if not isinstance(raw, Mapping):
        return None
    schema = next(
        (
            found
            for found in (
                interrupt.get("responseSchema"),
                raw.get("responseSchema"),
                raw.get("response_schema"),
            )
            if isinstance(found, Mapping)
        ),
        None,
    )
    words = next(
        (w for w in (raw.get("message"), raw.get("question")) if isinstance(w, str) and w),
        None,
    )
    if schema is None or words is None:
        return None
    return _question(words, schema)


def _question(words: str, schema: Mapping[str, Any]) -> Shape:
    def resolve(answer: Any) -> Any:
        return answer  # the node reads the value itself (`Command(resume=answer)`)

    def decline(_: str) -> Any:  # pragma: no cover - refused before (no Reject offered)
        raise AssertionError("a plain LangGraph interrupt offers no Reject")

    return Shape(SOURCE, "generic", resolve, decline, decisions=(), message=words, schema=schema)
