"""What one AG-UI request does, apart from HTTP: find or rebuild the thread's run, drive
one stretch of it, and yield the AG-UI events the response streams.

Two modes. With a store, the run is the stored one whose id is the AG-UI `threadId`, so
any server process sharing the store answers any request of the thread (the store's
lease and version checks make one of two racing answers win). Without one, nothing is
kept: the run is rebuilt from the conversation the client sends back, its pauses from
their sealed ids (see `_history` and `_pause_ids`); a client that also sends back the
state of the last STATE_SNAPSHOT has the whole transcript checked by its seal instead
(see `_state`).

A pausepoint run is an AG-UI thread; each request is an AG-UI run. A pause belongs to
the request whose stream carried it (its binding's `interruptedRunId`), and the
continuation that answers it names that request as its `parentRunId`.

A thread belongs to whoever started it, when the server names its callers: the request's
`Caller` says who sends it and asks the server's thread hook (see `_owners`) before the
run is read out or continued.

Every outcome is a stream: a request that is refused before anything ran is a stream
of one RUN_ERROR whose `code` says why (`bad-request`, `bad-state`, `run-not-found`...),
and nothing was changed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, cast

from ag_ui.core import (
    BaseEvent,
    EventType,
    MessagesSnapshotEvent,
    RunErrorEvent,
    StateSnapshotEvent,
)

from .._json import check_text
from ..errors import PausepointError, ResumeBatchError
from ..run import Agent, AgentRun, NamePause
from ..store import RunNotFoundError, RunStore
from ..transcript import InterruptEntry, Prompt, ToolCall
from ._answered import Answered
from ._history import rebuild
from ._input import BadRequest, Request, new_user_text, read_request
from ._limits import Limits
from ._owners import ThreadAccess, ThreadRefused
from ._pause_ids import PauseIds
from ._refusals import refusal_metadata
from ._state import STATE_KEY, StateRefused, sealed_state, unseal
from ._stream import events
from ._tools import tool_definitions
from ._translate import error_code

__all__ = ["Handler"]

logger = logging.getLogger("pausepoint")

_ENDINGS = (EventType.RUN_FINISHED, EventType.RUN_ERROR)
MAX_QUEUED = 32
"""Events of a stream made and not yet written before its run waits (see `events`)."""


async def _anyone(access: ThreadAccess) -> bool:
    return True


@dataclass(frozen=True)
class Caller:
    """Who sends a request: the identity the endpoint admitted it as (None: unnamed), and
    the question the server asks before the request uses a thread."""

    identity: str | None = None
    may_use: Callable[[ThreadAccess], Awaitable[bool]] = _anyone


class Handler:
    """Answers AG-UI requests for one agent, from `store` or statelessly with `key`."""

    def __init__(
        self,
        agent: Agent,
        store: RunStore | None,
        key: bytes,
        *,
        require_sealed_state: bool = False,
        limits: Limits | None = None,
    ) -> None:
        self.agent = agent
        self.store = store
        self.limits = limits or Limits()
        self._key = key
        self._require_sealed = require_sealed_state
        self._answered = Answered()

    def describe(self) -> dict[str, Any]:
        """What a GET shows a person: the agent, its actions, the server's mode."""
        return {
            "protocol": "AG-UI",
            "agent": self.agent.name,
            "mode": "store" if self.store is not None else "stateless",
            "actions": [
                {
                    "name": spec.name,
                    "description": spec.description,
                    "inputSchema": spec.input_schema,
                    "needsApproval": self.agent.actions[spec.name].needs_approval,
                }
                for spec in self.agent.action_specs
            ],
            "toolDefinitions": tool_definitions(self.agent),
        }

    async def stream(self, body: bytes, caller: Caller | None = None) -> AsyncIterator[BaseEvent]:
        """The events answering the POST whose body is `body`, sent by `caller`."""
        caller = caller or Caller()
        try:
            request = read_request(body, self.limits)
            run, message = await self._open(request, caller)
            taken = self._claim(request)
        except BadRequest as exc:
            yield RunErrorEvent(code="bad-request", message=str(exc))
            return
        except ThreadRefused as exc:
            yield RunErrorEvent(code="forbidden", message=str(exc))
            return
        except ResumeBatchError as exc:
            yield _refused_batch(exc, request)
            return
        except StateRefused as exc:
            yield RunErrorEvent(
                code="bad-state",
                message=f"{exc} Nothing was run. Send the state of this thread's last "
                "STATE_SNAPSHOT unchanged, or start a new thread.",
            )
            return
        except PausepointError as exc:
            yield RunErrorEvent(code=error_code(exc), message=str(exc))
            return
        except Exception:
            logger.exception("An AG-UI request could not open its run")
            yield _internal_error()
            return
        applied = False
        try:
            async for event in self._drive(run, message, request, caller):
                applied = applied or event.type == EventType.RUN_STARTED
                yield event
        finally:
            if not applied:  # refused before anything ran: its pauses still wait
                self._answered.release(taken)

    def _sends_state(self, request: Request) -> bool:
        """Whether the stream ends with a sealed state: on a stateless server, for a new
        thread and for a client that sent one back. A client that continued from its
        history with an empty state shows it does not keep one; sealing the transcript
        for it would cost a pass over the conversation at every request."""
        if self.store is not None:
            return False
        return not request.has_history or _sealed_state_sent(request)

    def _claim(self, request: Request) -> list[tuple[str, str]]:
        """A stateless server takes the pauses a continuation rebuilt from its history
        answers, so that the same continuation sent again to this process runs nothing
        (see `_answered`). A sealed state tells a replay by itself: the answers are in it."""
        if self.store is not None or not request.resume or _sealed_state_sent(request):
            return []
        ids = [e["interruptId"] for e in request.resume if isinstance(e.get("interruptId"), str)]
        return self._answered.claim(request.thread_id, ids)

    async def _drive(
        self, run: AgentRun, message: str | None, request: Request, caller: Caller
    ) -> AsyncIterator[BaseEvent]:
        # An async generator: closing it at once stops the run when the client leaves.
        stretch = cast(
            AsyncGenerator[BaseEvent, None],
            events(
                run,
                message,
                resume=request.resume,
                run_id=request.input.run_id,
                parent_run_id=request.input.parent_run_id,
                name_pause=self._pause_names(request, caller.identity),
                max_queued=MAX_QUEUED,
            ),
        )
        started = ended = False
        try:
            async with aclosing(stretch):
                async for event in stretch:
                    if event.type in _ENDINGS:
                        ended = True
                        if started and self._sends_state(request):
                            yield self._snapshot(run, request)
                    started = started or event.type == EventType.RUN_STARTED
                    if isinstance(event, MessagesSnapshotEvent):
                        event = _with_client_ids(event, request)
                    yield event
        except Exception:
            logger.exception("An AG-UI stream of run %s failed", run.id)
            if not ended:
                yield _internal_error()

    def _pause_names(self, request: Request, caller: str | None) -> NamePause | None:
        """How a stateless server names the pauses of this request: by what rebuilds them,
        for the caller it answers."""
        if self.store is not None:
            return None
        ids, run_id = PauseIds(self._key, request.thread_id, caller), request.input.run_id

        def name(record: ToolCall, entry: InterruptEntry) -> str:
            return ids.name(run_id, record, entry)

        return name

    def _snapshot(self, run: AgentRun, request: Request) -> StateSnapshotEvent:
        state = request.input.state
        others = state if isinstance(state, dict) else None
        return StateSnapshotEvent(snapshot=sealed_state(run.prompt, self._key, others))

    async def _open(self, request: Request, caller: Caller) -> tuple[AgentRun, str | None]:
        """The thread's run and the user message to add (None: a continuation, or
        nothing new). Raises before anything is stored or run, and before anything of
        the thread is read out to a caller who may not use it."""
        thread_id = request.thread_id
        if not thread_id:
            raise BadRequest("threadId is empty; name the conversation.")
        if self.store is not None:
            return await self._open_stored(request, self.store, caller)
        prompt = unseal(request.input.state, self._key, thread_id)
        if prompt is None:
            if not request.has_history:
                await _admit(caller, request, owner=None, new=True)
                return self.agent.new_run(_first_prompt(request, caller.identity)), None
            if self._require_sealed:
                raise StateRefused(
                    "The request continues a conversation, but its state carries no "
                    f"sealed transcript (state[{STATE_KEY!r}]), and this server takes "
                    "none other (app(..., require_sealed_state=True))."
                )
            # Its pauses answer only under ids sealed for this caller (see `_pause_ids`).
            await _admit(caller, request, owner=None, new=False)
            prompt = rebuild(request, PauseIds(self._key, thread_id, caller.identity))
            prompt = prompt.model_copy(update={"owner": caller.identity})
        else:
            await _admit(caller, request, owner=prompt.owner, new=False)
        run = self.agent.new_run(prompt)
        return run, _next_message(request, run.prompt)

    async def _open_stored(
        self, request: Request, store: RunStore, caller: Caller
    ) -> tuple[AgentRun, str | None]:
        try:
            run = await asyncio.to_thread(self.agent.load, request.thread_id, store)
        except RunNotFoundError:
            await _admit(caller, request, owner=None, new=True)
            if request.resume:
                raise
            prompt = _first_prompt(request, caller.identity)
            run = await asyncio.to_thread(self.agent.new_run, prompt, store=store)
            return run, None
        await _admit(caller, request, owner=run.prompt.owner, new=False)
        return run, _next_message(request, run.prompt)


