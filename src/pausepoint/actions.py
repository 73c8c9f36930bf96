"""Actions (tools): `@action`, the context an action runs with, and `ActionInterrupt`.

An action is a plain function. Its input model comes from its type hints: either a single
pydantic model parameter, or ordinary parameters that are gathered into one::

    class DeleteRecord(BaseModel):
        id: int

    @action
    async def delete_record(input: DeleteRecord, ctx: ActionContext) -> str:
        if ctx.resumption is None:
            raise ActionInterrupt("Approve deleting the record?", {"recordId": input.id})
        return "deleted" if ctx.resumption.data.get("approved") else "kept"

    @action(needs_approval=True)
    def refund(order_id: int, amount: float) -> dict:
        ...

Sync actions run in a worker thread so the notebook stays responsive.
"""

from __future__ import annotations

import inspect
import json
import math
import numbers
import reprlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar, overload

from pydantic import BaseModel, ConfigDict, JsonValue, create_model

from ._json import check_text, to_json_value
from ._response_schema import check_response_schema
from ._threads import run_in_thread
from .errors import UsageError
from .transcript import InterruptEntry, utc_now

ModelT = TypeVar("ModelT", bound=BaseModel)

__all__ = [
    "Action",
    "ActionContext",
    "ActionInterrupt",
    "Rejection",
    "Resumption",
    "action",
]


@dataclass(frozen=True, slots=True)
class Resumption:
    """The answer an action is re-run with: the caller's `data` and the entry's checkpoint."""

    data: Any
    state: Any
    interrupt_id: str

    def parse(self, model: type[ModelT]) -> ModelT:
        """The answer as an instance of `model` (e.g. the interrupt's response schema)::

        order = ctx.resumption.parse(Order)
        """
        return model.model_validate(self.data)


@dataclass(frozen=True, slots=True)
class ActionContext:
    """What an action knows about the call it serves.

    `resumption` is None on a first execution and set when the run was resumed after this
    call's latest interrupt. `history` is the call's interrupt history, oldest first.
    `attempt` counts the executions of this call: 1 the first time, 2 and up when it runs
    again (after a resume, or after the process died while it ran). With `tool_call_id`
    it is what an action needs to make a side effect idempotent.
    """

    tool_call_id: str
    action_name: str
    run_id: str
    resumption: Resumption | None = None
    history: tuple[InterruptEntry, ...] = ()
    attempt: int = 1


class Rejection(BaseModel):
    """How a person declined an interrupt; the model sees it as the tool's error."""

    model_config = ConfigDict(frozen=True)

    name: str = "Rejected"
    message: str = "The user declined."


class ActionInterrupt(Exception):
    """Raised inside an action to pause the run until a person answers.

    `data` tells the person what is needed; `state` is the action's private checkpoint,
    handed back as `ctx.resumption.state`. Both must be JSON-compatible and are checked
    here, at the raise. `response_schema` (a pydantic model class or a JSON Schema dict)
    describes the answer expected; it is checked here too (valid, references only within
    itself, patterns RE2 can run), so a schema no answer could satisfy fails the call
    instead of the person's answer; `expires_at` (a datetime or a timedelta from now) stops
    answers after a deadline.
    """

    def __init__(
        self,
        message: str,
        data: Any = None,
        *,
        state: Any = None,
        response_schema: type[BaseModel] | dict[str, Any] | None = None,
        expires_at: datetime | timedelta | None = None,
    ) -> None:
        super().__init__(message)
        self.message = check_text(message, "The ActionInterrupt message")
        self.data: JsonValue = to_json_value(data, "ActionInterrupt data")
        self.state: JsonValue = to_json_value(state, "ActionInterrupt state (the checkpoint)")
        self.response_model: type[BaseModel] | None = None
        self.response_schema: dict[str, JsonValue] | None = None
        if isinstance(response_schema, type) and issubclass(response_schema, BaseModel):
            self.response_model = response_schema
            schema = to_json_value(
                response_schema.model_json_schema(), "ActionInterrupt response_schema"
            )
        elif response_schema is not None:
            schema = to_json_value(response_schema, "ActionInterrupt response_schema")
        else:
            schema = None
        if response_schema is not None:
            if not isinstance(schema, dict):
                raise UsageError(
                    "response_schema must be a pydantic model class or a JSON Schema dict, "
                    f"not {type(response_schema).__name__}."
                )
            check_response_schema(schema)
            self.response_schema = schema
        if isinstance(expires_at, timedelta):
            expires_at = utc_now() + expires_at
        if expires_at is not None and (
            not isinstance(expires_at, datetime) or expires_at.utcoffset() is None
        ):
            raise UsageError(
                "expires_at must be a timezone-aware datetime or a timedelta, e.g. "
                f"datetime.now(UTC) + timedelta(hours=1); got {expires_at!r}."
            )
        self.expires_at = expires_at


