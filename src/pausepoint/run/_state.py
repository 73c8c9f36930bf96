"""Where a run stands, derived from its Prompt alone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from ..transcript import InterruptEntry, Prompt, ToolCall

_M = TypeVar("_M", bound=BaseModel)

__all__ = ["Interrupted", "PendingInterrupt", "Ready", "RunState", "derive_state"]


@dataclass(frozen=True, slots=True, repr=False)
class PendingInterrupt:
    """An unanswered interrupt and the tool call it suspends."""

    tool_call: ToolCall
    interrupt: InterruptEntry
    run_id: str = field(default="", compare=False)
    input_schema: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def to_agui(self) -> dict[str, Any]:
        """This pause as an AG-UI `Interrupt` wire dict, with a binding that TanStack AI
        clients read as resumable (see `pausepoint.interrupts`)."""
        from ..interrupts import to_agui

        return to_agui(
            self.tool_call, self.interrupt, run_id=self.run_id, input_schema=self.input_schema
        )

    @property
    def id(self) -> str:
        return self.interrupt.id

    @property
    def message(self) -> str:
        return self.interrupt.message

    @property
    def data(self) -> Any:
        return self.interrupt.data

    @property
    def kind(self) -> str:
        return self.interrupt.kind

    @property
    def generation(self) -> int:
        """The entry's position in its tool call's history (0 for the first pause)."""
        return self.tool_call.interrupts.index(self.interrupt)

    def __repr__(self) -> str:
        return (
            f"PendingInterrupt(id={self.id!r}, kind={self.kind!r}, "
            f"tool={self.tool_call.name!r}, message={self.message!r})"
        )

    @property
    def response_schema(self) -> dict[str, Any] | None:
        return self.interrupt.response_schema


@dataclass(frozen=True, slots=True)
class Ready:
    """Nothing is pending: `run()` may continue (or the run has completed)."""

    status: Literal["ready"] = "ready"


@dataclass(frozen=True, slots=True, repr=False)
class Interrupted:
    """The run waits on `pending` (oldest first); `tool_call`/`interrupt` are the first."""

    tool_call: ToolCall
    interrupt: InterruptEntry
    pending: tuple[PendingInterrupt, ...]
    status: Literal["interrupted"] = "interrupted"

    def __repr__(self) -> str:
        return f"Interrupted(pending={list(self.pending)!r})"


RunState = Ready | Interrupted


def derive_state(
    prompt: Prompt, input_schemas: Mapping[str, Mapping[str, Any]] | None = None
) -> RunState:
    """Compute the state from the transcript. The result is a snapshot: later changes to
    the run do not alter it. `input_schemas` (by action name) complete the wire form."""
    schemas = input_schemas or {}
    pending = tuple(
        _pending(_snapshot(record), prompt.run_id, schemas.get(record.name))
        for record, _ in prompt.pending()
    )
    if not pending:
        return Ready()
    first = pending[0]
    return Interrupted(tool_call=first.tool_call, interrupt=first.interrupt, pending=pending)


def _pending(
    record: ToolCall, run_id: str, input_schema: Mapping[str, Any] | None
) -> PendingInterrupt:
    # The pending entry is the call's latest: the copy of the call holds its copy.
    entry = record.interrupts[-1]
    return PendingInterrupt(record, entry, run_id=run_id, input_schema=input_schema)


def _snapshot(model: _M) -> _M:
    """A deep copy of a transcript model. Its values are JSON (checked as they enter), so a
    round trip through pydantic-core's JSON is exact, and several times faster than
    `model_copy(deep=True)`. A timestamp without a timezone, which reading JSON refuses,
    can only have been assigned by hand: such a model is copied the slow way."""
    try:
        return type(model).model_validate_json(model.model_dump_json())
    except ValidationError:
        return model.model_copy(deep=True)