def _with_client_ids(event: MessagesSnapshotEvent, request: Request) -> MessagesSnapshotEvent:
    """The snapshot with the client's own ids on the user messages it sent. A client
    replaces its messages by the snapshot's and keeps its own order; under the ids it
    knows, a question stays before its answer instead of moving after it."""
    ours = [m for m in event.messages if m.role == "user"]
    renamed = {
        mine.id: theirs
        for mine, (theirs, text) in zip(ours, request.user_ids(), strict=False)
        if mine.content == text
    }
    if not renamed or len(set(renamed.values())) != len(renamed):
        return event
    messages = [
        m.model_copy(update={"id": renamed[m.id]}) if m.id in renamed else m for m in event.messages
    ]
    return event.model_copy(update={"messages": messages})


async def _admit(caller: Caller, request: Request, *, owner: str | None, new: bool) -> None:
    """Raises `ThreadRefused` unless the caller may use the request's thread."""
    access = ThreadAccess(
        thread_id=request.thread_id,
        caller=caller.identity,
        owner=owner,
        new=new,
        answers=bool(request.resume),
    )
    if not await caller.may_use(access):
        raise ThreadRefused()


def _first_prompt(request: Request, owner: str | None) -> Prompt:
    """The transcript of a new conversation: its run id is the AG-UI thread id, its
    owner the caller who started it."""
    if request.resume:
        raise BadRequest("resume answers the interrupts of an earlier run; this thread has none.")
    text = new_user_text(request, None)
    if text is None:
        raise BadRequest("A new conversation starts with a user message; messages has none last.")
    prompt = Prompt.from_user(_checked(text), thread_id=request.thread_id, run_id=request.thread_id)
    return prompt if owner is None else prompt.model_copy(update={"owner": owner})


def _next_message(request: Request, prompt: Prompt) -> str | None:
    if request.resume:
        return None
    text = new_user_text(request, prompt)
    return None if text is None else _checked(text)


def _checked(text: str) -> str:
    try:
        return check_text(text, "The user message")
    except PausepointError as exc:
        raise BadRequest(str(exc)) from exc


def _sealed_state_sent(request: Request) -> bool:
    state = request.input.state
    return isinstance(state, dict) and STATE_KEY in state


def _refused_batch(exc: ResumeBatchError, request: Request) -> RunErrorEvent:
    """A continuation refused while its run was rebuilt: nothing ran."""
    parent = request.input.parent_run_id or request.thread_id
    metadata = refusal_metadata(
        exc.errors,
        thread_id=request.thread_id,
        run_id=request.input.run_id,
        interrupted_run_id=parent,
        answered=[
            e["interruptId"] for e in request.resume or () if isinstance(e.get("interruptId"), str)
        ],
    )
    return RunErrorEvent(code=error_code(exc), message=str(exc), metadata=metadata)


def _internal_error() -> RunErrorEvent:
    return RunErrorEvent(
        code="internal-error",
        message="The server failed while answering this request; its log says why.",
    )
