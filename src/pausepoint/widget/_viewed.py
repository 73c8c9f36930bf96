"""What a view needs of the run it shows: the one protocol `AgentRun` and `RemoteRun`
(`pausepoint.agui`) both implement: state and events out; answers, messages and Stop in."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import asyncio

    from ..actions import Action
    from ..models import ModelRequest
    from ..run import (
        AgentRun,
        AgentRunResult,
        Debugger,
        EventHandler,
        EventName,
        LiveView,
        ModelTurn,
        OnRecorded,
        PendingInterrupt,
        RunStatus,
    )
    from ..store import RunStore
    from ..transcript import AnsweredBy, Prompt

__all__ = ["ViewedAgent", "ViewedRun"]


class ViewedAgent(Protocol):
    """What a view asks of the agent behind a run."""

    @property
    def actions(self) -> Mapping[str, Action]: ...

    @property
    def max_answer_bytes(self) -> int: ...

    @property
    def store(self) -> RunStore | None: ...


class ViewedRun(Protocol):
    """A run as a view sees it."""

    @property
    def id(self) -> str: ...

    @property
    def prompt(self) -> Prompt: ...

    @property
    def status(self) -> RunStatus: ...

    @property
    def result(self) -> AgentRunResult | None: ...

    @property
    def pending(self) -> tuple[PendingInterrupt, ...]: ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None: ...

    @property
    def store(self) -> RunStore | None: ...

    @property
    def agent(self) -> ViewedAgent: ...

    @property
    def forks(self) -> Sequence[AgentRun]: ...

    @property
    def debug(self) -> Debugger: ...

    @property
    def view(self) -> LiveView: ...

    def on(self, name: EventName, handler: EventHandler) -> Callable[[], None]: ...

    async def run(
        self, message: str | None = None, *, on_recorded: OnRecorded | None = None
    ) -> AgentRunResult: ...

    async def retry(
        self, *, on_recorded: OnRecorded | None = None, by: AnsweredBy = "code"
    ) -> AgentRunResult: ...

    async def resume(
        self,
        data: Any = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
    ) -> AgentRunResult: ...

    async def reject(
        self,
        error: Any = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
    ) -> AgentRunResult: ...

    def cancel_threadsafe(self, reason: str | None = None) -> Future[AgentRunResult | None]: ...

    def model_request(self, turn: int) -> ModelRequest: ...

    def fork(self, *, at: str | ModelTurn) -> AgentRun: ...

    @property
    def editable_items(self) -> list[int]: ...

    def edit_item(self, position: int, *, text: str = ..., result: Any = ...) -> None: ...