@dataclass(frozen=True)
class Action:
    """An action the model may call. Build one with `@action`."""

    fn: Callable[..., Any]
    name: str
    description: str
    input_model: type[BaseModel]
    needs_approval: bool = False
    approval_message: str | Callable[[Any], str] | None = field(default=None, repr=False)
    timeout: float | None = None
    _spreads_input: bool = field(default=False, repr=False)
    _context_param: str | None = field(default=None, repr=False)
    _schema_text: str | None = field(default=None, init=False, repr=False, compare=False)
    # Read on every call: worked out once here.
    _is_async: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Checked here too, so an Action built directly fails now rather than at a call.
        if not isinstance(self.needs_approval, bool):
            raise UsageError(
                f"Action {self.name!r}: needs_approval must be True or False, not "
                f"{_shown(self.needs_approval)}."
            )
        object.__setattr__(
            self, "timeout", seconds_setting(self.timeout, f"Action {self.name!r}: timeout")
        )
        object.__setattr__(self, "_is_async", inspect.iscoroutinefunction(self.fn))

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the input, as sent to models and shown in edit forms."""
        # Generating it costs about 80 µs per action and every Agent asks; each caller
        # still gets a copy of its own to change.
        text = self._schema_text
        if text is None:
            text = json.dumps(self.input_model.model_json_schema())
            object.__setattr__(self, "_schema_text", text)
        schema: dict[str, Any] = json.loads(text)
        return schema

    def describe_approval(self, input: BaseModel) -> str:
        """The question a tool-approval interrupt asks about this call."""
        if callable(self.approval_message):
            text = self.approval_message(input)
        elif self.approval_message is not None:
            text = self.approval_message.format(**input.model_dump())
        else:
            text = f"Approve running {self.name}?"
        return check_text(text, f"The approval message of {self.name}")

    def validate_input(self, args: Any) -> BaseModel:
        """Validate raw arguments; raises `pydantic.ValidationError` when they do not fit."""
        return self.input_model.model_validate(args)

    async def invoke(self, input: BaseModel, ctx: ActionContext) -> Any:
        # A model made from the function's parameters holds exactly its keyword
        # arguments, in its __dict__ as pydantic keeps fields.
        kwargs: dict[str, Any] = dict(input.__dict__) if self._spreads_input else {"input": input}
        if self._context_param is not None:
            kwargs[self._context_param] = ctx
        if self._is_async:
            return await self.fn(**kwargs)
        result = await run_in_thread((ctx.run_id, ctx.tool_call_id), self.fn, kwargs)
        if inspect.isawaitable(result):
            return await result
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly (handy in tests)."""
        return self.fn(*args, **kwargs)


@overload
def action(fn: Callable[..., Any], /) -> Action: ...


@overload
def action(
    *,
    name: str | None = None,
    description: str | None = None,
    needs_approval: bool = False,
    approval_message: str | Callable[[Any], str] | None = None,
    timeout: float | None = None,
) -> Callable[[Callable[..., Any]], Action]: ...


