"""`DemoModel`: an offline model that follows simple rules, for quickstarts and teaching."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

from pydantic import JsonValue

from ..transcript import Item, ToolCall, ToolCallRequest, UserMessage
from ._outcome import outcome_of
from ._protocol import (
    ActionSpec,
    ModelRequest,
    ModelResponse,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
)

__all__ = ["DemoModel"]

# Words that carry no meaning for choosing an action or filling a field.
_FILLER_WORDS = (
    "a about an and are be by can could do for from i in into is it its me my of on or "
    "please some that the this to want we with would you your"
)
_FILLER = frozenset(_FILLER_WORDS.split())
_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_QUOTED = re.compile(r"\"([^\"]*)\"|“([^”]*)”|(?:^|(?<=\s))'([^']*)'(?=[\s.,!?;:]|$)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class DemoModel:
    """Picks an action by simple rules, so a notebook runs with no key and no network.

    The rules, applied to the latest user message:

    1. **Choosing an action.** An action whose whole name appears (``refund``,
       ``delete record`` or ``delete_record``) wins; otherwise the action with the most
       words of its name (10 points each) and of its description (1 point each) in the
       message. Nothing matches: the answer is a short help text listing the actions.
    2. **Numbers** fill integer and number fields: first a number right after a word of
       the field's name (``order 42`` fills ``order_id``), then the remaining numbers in
       order.
    3. **Text** fills string fields: ``"quoted text"`` in order; then the first unfilled
       required string field (or the first string field, if none was filled) gets the
       words left over: the message without numbers, filler words ("please", "the"...)
       and words of the action's name, its description and its field names. A field with
       a fixed set of values (an enum) takes the value the message mentions. Booleans
       keep their defaults.
    4. **At most one action per turn.** Once it has results, it writes a final answer
       summarising each: the result, the error, or why it was not run (``I didn't run
       refund: the user declined.``).

    Its answers depend only on the request, so a run is the same every time::

        agent = Agent(model=DemoModel(), actions=[refund])
        run = agent.new_run("Please refund order 42, amount 30")
        # -> calls refund(order_id=42, amount=30)

    With `token_delay` set, `stream()` yields the text word by word with that pause.
    """

    def __init__(self, *, token_delay: float = 0.0) -> None:
        self.token_delay = token_delay

    def __repr__(self) -> str:
        return "DemoModel()"

    async def request(self, request: ModelRequest) -> ModelResponse:
        return _answer(request)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        response = _answer(request)
        for token in re.findall(r"\S+\s*|\s+", response.text):
            if self.token_delay:
                await asyncio.sleep(self.token_delay)
            yield TextDelta(token)
        for index, call in enumerate(response.tool_calls):
            yield ToolCallDelta(index, call.id, call.name, json.dumps(call.input))
        yield response


def _answer(request: ModelRequest) -> ModelResponse:
    """DemoModel's answer to a request (see its docstring for the rules)."""
    items = list(request.items)
    latest = _latest_user_message(items)
    if latest is None:
        return ModelResponse(text=_help(request.actions))
    position, message = latest
    records = [item for item in items[position + 1 :] if isinstance(item, ToolCall)]
    if records:
        return ModelResponse(text=" ".join(_summary(record) for record in records))
    spec = _choose(request.actions, message.text)
    if spec is None:
        return ModelResponse(text=_help(request.actions))
    args = _fill(spec, message.text)
    shown = ", ".join(f"{key}={json.dumps(value)}" for key, value in args.items())
    # Ids only need to be unique within the transcript, which only ever grows.
    call = ToolCallRequest(id=f"call_demo_{len(items)}", name=spec.name, input=args)
    return ModelResponse(text=f"Calling {spec.name}({shown}).", tool_calls=[call])


# -- choosing ------------------------------------------------------------------------


