"""The view's debugging requests: what the model was sent for a turn, forks (at an
interrupt, a tool call or a model turn), and two branches side by side from a fork point;
and the list of forks, named by what made them, kept current."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..run import Event, ModelTurn, TextDeltaEvent, edits_said, fork_name
from ..transcript import AssistantMessage, ToolCall
from .protocol import Branches, Fork, ModelRequest

if TYPE_CHECKING:
    from ..run import AgentRun
    from ._viewed import ViewedRun

__all__ = [
    "DEBUG_REQUESTS",
    "ForkFollower",
    "answer_debug_request",
    "branches",
    "fork_point_of",
    "forks_of",
    "model_request_value",
]

DEBUG_REQUESTS = frozenset({"model_request", "fork", "branches"})


def name_in_notebook(run: ViewedRun) -> str:
    """The notebook variable that holds `run`, for the words "in code: finished.forks[0]"
    ("run" when no variable does, or outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return "run"
    shell = get_ipython()
    if shell is None:
        return "run"
    for name, value in list(shell.user_ns.items()):
        if value is run and isinstance(name, str) and name.isidentifier() and name[0] != "_":
            return name
    return "run"


def forks_of(run: ViewedRun, held_in: str | None = None) -> list[dict[str, Any]]:
    """The runs forked from `run` in this process, for the view's list: each named by
    what made it, with the point it went back to, and reached in code through `held_in`
    (the notebook variable holding `run`; looked up when not given)."""
    out = []
    if held_in is None:
        held_in = name_in_notebook(run) if run.forks else "run"
    for i, fork in enumerate(run.forks):
        origin = fork.prompt.parent
        out.append(
            {
                "runId": fork.id,
                "code": f"{held_in}.forks[{i}]",
                "name": fork_name(fork.prompt) or f"fork of {run.id}",
                "interruptId": origin.interrupt_id if origin else None,
                "toolCallId": origin.tool_call_id if origin else None,
                "turn": origin.turn if origin else None,
                "status": fork.status,
                "items": len(fork.prompt.items),
            }
        )
    return out


class ForkFollower:
    """Keeps a view's list of forks current: it follows each fork's events and publishes
    the list again when a fork starts, moves on or finishes."""

    def __init__(self, run: ViewedRun, publish: Callable[[list[dict[str, Any]]], None]) -> None:
        self._run = run
        self._publish = publish
        self._offs: dict[str, Callable[[], None]] = {}
        self._held_in = "run"

    def refresh(self) -> None:
        """Follow forks made since the last call (from code or the view) and publish; the
        notebook's name for the run is looked up here (at the end of each cell), not at
        each of a fork's events."""
        for fork in self._run.forks:
            if fork.id not in self._offs:
                self._offs[fork.id] = fork.on("*", self._on_event)
        self._held_in = name_in_notebook(self._run) if self._run.forks else "run"
        self._publish(forks_of(self._run, self._held_in))

    def _on_event(self, event: Event) -> None:
        if not isinstance(event, TextDeltaEvent):
            self._publish(forks_of(self._run, self._held_in))

    def close(self) -> None:
        for off in self._offs.values():
            off()
        self._offs.clear()


_SAID = 200
"""The longest account in words of what a branch did at its fork point."""


@dataclass(frozen=True, slots=True)
class _Point:
    """Where a fork went back to, in its parent: the item it starts at, and how to read
    what each branch did there."""

    index: int
    kind: str
    tool_name: str
    message: str
    interrupt_id: str | None


def _fork_point(run: ViewedRun, fork: AgentRun) -> _Point:
    origin = fork.prompt.parent
    assert origin is not None
    items = run.prompt.items
    if origin.interrupt_id is not None:
        for index, item in enumerate(items):
            if isinstance(item, ToolCall):
                for entry in item.interrupts:
                    if entry.id == origin.interrupt_id:
                        return _Point(index, entry.kind, item.name, entry.message, entry.id)
    elif origin.tool_call_id is not None:
        for index, item in enumerate(items):
            if isinstance(item, ToolCall) and item.id == origin.tool_call_id:
                return _Point(index, "tool call", item.name, f"Before {item.name} ran", None)
    elif origin.turn is not None:
        turns = [i for i, item in enumerate(items) if isinstance(item, AssistantMessage)]
        if 0 <= origin.turn < len(turns):
            return _Point(turns[origin.turn], "turn", "", f"Before turn {origin.turn + 1}", None)
    raise UsageError(f"Run {run.id} no longer holds the point fork {fork.id} was made at.")


def _said(of: ViewedRun, point: _Point, fork: bool) -> tuple[Any, str]:
    """What a branch did at the fork point: its answer there (an interrupt fork) and,
    in words, what it decided."""
    items = of.prompt.items
    if point.kind == "turn":
        if not fork:
            return None, "Asked the model"
        edits = edits_said(of.prompt)
        asked = "Asked the model again" if len(items) > point.index else "Not asked yet"
        return None, f"{asked} {edits}" if edits else asked
    record = items[point.index] if point.index < len(items) else None
    if not isinstance(record, ToolCall):
        return None, "Not there"
    decisions = record.decisions()
    if point.interrupt_id is not None:
        ids = [e.id for e in record.interrupts]
        at = ids.index(point.interrupt_id) if point.interrupt_id in ids else None
        entry = record.interrupts[at] if at is not None else None
        answer = entry.resolution if entry is not None else None
        decision = decisions[at] if at is not None else None
        return (
            answer.model_dump(mode="json") if answer is not None else None,
            decision.words if decision is not None else "Not answered yet",
        )
    said = [d.words for d in decisions if d is not None]
    if not said:
        return None, f"Ran as the model asked ({record.status})" if not fork else "Not answered yet"
    return None, "; ".join(said)


def branches(run: ViewedRun, fork_id: str) -> dict[str, Any]:
    """This run and its fork `fork_id` from the fork point on: what each did there (its
    answer to the interrupt it was forked at, the arguments it ran the call with, the
    turn it asked again), its status, and its items from that point on."""
    fork = next((f for f in run.forks if f.id == fork_id), None)
    if fork is None or fork.prompt.parent is None:
        known = [f.id for f in run.forks]
        raise UsageError(
            f"Run {run.id} has no fork {fork_id!r} in this kernel; its forks: {known or 'none'}."
        )
    point = _fork_point(run, fork)

    def branch(of: ViewedRun, is_fork: bool) -> dict[str, Any]:
        answer, said = _said(of, point, is_fork)
        if len(said) > _SAID:  # the whole answer travels in `answer`, as a preview
            said = said[: _SAID - 1] + "…"
        return {
            "runId": of.id,
            "status": of.status,
            "answer": answer,
            "said": said,
            "items": [item.model_dump(mode="json") for item in of.prompt.items[point.index :]],
        }

    return {
        "interruptId": point.interrupt_id,
        "kind": point.kind,
        "toolName": point.tool_name,
        "message": point.message,
        "name": fork_name(fork.prompt),
        "parent": branch(run, False),
        "fork": branch(fork, True),
    }


def fork_point_of(request: Fork) -> str | ModelTurn:
    """The point a view's `fork` request goes back to: `interrupt` or `call` (an id), or
    `turn` (a model turn's number); the request names exactly one."""
    if request.turn is not None:
        return ModelTurn(request.turn)
    point = request.interrupt if request.interrupt is not None else request.call
    assert point is not None  # the request's model checks it names one
    return point


def model_request_value(run: ViewedRun, turn: int) -> dict[str, Any]:
    """What the model was sent for assistant turn `turn`, as the view shows it."""
    request = run.model_request(turn)
    return {
        "turn": turn,
        "instructions": request.instructions,
        "items": [item.model_dump(mode="json") for item in request.items],
        "actions": [asdict(spec) for spec in request.actions],
    }


def answer_debug_request(run: ViewedRun, request: ModelRequest | Fork | Branches) -> dict[str, Any]:
    """The value answering a `model_request`, `fork` or `branches` request; raises a
    PausepointError (sent back as the request's error) when it cannot be answered."""
    if isinstance(request, ModelRequest):
        return model_request_value(run, request.turn)
    if isinstance(request, Branches):
        return branches(run, request.fork)
    fork = run.fork(at=fork_point_of(request))
    origin = fork.prompt.parent
    return {
        "runId": fork.id,
        "name": fork_name(fork.prompt),
        "interruptId": origin.interrupt_id if origin else None,
    }
