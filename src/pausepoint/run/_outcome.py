"""How a stretch of the run ends: the result it leaves, and the one way a run fails."""

from __future__ import annotations

from collections.abc import Callable

from ..transcript import ErrorInfo, Prompt
from ._events import CompletedEvent, Events, FailedEvent
from ._result import AgentRunResult, EndStatus
from ._state import PendingInterrupt

__all__ = ["Outcomes"]


class Outcomes:
    """Builds the results of one run. `fail` is the only way a run fails, so that every
    failure (the model, a limit, an internal error, a refused save) reads the same and
    fires `failed` exactly once."""

    def __init__(
        self,
        prompt: Prompt,
        *,
        pending: Callable[[], tuple[PendingInterrupt, ...]],
        events: Events,
    ) -> None:
        self._prompt = prompt
        self._pending = pending
        self._events = events

    def result(
        self,
        status: EndStatus,
        *,
        error: ErrorInfo | None = None,
        exception: BaseException | None = None,
    ) -> AgentRunResult:
        return AgentRunResult(
            status=status,
            prompt=self._prompt,
            pending=self._pending() if status == "interrupted" else (),
            error=error,
            exception=exception,
        )

    async def fail(self, exc: BaseException) -> AgentRunResult:
        """Fire `failed` for `exc` and return the failed result (the transcript stays as
        it is, so `run()` retries from there)."""
        error = ErrorInfo.from_exception(exc)
        await self._events.emit(FailedEvent(error, exc))
        return self.result("failed", error=error, exception=exc)

    async def complete(self) -> AgentRunResult:
        result = self.result("completed")
        if self._events.heard(CompletedEvent.name):
            await self._events.emit(CompletedEvent(result))
        return result
