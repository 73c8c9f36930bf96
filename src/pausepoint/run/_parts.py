"""How the parts of one `AgentRun` are wired together: each gets only what its job needs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ..store import RunStore, RunWriter
from ._answering import Answering
from ._debug import Breakpoint, Debugger
from ._durable import DEFAULT_LEASE_TTL, Durable, owner_name
from ._events import Events
from ._execute import ToolRunner
from ._outcome import Outcomes
from ._state import PendingInterrupt
from ._stretch import Stretch
from ._turn import Turn

if TYPE_CHECKING:
    from ._run import AgentRun

__all__ = ["Parts", "assemble", "attach"]


@dataclass(frozen=True, slots=True)
class Parts:
    debugger: Debugger
    stretch: Stretch
    answers: Answering


def assemble(
    run: AgentRun,
    *,
    events: Events,
    step: bool,
    breakpoints: Iterable[Breakpoint],
    pending: Callable[[], tuple[PendingInterrupt, ...]],
    checkpoint: Callable[[], Awaitable[None]],
) -> Parts:
    agent, prompt, emit = run.agent, run.prompt, events.emit
    # Pydantic classes of answers awaited by this process; after a restore the JSON
    # Schema recorded in the entry is used instead.
    response_models: dict[str, type[BaseModel]] = {}
    debugger = Debugger(run, step=step, breakpoints=breakpoints)
    tools = ToolRunner(
        actions=agent.actions,
        prompt=prompt,
        events=events,
        response_models=response_models,
        default_timeout=agent.action_timeout,
        checkpoint=checkpoint,
    )
    tools.debugger = debugger
    outcomes = Outcomes(prompt, pending=pending, events=events)
    turn = Turn(
        agent=agent,
        prompt=prompt,
        tools=tools,
        debugger=debugger,
        outcomes=outcomes,
        events=events,
        checkpoint=checkpoint,
    )
    stretch = Stretch(
        agent=agent, prompt=prompt, durable=None, turn=turn, outcomes=outcomes, events=events
    )
    answers = Answering(
        agent=agent,
        prompt=prompt,
        stretch=stretch,
        turn=turn,
        debugger=debugger,
        response_models=response_models,
        emit=emit,
    )
    return Parts(debugger, stretch, answers)


def attach(
    run: AgentRun,
    store: RunStore | None,
    writer: RunWriter | None,
    lease_ttl: float | None,
) -> Durable | None:
    """The run's link to its store: a new stored run for `store`, or the `writer` of a
    loaded one (None: the run lives in memory only)."""
    if store is not None and writer is None:
        parent = run.prompt.parent
        writer = RunWriter.create(
            store,
            run.prompt,
            status=run.status,
            agent=run.agent.name,
            parent_run_id=parent.run_id if parent else None,
            parent_interrupt_id=parent.interrupt_id if parent else None,
        )
    if writer is None:
        return None
    ttl = lease_ttl or run.agent.lease_ttl or DEFAULT_LEASE_TTL
    return Durable(writer, owner=owner_name(run), ttl=ttl)
