"""The view's debugging requests: what the model was sent for a turn, and forks."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from ..run import AgentRun

__all__ = ["DEBUG_REQUESTS", "answer_debug_request", "forks_of"]

DEBUG_REQUESTS = frozenset({"model_request", "fork"})


def forks_of(run: AgentRun) -> list[dict[str, Any]]:
    """The runs forked from `run` in this process, for the view's list."""
    return [
        {
            "runId": fork.id,
            "interruptId": fork.prompt.parent.interrupt_id if fork.prompt.parent else None,
            "status": fork.result.status if fork.result is not None else "interrupted",
        }
        for fork in run.forks
    ]


def answer_debug_request(run: AgentRun, content: dict[str, Any]) -> dict[str, Any]:
    """The value answering a `model_request` or `fork` request; raises a PausepointError
    (sent back as the request's error) when it cannot be answered."""
    if content.get("type") == "model_request":
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
    interrupt = content.get("interrupt")
    if not isinstance(interrupt, str):
        raise UsageError("A fork request needs interrupt: <id>.")
    fork = run.fork(at=interrupt)
    return {"runId": fork.id, "interruptId": interrupt}