def _split_name(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [part.lower() for part in re.split(r"[\W_]+", spaced) if part]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _matches(said: str, word: str) -> bool:
    """`said` (from the message) is `word`, a plural of it, or starts with it (greet/greeting)."""
    said, word = _stem(said), _stem(word)
    return said == word or (len(word) >= 4 and said.startswith(word))


def _mentions(words: Sequence[str], word: str) -> bool:
    return any(_matches(said, word) for said in words)


def _choose(actions: Sequence[ActionSpec], text: str) -> ActionSpec | None:
    plain = _without_quotes(text).lower()
    words = _WORD.findall(plain)
    best: tuple[int, ActionSpec | None] = (0, None)
    for spec in actions:
        name_words = _split_name(spec.name)
        if spec.name.lower() in plain or all(_mentions(words, w) for w in name_words):
            score = 100 + len(name_words)
        else:
            score = 10 * sum(
                1 for w in name_words if len(w) >= 3 and w not in _FILLER and _mentions(words, w)
            )
            described = {w for w in _WORD.findall(spec.description.lower()) if len(w) >= 4}
            score += sum(1 for w in sorted(described - _FILLER) if _mentions(words, w))
        if score > best[0]:
            best = (score, spec)
    return best[1]


# -- filling the input ---------------------------------------------------------------


def _without_quotes(text: str) -> str:
    return _QUOTED.sub(" ", text)


def _quoted(text: str) -> list[str]:
    return [next(g for g in match.groups() if g is not None) for match in _QUOTED.finditer(text)]


def _kind(prop: dict[str, Any], schema: dict[str, Any]) -> str | None:
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        prop = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
    if "enum" in prop:
        return "enum"
    if isinstance(prop.get("type"), str):
        return str(prop["type"])
    for option in prop.get("anyOf", []):
        kind = _kind(option, schema)
        if kind not in (None, "null"):
            return kind
    return None


def _enum_values(prop: dict[str, Any], schema: dict[str, Any]) -> list[Any]:
    ref = prop.get("$ref")
    if isinstance(ref, str):
        prop = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
    for option in prop.get("anyOf", []):
        if "enum" in option or "$ref" in option:
            return _enum_values(option, schema)
    values = prop.get("enum", [])
    return list(values) if isinstance(values, list) else []


def _fill(spec: ActionSpec, text: str) -> dict[str, JsonValue]:
    schema = spec.input_schema
    props: dict[str, Any] = schema.get("properties", {})
    kinds = {name: _kind(prop, schema) for name, prop in props.items()}
    plain = _without_quotes(text)
    tokens = _WORD.findall(plain.lower())
    args: dict[str, JsonValue] = {}
    used: set[int] = set()  # positions of tokens consumed as values or labels
    numbers = [i for i, token in enumerate(tokens) if _NUMBER.fullmatch(token)]

    def fits(kind: str | None, position: int) -> bool:
        return kind == "number" or float(tokens[position]).is_integer()

    numeric = [name for name, kind in kinds.items() if kind in ("integer", "number")]
    for name in numeric:  # a number right after a word of the field's name
        parts = _split_name(name)
        labels = [i for i, t in enumerate(tokens) if any(_matches(t, p) for p in parts)]
        for label in labels:
            after = [i for i in numbers if label < i <= label + 3 and i not in used]
            if after and fits(kinds[name], after[0]):
                args[name] = _number(tokens[after[0]])
                used.update({label, after[0]})
                break
    for name in numeric:  # then the other numbers, in order
        if name in args:
            continue
        free = [i for i in numbers if i not in used and fits(kinds[name], i)]
        if free:
            args[name] = _number(tokens[free[0]])
            used.add(free[0])

    lowered = plain.lower()
    for name, kind in kinds.items():
        if kind == "enum":
            for value in _enum_values(props[name], schema):
                if isinstance(value, str) and value.lower() in lowered:
                    args[name] = value
                    break

    strings = [name for name, kind in kinds.items() if kind == "string"]
    for name, quote in zip(strings, _quoted(text), strict=False):
        args[name] = quote
    required = [n for n in strings if n not in args and n in schema.get("required", [])]
    untouched = not any(n in args for n in strings)
    target = required[0] if required else (strings[0] if strings and untouched else None)
    if target is not None:
        known = [*_split_name(spec.name), *_WORD.findall(spec.description.lower())]
        known += [part for name in props for part in _split_name(name)]
        known += [str(v).lower() for v in args.values() if isinstance(v, str)]
        rest = [
            word
            for word in re.findall(r"[\w.'-]+", plain)
            if word.lower() not in _FILLER
            and not _NUMBER.fullmatch(word)
            and not any(_matches(word.lower(), w) for w in known)
        ]
        if rest:
            args[target] = " ".join(rest)
    return {name: args[name] for name in props if name in args}


def _number(token: str) -> int | float:
    value = float(token)
    return int(value) if value.is_integer() else value


# -- answering -----------------------------------------------------------------------


def _summary(record: ToolCall) -> str:
    done = outcome_of(record)
    if done.kind == "succeeded":
        if record.result is None:
            return f"Done: {record.name} finished."
        shown = record.result if isinstance(record.result, str) else json.dumps(record.result)
        end = "" if shown.endswith((".", "!", "?")) else "."
        return f"Done: {record.name} returned {shown}{end}"
    if done.kind == "responded":
        return f"I didn't run {record.name}. You said: {done.said}"
    reason = done.reason if done.reason.endswith(("!", "?")) else f"{done.reason}."
    if done.kind == "declined":
        return f"I didn't run {record.name}: {reason[:1].lower()}{reason[1:]}"
    if done.kind == "expired":
        return f"I didn't run {record.name}: nobody answered in time. {reason}"
    if done.kind == "failed":
        return f"I tried {record.name}, but it failed: {reason}"
    if done.kind == "cancelled":
        return f"{record.name} was cancelled: {reason}"
    return f"{record.name} is still {record.status}."


def _help(actions: Sequence[ActionSpec]) -> str:
    if not actions:
        return (
            "I'm the offline demo model and this agent has no actions, so there is "
            "nothing I can do. Add actions to the Agent, or use a real model."
        )
    lines = [f"- {spec.name}: {spec.description}".rstrip(": ") for spec in actions]
    example = " ".join(_split_name(actions[0].name))
    return (
        "I'm the offline demo model: I follow simple rules, so I didn't find an action "
        "in your message. I can run:\n" + "\n".join(lines) + "\nName one, with numbers "
        f'or "quoted text" for its inputs, e.g. "{example} 7".'
    )


def _latest_user_message(items: Sequence[Item]) -> tuple[int, UserMessage] | None:
    for position in range(len(items) - 1, -1, -1):
        item = items[position]
        if isinstance(item, UserMessage):
            return position, item
    return None
