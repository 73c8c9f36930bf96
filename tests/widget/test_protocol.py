"""The protocol between kernel and page, declared once in `pausepoint.widget.protocol` and
`traits`: the page's generated types match the models, every synced trait is declared,
every request type the page sends survives the models, a request missing a required field
is refused with its path, and every reply the kernel builds fits the reply model."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import TypeAdapter
from tests.widget.recording import RecordingComm

from pausepoint import ActionInterrupt, Agent, ScriptedModel, action, call
from pausepoint.errors import InvalidResolutionError, ResolutionProblem
from pausepoint.store import RunStore
from pausepoint.widget import Inbox, RunView
from pausepoint.widget._requests import RequestPath, Served
from pausepoint.widget._responses import failure, failure_of, success
from pausepoint.widget._typescript import (
    UnsupportedSchema,
    protocol_typescript,
    typescript_of_schema,
)
from pausepoint.widget._view_requests import view_handlers
from pausepoint.widget.protocol import (
    INBOX_REQUESTS,
    REPLIES,
    VIEW_REQUESTS,
    InboxRequest,
    ViewRequest,
    request_types,
)
from pausepoint.widget.traits import InboxTraits, RunViewTraits

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "js" / "src" / "generated" / "protocol.ts"

# One valid example of each request the page sends, by type, with every field it may carry.
EXAMPLES: dict[str, dict[str, Any]] = {
    "resume": {"interrupt": "int_1", "data": {"approved": True, "editedArgs": {"n": 1}}},
    "reject": {"interrupt": "int_1", "reason": "not now", "run": "run_1"},
    "value": {"ref": "item/0"},
    "say": {"text": "Hello"},
    "retry": {},
    "cancel": {},
    "debug": {"action": "step"},
    "model_request": {"turn": 2},
    "fork": {"turn": 1, "open": True},
    "branches": {"fork": "run_2"},
    "show_fork": {"fork": None},
    "edit_item": {"position": 0, "result": None},
    "find": {
        "filter": {"tool": "refund", "status": "failed", "text": "x"},
        "from": 10,
        "count": 20,
    },
    "follow": {},
    "refresh": {},
    "show": {"count": 3},
    "list": {
        "filter": {"text": "x", "agent": "ops", "kind": "generic", "ignored": None},
        "sort": "newest",
        "offset": 0,
        "limit": 10,
    },
    "open": {"run": "run_1"},
    "bulk": {"answer": "respond", "runs": ["run_1", "run_2"], "text": "Use the new address."},
    "ignore": {"run": "run_1", "by": "ana"},
    "unignore": {"run": "run_1"},
}
UNIONS = {"run view": (ViewRequest, VIEW_REQUESTS), "inbox": (InboxRequest, INBOX_REQUESTS)}


def example(kind: str) -> dict[str, Any]:
    return {"type": kind, "requestId": f"q-{kind}", **EXAMPLES[kind]}


def test_the_checked_in_page_types_are_what_the_models_make() -> None:
    made = protocol_typescript()
    assert GENERATED.read_text(encoding="utf-8") == made, (
        "js/src/generated/protocol.ts is out of date with pausepoint/widget/protocol.py: "
        "run `make protocol`."
    )


@pytest.mark.parametrize("view", list(UNIONS))
def test_every_request_type_a_view_serves_has_an_example_here(view: str) -> None:
    union, _ = UNIONS[view]
    assert request_types(union) <= set(EXAMPLES)


@pytest.mark.parametrize(
    ("view", "kind"),
    [(view, kind) for view, (union, _) in UNIONS.items() for kind in sorted(request_types(union))],
)
def test_every_request_the_page_sends_round_trips_through_its_model(view: str, kind: str) -> None:
    adapter = UNIONS[view][1]
    sent = example(kind)

    model = adapter.validate_python(sent)
    dumped = adapter.dump_python(model, mode="json", by_alias=True, exclude_unset=True)

    assert dumped == sent
    assert adapter.validate_python(dumped) == model


def required_fields() -> list[tuple[str, str, str]]:
    cases = []
    for view, (union, _) in UNIONS.items():
        schema = TypeAdapter(union).json_schema(mode="validation")
        for kind in sorted(request_types(union)):
            model = next(
                s
                for s in schema["$defs"].values()
                if s.get("properties", {}).get("type", {}).get("const") == kind
            )
            cases += [(view, kind, f) for f in model["required"] if f != "type"]
    return cases


@pytest.mark.parametrize(("view", "kind", "field"), required_fields())
def test_a_request_missing_a_required_field_is_refused_with_its_path(
    view: str, kind: str, field: str
) -> None:
    union, adapter = UNIONS[view]
    replies: list[dict[str, Any]] = []
    served: list[Any] = []
    handlers = {t: lambda request: served.append(request) or Served() for t in request_types(union)}
    path = RequestPath(replies.append, adapter, handlers)
    sent = example(kind)
    del sent[field]

    path(None, sent)

    [reply] = replies
    assert reply["ok"] is False
    assert reply["error"]["code"] == "bad-request"
    assert reply["error"]["message"] == f"{field}: Field required"
    assert served == []


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        ({"type": "find", "filter": {"status": "sleepy"}}, "filter.status: Input should be"),
        ({"type": "find", "jump": {"call": 0}}, "jump.call: Input should be greater than 0"),
        ({"type": "find", "filter": {"colour": "red"}}, "filter.colour: Extra inputs are not"),
        ({"type": "debug", "action": "jump"}, "action: Input should be 'step' or 'continue'"),
        ({"type": "bulk", "answer": "respond", "runs": ["r"]}, "text: Respond needs the words"),
        ({"type": "explode"}, "type: unknown request type; this view serves branches, cancel,"),
        ({}, "type: unknown request type"),
    ],
)
def test_a_refused_shape_names_the_path_of_its_first_problem(
    sent: dict[str, Any], says: str
) -> None:
    replies: list[dict[str, Any]] = []
    union = ViewRequest if sent.get("type") != "bulk" else InboxRequest
    adapter = VIEW_REQUESTS if union is ViewRequest else INBOX_REQUESTS
    path = RequestPath(replies.append, adapter, dict.fromkeys(request_types(union), Served))

    path(None, {"requestId": "q", **sent})

    [reply] = replies
    assert reply["requestId"] == "q"
    assert reply["error"]["code"] == "bad-request"
    assert reply["error"]["message"].startswith(says)


def test_a_refusal_never_echoes_a_long_key_or_type_whole() -> None:
    replies: list[dict[str, Any]] = []
    path = RequestPath(replies.append, VIEW_REQUESTS, {"find": Served})
    long = "k" * 50_000

    path(None, {"type": "find", "requestId": "a", "filter": {long: 1}})
    path(None, {"type": long, "requestId": "b"})

    assert [r["error"]["code"] for r in replies] == ["bad-request", "bad-request"]
    assert all(len(r["error"]["message"]) < 1000 for r in replies)


def test_each_view_serves_exactly_the_request_types_of_its_union(
    store: RunStore, comms: list[RecordingComm]
) -> None:
    stub = SimpleNamespace(run=SimpleNamespace(prompt=SimpleNamespace(items=[])))
    box = Inbox(store, agents={}, poll=None)

    assert set(view_handlers(stub)) == request_types(ViewRequest)  # type: ignore[arg-type]
    assert set(box._handlers()) == request_types(InboxRequest)


def test_every_kind_of_reply_the_kernel_builds_fits_the_reply_model() -> None:
    refused = InvalidResolutionError([ResolutionProblem("$.amount", "too big")])
    replies = [
        success("q"),
        success("q", {"rows": [], "total": 0}),
        success(None, None),
        failure(None, "BadRequest", "requestId: Field required"),
        failure("q", "NoEventLoop", "No loop.", code="no-loop"),
        failure("q", "X", "Bad.", [{"path": "$.amount", "message": "too big"}], code="refused"),
        failure_of("q", refused),
        failure_of("q", RuntimeError("a bug")),
    ]

    for reply in replies:
        model = REPLIES.validate_python(reply)
        assert REPLIES.dump_python(model, by_alias=True, exclude_unset=True) == reply


def test_a_reply_with_a_code_the_protocol_does_not_name_does_not_fit() -> None:
    with pytest.raises(ValueError, match=r"error\.code"):
        REPLIES.validate_python(failure("q", "X", "Bad.", code="oops"))  # type: ignore[arg-type]


def test_the_generator_writes_unions_arrays_and_odd_keys_as_typescript() -> None:
    made = typescript_of_schema(
        {
            "Pair": {
                "type": "object",
                "description": "Two things.",
                "properties": {
                    "kind": {"const": "pair"},
                    "a-b": {
                        "type": "array",
                        "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    },
                    "at": {
                        "type": "array",
                        "prefixItems": [{"type": "string"}, {"type": "number"}],
                    },
                    "any": {},
                    "map": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Mode"}},
                },
                "required": ["kind", "a-b"],
            },
            "Mode": {"enum": ["on", "off"], "type": "string"},
            "JsonValue": {},
        },
        source="here.py",
    )

    assert "// Generated from here.py by `make protocol`; do not edit." in made
    assert '/** Two things. */\nexport interface Pair {\n  kind: "pair";\n' in made
    assert '  "a-b": (string | number)[];\n' in made
    assert "  at?: [string, number];\n" in made
    assert "  any?: Json;\n" in made
    assert "  map?: { [key: string]: Mode };\n" in made
    assert 'export type Mode = "on" | "off";' in made
    assert "JsonValue" not in made


@pytest.mark.parametrize(
    "schema",
    [{"type": "string", "pattern": "^a"}, {"$ref": "https://example.com/s.json"}, {"type": "date"}],
)
def test_the_generator_refuses_a_schema_it_does_not_understand(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedSchema):
        typescript_of_schema({"Odd": {"type": "object", "properties": {"x": schema}}}, source="x")


@pytest.mark.parametrize(
    ("widget", "traits"),
    [(RunView, RunViewTraits), (Inbox, InboxTraits)],
    ids=["run view", "inbox"],
)
def test_every_synced_trait_of_a_view_is_declared_in_the_traits_models(
    widget: type[Any], traits: type[Any]
) -> None:
    # What the kernel syncs and what the page's types say are the same set of names: a
    # trait added to one side only fails here. (The recording comm of every widget test
    # checks each value sent against these models.)
    synced = {name for name in widget.class_own_traits(sync=True) if not name.startswith("_")}
    assert synced == set(traits.model_fields)


async def test_a_card_is_offered_under_the_reason_its_wire_interrupt_carries() -> None:
    # The card's aguiReason and the AG-UI interrupt's reason come from one table: an
    # approval and a question, paused in one turn.
    @action(needs_approval=True)
    async def refund(amount: int) -> str:
        return "refunded"

    @action
    async def ask_city() -> str:
        raise ActionInterrupt("Which city?")

    agent = Agent(
        model=ScriptedModel([[call("refund", amount=5), call("ask_city")], "ok"]),
        actions=[refund, ask_city],
    )
    run = agent.new_run("go")
    await run.run()
    wire = {i["id"]: i["reason"] for i in run.agui_interrupts()}
    cards = {c["id"]: (c["kind"], c["aguiReason"]) for c in run.view.pending}
    assert sorted(kind for kind, _ in cards.values()) == ["generic", "tool-approval"]
    assert {card: reason for card, (_, reason) in cards.items()} == wire
    assert sorted(wire.values()) == ["input_required", "tool_call"]