def action(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    needs_approval: bool = False,
    approval_message: str | Callable[[Any], str] | None = None,
    timeout: float | None = None,
) -> Action | Callable[[Callable[..., Any]], Action]:
    """Turn a function into an `Action`; usable bare (`@action`) or with options.

    `needs_approval=True` pauses the run with a tool-approval interrupt before the action
    runs at all; the person may approve, approve with edited arguments, or decline.
    `approval_message` is the question asked: a format string over the input's fields
    (``"Refund {amount} on order {order_id}?"``) or a function of the validated input.
    `timeout` (seconds) bounds one execution; past it the call fails with
    `ActionTimeoutError`, which the model sees (the agent's `action_timeout` applies when
    it is None).
    """
    # Checked at the decorator, so `@action(timeout="5")` points at itself.
    seconds_setting(timeout, "timeout")
    if not isinstance(needs_approval, bool):
        raise UsageError(f"needs_approval must be True or False, not {_shown(needs_approval)}.")

    def build(f: Callable[..., Any], scope: dict[str, Any]) -> Action:
        return _build_action(
            f,
            scope,
            name=name,
            description=description,
            needs_approval=needs_approval,
            approval_message=approval_message,
            timeout=timeout,
        )

    # The caller's local names resolve hints of classes defined inside a function.
    if fn is not None:
        return build(fn, sys._getframe(1).f_locals)
    return lambda f: build(f, sys._getframe(1).f_locals)


def _build_action(
    fn: Callable[..., Any],
    scope: dict[str, Any],
    *,
    name: str | None,
    description: str | None,
    needs_approval: bool,
    approval_message: str | Callable[[Any], str] | None,
    timeout: float | None = None,
) -> Action:
    try:
        hints = inspect.get_annotations(fn, eval_str=True, locals=scope)
    except NameError as exc:
        raise UsageError(
            f"Action {fn.__name__!r}: a type hint names something not defined yet ({exc}). "
            "Define the input model before the action."
        ) from None
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    context_param = next(
        (p.name for p in params if hints.get(p.name) is ActionContext or p.name == "ctx"), None
    )
    inputs = [p for p in params if p.name != context_param]
    action_name = name or fn.__name__
    only = inputs[0] if len(inputs) == 1 else None
    only_hint = hints.get(only.name) if only is not None else None
    if only is not None and isinstance(only_hint, type) and issubclass(only_hint, BaseModel):
        if only.name != "input":
            raise UsageError(
                f"Action {action_name!r}: name its model parameter 'input' "
                f"(found {only.name!r}), so it can be passed by keyword."
            )
        input_model, spreads = only_hint, False
    else:
        fields: dict[str, Any] = {}
        for p in inputs:
            if p.name not in hints:
                raise UsageError(
                    f"Action {action_name!r}: parameter {p.name!r} needs a type hint; the "
                    "hints become the input schema the model sees."
                )
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[p.name] = (hints[p.name], default)
        model_name = "".join(part.title() for part in action_name.split("_")) + "Input"
        input_model, spreads = create_model(model_name, **fields), True
    doc = inspect.getdoc(fn) or ""
    return Action(
        fn=fn,
        name=action_name,
        description=description if description is not None else doc.split("\n\n")[0].strip(),
        input_model=input_model,
        needs_approval=needs_approval,
        approval_message=approval_message,
        timeout=timeout,
        _spreads_input=spreads,
        _context_param=context_param,
    )


def seconds_setting(value: object, name: str) -> float | None:
    """`value` of the setting `name` as seconds: a finite number > 0, or None (no limit).

    Refused with `UsageError` where the setting is given, so a string or a bool never
    reaches the timer that would fail with a bare `TypeError` much later.
    """
    if value is None:
        return None
    try:
        seconds = float(value) if isinstance(value, numbers.Real) else math.nan
    except OverflowError:  # an int past a double's range
        seconds = math.inf
    if isinstance(value, bool) or not math.isfinite(seconds) or not seconds > 0:
        raise UsageError(
            f"{name} must be a finite number of seconds > 0 or None, not {_shown(value)}."
        )
    return seconds


def count_setting(value: object, name: str) -> int:
    """`value` of the setting `name` as a whole number > 0 (a bool is not one)."""
    count = int(value) if isinstance(value, numbers.Integral) else 0
    if isinstance(value, bool) or not count > 0:
        raise UsageError(f"{name} must be a whole number > 0, not {_shown(value)}.")
    return count


def _shown(value: object) -> str:
    return f"{reprlib.repr(value)} ({type(value).__name__})"
