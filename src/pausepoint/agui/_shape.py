"""What a shape reader makes of another producer's pause (`Shape`), and how the answers
of one continuation go back in that producer's words (`continuation`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from ..errors import InvalidResolutionError, ResolutionProblem, UsageError
from ..transcript.decisions import parse_approval

__all__ = [
    "DECISIONS",
    "Batch",
    "Decision",
    "Shape",
    "ShapeReader",
    "continuation",
    "decision_of_answer",
    "part_id",
]

Decision = Literal["approve", "edit", "respond", "reject"]
DECISIONS: tuple[Decision, ...] = ("approve", "edit", "respond", "reject")
"""What an approval card offers: Approve, Edit arguments, Respond, Reject."""

_TITLES: dict[Decision, str] = {
    "approve": "Approve",
    "edit": "Edit arguments",
    "respond": "Respond",
    "reject": "Reject",
}


@dataclass(frozen=True, slots=True)
class Batch:
    """One interrupt that asks about several calls at once (langchain's batched human in
    the loop): each call gets a card of its own, and their answers go back together, in
    order, as the one payload `gather` makes of them."""

    interrupt_id: str
    size: int
    gather: Callable[[list[Any]], Any]


@dataclass(frozen=True, slots=True)
class Shape:
    """What a reader made of one interrupt.

    `source` names its producer for the card ("LangGraph" reads "Read from LangGraph's
    pause"). `kind` is the card: a tool approval on the call the interrupt's `toolCallId`
    names. `resolve(answer)` is the payload that producer reads for an approval's checked
    answer (`True`, `{"approved", "editedArgs"?}`, or a response in words); `decline(reason)`
    the payload for Reject. The resume entry around it (`interruptId`, `status:
    "resolved"`) is made here.

    A `generic` shape is a question instead, its answer a value: a form from `schema`
    (the JSON Schema the answer must meet), or text for a schema of a string;
    `resolve(answer)` is then the value the producer reads, and `decisions` is empty when
    it has no way to be refused (the card then offers no Reject).

    `decisions` lists what the producer takes (the card offers only those; None: all
    four). `message` is the card's question when the interrupt has none. A batch's
    interrupt has `parts`, one shape per call in order, each naming its call by
    `tool_name` / `args` (the interrupt names no call). `keyed` says how several answers
    go in one continuation: LangGraph takes them keyed by interrupt id in
    `forwardedProps.command.resume`, as its AG-UI adapter cannot take several entries.
    """

    source: str
    kind: Literal["tool-approval", "generic"]
    resolve: Callable[[Any], Any]
    decline: Callable[[str], Any]
    decisions: tuple[Decision, ...] | None = None
    message: str | None = None
    schema: Mapping[str, Any] | None = None
    parts: tuple[Shape, ...] = ()
    tool_name: str | None = None
    args: Mapping[str, Any] | None = None
    batch: Batch | None = None
    index: int = 0
    keyed: bool = False

    def allows(self, decision: Decision) -> bool:
        return self.decisions is None or decision in self.decisions

    def check(self, decision: Decision) -> None:
        """Refuse a decision this pause's producer does not take, saying which it does."""
        if self.allows(decision):
            return
        offered = " or ".join(_TITLES[d] for d in self.decisions or ())
        if not offered:
            offered = "an answer to its question"
        raise InvalidResolutionError(
            [
                ResolutionProblem(
                    "$",
                    f"{self.source}'s pause takes {offered}, not {_TITLES[decision]}.",
                    "decision-not-allowed",
                )
            ],
            summary=f"{_TITLES[decision]} is not an answer this pause takes",
        )

    def with_parts(
        self, parts: Sequence[Shape], interrupt_id: str, gather: Callable[[list[Any]], Any]
    ) -> Shape:
        """This shape as a batch of `parts` (their answers gathered into one payload)."""
        batch = Batch(interrupt_id, len(parts), gather)
        return replace(
            self,
            parts=tuple(replace(p, batch=batch, index=i) for i, p in enumerate(parts)),
        )


ShapeReader = Callable[[Mapping[str, Any]], Shape | None]
"""Reads one AG-UI interrupt (a wire dict): its `Shape`, or None for one it does not know."""


def decision_of_answer(answer: Any) -> Decision:
    """Which of the card's decisions an approval's checked answer is."""
    approval = parse_approval(answer)
    if approval.response is not None:
        return "respond"
    if not approval.approved:
        return "reject"
    return "edit" if approval.edited_args is not None else "approve"


def part_id(interrupt_id: str, index: int) -> str:
    """The id of a batch's `index`th card (from 0): the interrupt's, numbered from 1."""
    return f"{interrupt_id}#{index + 1}"


def continuation(
    entries: Sequence[Mapping[str, Any]], shaped: Mapping[str, Shape]
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The resume entries one continuation sends for `entries` (one per answered card),
    and the command to forward instead, if any: a batch's parts gathered into one entry
    for its interrupt; several answers to a `keyed` producer as one command keyed by
    interrupt id."""
    out: list[dict[str, Any]] = []
    batches: dict[str, tuple[Batch, dict[int, Any]]] = {}
    keyed: list[bool] = []
    for entry in entries:
        shape = shaped.get(str(entry.get("interruptId")))
        batch = shape.batch if shape is not None else None
        if batch is None:
            out.append(dict(entry))
            keyed.append(shape is not None and shape.keyed)
            continue
        if batch.interrupt_id not in batches:
            batches[batch.interrupt_id] = (batch, {})
            out.append({"interruptId": batch.interrupt_id, "status": "resolved"})
            keyed.append(shape is not None and shape.keyed)
        batches[batch.interrupt_id][1][shape.index] = entry.get("payload")  # type: ignore[union-attr]
    for wire in out:
        found = batches.get(wire["interruptId"]) if "payload" not in wire else None
        if found is not None:
            batch, payloads = found
            if sorted(payloads) != list(range(batch.size)):
                raise UsageError(
                    f"Interrupt {batch.interrupt_id!r} asks about {batch.size} calls; "
                    "answer each of them before it is sent."
                )
            wire["payload"] = batch.gather([payloads[i] for i in range(batch.size)])
    if len(out) > 1 and all(keyed):
        return [], {"command": {"resume": {w["interruptId"]: w.get("payload") for w in out}}}
    return out, None
