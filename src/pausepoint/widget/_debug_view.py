"""The view's debugging requests: what the model was sent for a turn, forks, and two
branches side by side from a fork point; and the list of forks kept current."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..run import Event, TextDeltaEvent
from ..transcript import ToolCall

if TYPE_CHECKING:
    from ._viewed import ViewedRun

__all__ = ["DEBUG_REQUESTS", "ForkFollower", "answer_debug_request", "branches", "forks_of"]

DEBUG_REQUESTS = frozenset({"model_request", "fork", "branches"})


def forks_of(run: ViewedRun) -> list[dict[str, Any]]:
    """The runs forked from `run` in this process, for the view's list."""
    return [
        {
            "runId": fork.id,
            "interruptId": fork.prompt.parent.interrupt_id if fork.prompt.parent else None,
            "status": fork.status,
            "items": len(fork.prompt.items),
        }
        for fork in run.forks
    ]


class ForkFollower:
    """Keeps a view's list of forks current: it follows each fork's events and publishes
    the list again when a fork starts, moves on or finishes."""

    def __init__(self, run: ViewedRun, publish: Callable[[list[dict[str, Any]]], None]) -> None:
        self._run = run
        self._publish = publish
        self._offs: dict[str, Callable[[], None]] = {}

    def refresh(self) -> None:
        """Follow forks made since the last call (from code or the view) and publish."""
        for fork in self._run.forks:
            if fork.id not in self._offs:
                self._offs[fork.id] = fork.on("*", self._on_event)
        self._publish(forks_of(self._run))

    def _on_event(self, event: Event) -> None:
        if not isinstance(event, TextDeltaEvent):
            self._publish(forks_of(self._run))

    def close(self) -> None:
        for off in self._offs.values():
            off()
        self._offs.clear()


def _fork_point(prompt_items: list[Any], interrupt_id: str) -> tuple[int, ToolCall, Any]:
    for index, item in enumerate(prompt_items):
        if isinstance(item, ToolCall):
            for entry in item.interrupts:
                if entry.id == interrupt_id:
                    return index, item, entry
    raise UsageError(f"No tool call in this transcript paused with interrupt {interrupt_id!r}.")


def branches(run: ViewedRun, fork_id: str) -> dict[str, Any]:
    """This run and its fork `fork_id` from the fork point on: each one's answer to the
    interrupt it was forked at, its status, and its items from that tool call on."""
    fork = next((f for f in run.forks if f.id == fork_id), None)
    if fork is None or fork.prompt.parent is None:
        known = [f.id for f in run.forks]
        raise UsageError(
            f"Run {run.id} has no fork {fork_id!r} in this kernel; its forks: {known or 'none'}."
        )
    interrupt_id = fork.prompt.parent.interrupt_id
    index, record, entry = _fork_point(list(run.prompt.items), interrupt_id)

    def branch(of: ViewedRun) -> dict[str, Any]:
        _, _, answered = _fork_point(list(of.prompt.items), interrupt_id)
        resolution = answered.resolution
        return {
            "runId": of.id,
            "status": of.status,
            "answer": resolution.model_dump(mode="json") if resolution is not None else None,
            "items": [item.model_dump(mode="json") for item in of.prompt.items[index:]],
        }

    return {
        "interruptId": interrupt_id,
        "kind": entry.kind,
        "toolName": record.name,
        "message": entry.message,
        "parent": branch(run),
        "fork": branch(fork),
    }


def answer_debug_request(run: ViewedRun, content: dict[str, Any]) -> dict[str, Any]:
    """The value answering a `model_request`, `fork` or `branches` request; raises a
    PausepointError (sent back as the request's error) when it cannot be answered."""
    kind = content.get("type")
    if kind == "model_request":
        turn = content.get("turn")
        if not isinstance(turn, int) or isinstance(turn, bool):
            raise UsageError("A model_request needs turn: <int>.")
        request = run.model_request(turn)
        return {
            "turn": turn,
            "instructions": request.instructions,
            "items": [item.model_dump(mode="json") for item in request.items],
            "actions": [asdict(spec) for spec in request.actions],
        }
    if kind == "branches":
        fork_id = content.get("fork")
        if not isinstance(fork_id, str):
            raise UsageError("A branches request needs fork: <run id>.")
        return branches(run, fork_id)
    interrupt = content.get("interrupt")
    if not isinstance(interrupt, str):
        raise UsageError("A fork request needs interrupt: <id>.")
    fork = run.fork(at=interrupt)
    return {"runId": fork.id, "interruptId": interrupt}
