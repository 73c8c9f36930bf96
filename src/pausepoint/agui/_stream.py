"""`events(run)`: drive one stretch of a run and yield it as AG-UI events, in order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Iterable, Mapping
from typing import Any

from ag_ui.core import BaseEvent
from pydantic import BaseModel

from ..errors import PausepointError, UsageError
from ..run import AgentRun, AgentRunResult, AskedUnder, NamePause, asked_under
from ._translate import Translator

__all__ = ["events"]

_DONE = object()


async def events(
    run: AgentRun,
    message: str | None = None,
    *,
    resume: Iterable[Mapping[str, Any] | BaseModel] | None = None,
    max_turns: int | None = None,
    run_id: str | None = None,
    parent_run_id: str | None = None,
    name_pause: NamePause | None = None,
    max_queued: int | None = None,
) -> AsyncIterator[BaseEvent]:
    """Run one stretch of `run` and yield it as validated `ag_ui.core` events.

    Without `resume` this is `run.run(message, max_turns=...)`; with `resume` (AG-UI
    resume entries, one per pending interrupt) it is `run.continue_with(resume)`. The
    stream opens with RUN_STARTED (thread and run ids from the transcript; `run_id` and
    `parent_run_id` override what RUN_STARTED and RUN_FINISHED say, for a server that
    names each request: each pause raised in the stretch then belongs to `run_id`, whose
    bindings name it as the interrupted run, taking its id from `name_pause` when given;
    resume entries are checked against `parent_run_id`) and ends with exactly one of:

    - RUN_FINISHED, outcome `success`: the run completed;
    - MESSAGES_SNAPSHOT, then RUN_FINISHED with outcome `interrupt` carrying
      `run.agui_interrupts()`: the run waits on answers;
    - RUN_ERROR with a `code`: the run failed (`model-timeout`, `max-turns-exceeded`...),
      was cancelled (`cancelled`) or paused by its debugger (`paused`); or it was refused
      before it ran (`run-suspended`, `run-busy`, `resume-batch` with each refused entry
      under `metadata["errors"]`), and then RUN_ERROR is the only event.

    In between come STEP_STARTED / STEP_FINISHED around each turn, the model's text as
    TEXT_MESSAGE_START / CONTENT (streamed as it arrives) / END, its calls as
    TOOL_CALL_START / ARGS / END, and each outcome as TOOL_CALL_RESULT. Message ids come
    from transcript positions, so they are the same in every stream of the run::

        async for event in events(run, "Refund order 42"):
            print(event.type)

    With `max_queued`, the run waits at its next event while that many events are made
    and not yet taken: a consumer that takes them slowly slows the run, and what waits
    in memory stays bounded.

    The stretch starts when the first event is asked for. Leaving the loop early (or
    cancelling the task that iterates) stops the run as `run.cancel()` does; close the
    iterator (`contextlib.aclosing`) to have that happen at once.
    """
    if message is not None and resume is not None:
        raise UsageError("Give either a message or resume entries, not both.")
    if resume is not None:
        resume = list(resume)
    translator = Translator(
        run, run_id=run_id, parent_run_id=parent_run_id, answered=_answered(resume)
    )
    queue: asyncio.Queue[Any] = asyncio.Queue()
    taken = asyncio.Event()

    async def room() -> None:
        while max_queued is not None and queue.qsize() >= max_queued:
            taken.clear()
            await taken.wait()

    def hear(event: Any) -> Awaitable[None] | None:
        for out in translator.hear(event):
            queue.put_nowait(out)
        if max_queued is not None and queue.qsize() >= max_queued:
            return room()  # the run's emit awaits it: the run waits for the consumer
        return None

    async def drive() -> AgentRunResult:
        if resume is not None:
            return await run.continue_with(resume, parent_run_id=parent_run_id)
        return await run.run(message, max_turns=max_turns)

    off = run.on("*", hear)
    if run_id is None:
        task = asyncio.ensure_future(drive())
    else:
        with asked_under(AskedUnder(run_id, name_pause)):  # the task keeps it
            task = asyncio.ensure_future(drive())
    # Runs after the task's last event was queued: the end marker comes after it.
    task.add_done_callback(lambda _: queue.put_nowait(_DONE))
    try:
        while (item := await queue.get()) is not _DONE:
            taken.set()
            yield item
        off()
        try:
            result = task.result()
        except PausepointError as exc:
            ending = translator.refused(exc)
        else:
            ending = translator.finish(result)
        for item in ending:
            yield item
    finally:
        off()
        if not task.done():
            await run.cancel("the AG-UI stream was closed")
            await asyncio.gather(task, return_exceptions=True)


def _answered(resume: Iterable[Mapping[str, Any] | BaseModel] | None) -> list[str]:
    """The interrupt ids a batch of resume entries names, in order."""
    if resume is None:
        return []
    ids = (
        entry.get("interruptId")
        if isinstance(entry, Mapping)
        else getattr(entry, "interrupt_id", None)
        for entry in resume
    )
    return [i for i in ids if isinstance(i, str)]
