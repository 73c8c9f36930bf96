"""Where a run stands, derived from its Prompt alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..transcript import InterruptEntry, Prompt, ToolCall

__all__ = ["Interrupted", "PendingInterrupt", "Ready", "RunState", "derive_state"]


@dataclass(frozen=True, slots=True)
class PendingInterrupt:
    """An unanswered interrupt and the tool call it suspends."""

    tool_call: ToolCall
    interrupt: InterruptEntry

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
    def response_schema(self) -> dict[str, Any] | None:
        return self.interrupt.response_schema


@dataclass(frozen=True, slots=True)
class Ready:
    """Nothing is pending: `run()` may continue (or the run has completed)."""

    status: Literal["ready"] = "ready"


@dataclass(frozen=True, slots=True)
class Interrupted:
    """The run waits on `pending` (oldest first); `tool_call`/`interrupt` are the first."""

    tool_call: ToolCall
    interrupt: InterruptEntry
    pending: tuple[PendingInterrupt, ...]
    status: Literal["interrupted"] = "interrupted"


RunState = Ready | Interrupted


def derive_state(prompt: Prompt) -> RunState:
    """Compute the state from the transcript. The result is a snapshot: later changes to
    the run do not alter it."""
    pending = tuple(
        PendingInterrupt(record.model_copy(deep=True), entry.model_copy(deep=True))
        for record, entry in prompt.pending()
    )
    if not pending:
        return Ready()
    first = pending[0]
    return Interrupted(tool_call=first.tool_call, interrupt=first.interrupt, pending=pending)
