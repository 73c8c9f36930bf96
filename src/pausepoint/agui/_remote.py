"""`RemoteRun`: an agent served over AG-UI, followed and answered from the notebook.

It posts `RunAgentInput` to any AG-UI endpoint (pausepoint's own server, LangGraph,
Pydantic AI, ...) and reads the server-sent events into a transcript (`_mirror`), firing
the same events an `AgentRun` fires, so the same live view shows it. Interrupts whose
binding this client can answer become cards; the others are shown, saying why.
"""

from __future__ import annotations

import asyncio
import collections
import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from .._json import check_text, json_size, to_json_value
from ..actions import Action, Rejection
from ..errors import (
    RemoteProtocolError,
    RunBusyError,
    RunSuspendedError,
    UsageError,
)
from ..interrupts import ClassifiedInterrupt, classify
from ..run import (
    DEFAULT_MAX_ANSWER_BYTES,
    AgentRunResult,
    CancelledEvent,
    CompletedEvent,
    Event,
    EventHandler,
    EventName,
    Events,
    FailedEvent,
    InterruptedEvent,
    LiveView,
    OnRecorded,
    PendingInterrupt,
    ResolvedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    RunStatus,
    ToolCallFinishedEvent,
    accept_answer,
    as_error_info,
    blocking,
    derive_state,
    response_to,
    response_words,
    run_display,
)
from ..transcript import (
    AnsweredBy,
    Cancellation,
    ErrorInfo,
    InterruptEntry,
    Prompt,
    RejectResolution,
    ResumeResolution,
    ToolCall,
    new_id,
)
from ..transcript.decisions import parse_approval
from ._mirror import Mirror
from ._remote_answers import check_edits, input_schemas, resume_entries, target
from ._remote_http import Connection, RemoteRefused, follow
from ._remote_http import failure as describe
from ._remote_limits import RemoteLimits
from ._remote_saved import SavedRemoteRun, read, write
from ._shape import Decision, continuation, decision_of_answer

if TYPE_CHECKING:
    from ..models import ModelRequest
    from ..run import AgentRun, Debugger, ModelTurn
    from ..store import RunStore

__all__ = ["ANSWER_ELSEWHERE", "PROTOCOL_VERSION", "RemoteRun"]

PROTOCOL_VERSION = "1.0"
"""The AG-UI version this client speaks, declared on every request (`protocolVersion`):
a server sends what that version has (the `pendingToolCallIds` of a success outcome)."""

ANSWER_ELSEWHERE = (
    "Answer it from code with remote.continue_with([...]), in the form its server expects."
)


@dataclass(frozen=True)
class RemoteAgent:
    """What a view asks of a run's agent, for a run whose agent lives elsewhere: no local
    actions (arguments are checked by the server), the answer size bound, no store."""

    url: str
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    actions: Mapping[str, Action] = field(default_factory=lambda: MappingProxyType({}))
    store: RunStore | None = None


class RemoteRun:
    """An agent served over AG-UI, run and answered from here.

    `url` is the endpoint that takes a POSTed `RunAgentInput` and answers with
    server-sent events; `headers` go with every request (a bearer token, say)::

        remote = RemoteRun("http://127.0.0.1:8000/", headers={"Authorization": "Bearer …"})
        await remote.run("Refund order 42")   # status "interrupted": a card waits
        remote                                 # the same live view as a local run
        await remote.resume(True)              # posts the continuation, follows it

    Each `run()`, `resume()` / `reject()` (once every answerable pause has its answer)
    and `continue_with()` posts one request and follows its stream to the end; Stop
    (`cancel()`) closes that stream. The conversation's AG-UI history (`messages`) and
    the server's `state` are sent back with each request, so stateless servers work.

    What one answer may make this client hold or wait for is bounded by `limits`
    (`RemoteLimits`); events that would record something false (another thread's run,
    a call id still open used again, a pause bound to another request) are refused with
    `RemoteProtocolError`. Either way the run ends `failed`, saying which.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        thread_id: str | None = None,
        forwarded_props: Mapping[str, Any] | None = None,
        timeout: float | None = 60.0,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        limits: RemoteLimits | None = None,
    ) -> None:
        if limits is not None and not isinstance(limits, RemoteLimits):
            raise UsageError(f"limits must be a RemoteLimits, not {type(limits).__name__}.")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise UsageError(f"RemoteRun needs an http:// or https:// address, not {url!r}.")
        self.url = url
        self.headers = dict(headers or {})
        self.timeout = timeout
        self._begin(url, thread_id, forwarded_props, max_answer_bytes, limits)
        self._connection = Connection(timeout, self.limits.idle_timeout)

    def _begin(
        self,
        where: str,
        thread_id: str | None,
        forwarded_props: Mapping[str, Any] | None,
        max_answer_bytes: int,
        limits: RemoteLimits | None,
    ) -> None:
        """What every such run starts with, wherever its agent is (`where`)."""
        thread = thread_id if thread_id is not None else new_id("thread")
        self.forwarded_props = dict(forwarded_props or {})
        self.limits = limits or RemoteLimits()
        self.agent = RemoteAgent(where, max_answer_bytes)
        self._events: collections.deque[dict[str, Any]] = collections.deque(
            maxlen=self.limits.keep_events
        )
        self._mirror = Mirror(Prompt(thread_id=thread, run_id=thread))
        self._handlers = Events()
        self._status: RunStatus = "idle"
        self._result: AgentRunResult | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stream: asyncio.Task[None] | None = None
        self._stop: Cancellation | None = None
        self._answers: dict[str, dict[str, Any]] = {}
        """Answers recorded here and not yet delivered, by interrupt id."""
        self._sent: list[dict[str, Any]] = []
        """The resume entries of the request being (or last) followed."""
        self._task: asyncio.Task[AgentRunResult] | None = None
        self._view: LiveView | None = None

    # -- what it is ----------------------------------------------------------------------

    @property
    def events(self) -> list[dict[str, Any]]:
        """The AG-UI events received, as the wire carried them: the latest
        `limits.keep_events` (10,000 unless raised), oldest first."""
        return list(self._events)

    @property
    def id(self) -> str:
        """The conversation's id: the AG-UI `threadId` of every request."""
        return self._mirror.prompt.run_id

    @property
    def prompt(self) -> Prompt:
        """The transcript as this client has followed it."""
        return self._mirror.prompt

    @property
    def status(self) -> RunStatus:
        return self._status

    @property
    def result(self) -> AgentRunResult | None:
        return self._result

    @property
    def busy(self) -> bool:
        return self._stream is not None and not self._stream.done()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop

    @property
    def store(self) -> RunStore | None:
        return None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The AG-UI history sent back with the next request."""
        return self._mirror.messages

    @property
    def state(self) -> Any:
        """The server's latest STATE_SNAPSHOT, sent back with the next request."""
        return self._mirror.state

    @property
    def pending(self) -> tuple[PendingInterrupt, ...]:
        """The pauses this client can answer (`resume` / `reject`), oldest first."""
        state = derive_state(self.prompt, input_schemas(self._mirror.heard))
        return getattr(state, "pending", ())

    @property
    def interrupts(self) -> list[dict[str, Any]]:
        """Every open interrupt as an AG-UI wire dict: those answerable here (as the
        server sent them) and those only shown."""
        own = {p.id for p in self.pending}
        for entry_id in list(own):  # a batch's card: the interrupt it is a part of
            batch = self._mirror.shaped[entry_id].batch if entry_id in self._mirror.shaped else None
            if batch is not None:
                own.add(batch.interrupt_id)
        answerable = [dict(c.interrupt) for c in self._mirror.heard if c.interrupt.get("id") in own]
        return answerable + [dict(c.interrupt) for c in self._mirror.foreign]

    def read_from(self, interrupt_id: str) -> str | None:
        """The producer whose pause `interrupt_id` was read from by its shape (a card
        that says so), or None for a pause with pausepoint's binding."""
        shape = self._mirror.shaped.get(interrupt_id)
        return shape.source if shape is not None else None

    def decisions_for(self, interrupt_id: str) -> tuple[Decision, ...] | None:
        """What the producer of a pause read from its shape takes, of Approve
        (`approve`), Edit arguments (`edit`), Respond (`respond`) and Reject (`reject`);
        None when it takes all four (every pause with pausepoint's binding does)."""
        shape = self._mirror.shaped.get(interrupt_id)
        return shape.decisions if shape is not None else None

    @property
    def deferred(self) -> list[ToolCall]:
        """The calls the server left for this client to carry out (AG-UI's
        `pendingToolCallIds`: a Pydantic AI tool that raised `CallDeferred`, a front-end
        tool). Each is `pending` until `complete(call_id, result)` gives its result."""
        return [i for i in self.prompt.items if isinstance(i, ToolCall) and i.status == "pending"]

    @property
    def foreign(self) -> list[ClassifiedInterrupt]:
        """The open interrupts this client cannot answer, each with why."""
        return list(self._mirror.foreign)

    @property
    def forks(self) -> tuple[AgentRun, ...]:
        return ()

    @property
    def debug(self) -> Debugger:
        raise UsageError("A remote run is debugged where it runs; its server has the debugger.")

    def model_request(self, turn: int) -> ModelRequest:
        raise UsageError("What a remote run's model was sent is known only to its server.")

    def fork(self, *, at: str | ModelTurn) -> AgentRun:
        raise UsageError("A remote run cannot be forked from here; fork it on its server.")

    @property
    def editable_items(self) -> list[int]:
        return []

    def edit_item(self, position: int, *, text: str = "", result: Any = None) -> None:
        raise UsageError("A remote run's items are edited where it runs, on its server.")

    def on(self, name: EventName, handler: EventHandler) -> Callable[[], None]:
        """Call `handler` with each event `name` (or `"*"`: every event), as `AgentRun.on`."""
        return self._handlers.on(name, handler)

    # -- talking to it -------------------------------------------------------------------

    async def run(
        self,
        message: str | None = None,
        *,
        on_recorded: OnRecorded | None = None,
        max_turns: int | None = None,
    ) -> AgentRunResult:
        """Send the next user message and follow the run to its end or its next pause.
        Without a message: deliver answers that did not reach the server, or ask it to
        go on from where it stopped (Continue)."""
        if message is None and self._answers:
            return await self.send(resume=list(self._answers.values()), on_recorded=on_recorded)
        return await self.send(message, on_recorded=on_recorded)

    async def retry(
        self, *, on_recorded: OnRecorded | None = None, by: AnsweredBy = "code"
    ) -> AgentRunResult:
        raise UsageError("A remote run is retried by its server; send a message or Continue.")

    async def send(
        self,
        message: str | None = None,
        *,
        resume: Iterable[Mapping[str, Any] | BaseModel] | None = None,
        forwarded_props: Mapping[str, Any] | None = None,
        on_recorded: OnRecorded | None = None,
    ) -> AgentRunResult:
        """Post one AG-UI request and follow its stream to the end: a user message, a
        continuation (`resume`: AG-UI resume entries, for any open interrupt), or neither.
        `forwarded_props` go as the request's `forwardedProps` (merged over those given
        to the constructor), for servers that take their own commands there."""
        if message is not None:
            message = check_text(message, "The message")
            if not message.strip():
                raise UsageError("The message is empty; write something first.")
        entries = resume_entries(resume) if resume is not None else None
        if self.busy:
            raise RunBusyError("The remote run is executing; wait for it (await remote.wait()).")
        if message is not None and (self.pending or self._mirror.foreign):
            raise RunSuspendedError(
                "The remote run waits on answers: answer its interrupts first "
                "(remote.resume / remote.reject / remote.continue_with)."
            )
        if message is not None and (deferred := self.deferred):
            names = ", ".join(f"{c.name} ({c.id})" for c in deferred)
            raise RunSuspendedError(
                f"The server waits for the results of {names}: give each with "
                "remote.complete(call_id, result) first."
            )
        self._loop = asyncio.get_running_loop()
        body = self._body(message, entries, forwarded_props)
        self._sent = list(entries or [])
        self._stream = asyncio.ensure_future(self._follow(body))
        self._stop = None
        self._status = "running"
        if on_recorded is not None:
            on_recorded()
        await self._emit(RunStartedEvent(self.id))
        try:
            await asyncio.shield(self._stream)
        except asyncio.CancelledError:
            if not self._stream.done():  # this task was cancelled, not only the stream
                self._stop = self._stop or Cancellation(by="interrupt")
                self._stream.cancel()
                await asyncio.gather(self._stream, return_exceptions=True)
                await self._settle(None)
                raise
        except Exception as exc:
            return await self._settle(exc)
        if entries:
            for entry in entries:
                self._answers.pop(entry["interruptId"], None)
        return await self._settle(None)

    async def continue_with(
        self, entries: Iterable[Mapping[str, Any] | BaseModel]
    ) -> AgentRunResult:
        """Answer open interrupts with AG-UI resume entries (`{"interruptId", "status":
        "resolved" | "cancelled", "payload"?, "metadata"?}`), any producer's, and follow
        the continuation. The server checks the batch; a refused one ends as `failed`
        with its code. An entry for a question shown here as a card is recorded on it, as
        the card's answer would be (and taken back if the server refuses the batch); an
        approval's entry, in its producer's words, is left to the server's answer."""
        items = resume_entries(entries)
        if self.busy:
            raise RunBusyError("The remote run is executing; wait for it (await remote.wait()).")
        for wire in items:
            found = self.prompt.find_interrupt(str(wire["interruptId"]))
            if found is None or not found[1].is_pending or found[1].kind != "generic":
                continue
            record, entry = found
            resolution: ResumeResolution | RejectResolution
            if wire["status"] == "resolved":
                resolution = ResumeResolution(data=to_json_value(wire.get("payload"), "payload"))
                record.status = "running"
            else:
                reason = (wire.get("metadata") or {}).get("reason")
                info = as_error_info(
                    reason if isinstance(reason, str) else None,
                    max_bytes=self.agent.max_answer_bytes,
                )
                resolution = RejectResolution(error=info)
                record.status, record.error = "rejected", info
            entry.resolution = resolution
            self._answers.pop(entry.id, None)
            await self._emit(ResolvedEvent(record, entry, resolution))
        return await self.send(resume=items)

    async def resume(
        self,
        data: Any = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
    ) -> AgentRunResult:
        """Answer an answerable pause: approve (`True`, or `{"approved": True,
        "editedArgs": {...}}`) or give the value its schema asks for. Checked here first
        (the server checks again); once every answerable pause has its answer, they go
        to the server together as one continuation."""
        if self.busy:
            raise RunBusyError("The remote run is executing; answer once it has paused.")
        record, entry = target(self.prompt, self._mirror.foreign, interrupt)
        value = accept_answer(
            entry, data, action=None, max_bytes=self.agent.max_answer_bytes, what="The answer"
        )
        shape = self._mirror.shaped.get(entry.id)
        if shape is not None and entry.kind == "tool-approval":
            shape.check(decision_of_answer(value))
        payload: Any = value
        if entry.kind == "tool-approval":
            approval = parse_approval(value)
            payload = {"approved": approval.approved}
            if approval.edited_args is not None:
                check_edits(self._mirror.heard, record, approval.edited_args)
                payload["editedArgs"] = approval.edited_args
            if approval.payload is not None:  # a response in words (Respond)
                payload["payload"] = approval.payload
        resolution = ResumeResolution(data=value, by=by)
        if shape is not None:  # another producer's pause: its answer in its own words
            payload = shape.resolve(value)
        wire = {"interruptId": entry.id, "status": "resolved", "payload": payload}
        return await self._answer(record, entry, resolution, wire, on_recorded)

    async def respond(
        self,
        words: str,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
    ) -> AgentRunResult:
        """Answer a tool approval with `words` instead of running the action, as
        `AgentRun.respond` does: the server's model reads them as the call's outcome."""
        words = response_words(words)
        _, entry = target(self.prompt, self._mirror.foreign, interrupt)
        answer = response_to(entry, words)
        return await self.resume(answer, interrupt=entry.id, on_recorded=on_recorded, by=by)

    async def complete(
        self, call: str, result: Any, *, on_recorded: OnRecorded | None = None
    ) -> AgentRunResult:
        """Give the result of a call the server left to this client (`deferred`). Once
        every deferred call has its result they go to the server together, as tool
        messages in the history, and the run goes on."""
        if self.busy:
            raise RunBusyError("The remote run is executing; give results once it has ended.")
        deferred = self.deferred
        record = next((c for c in deferred if c.id == call), None)
        if record is None:
            waiting = ", ".join(repr(c.id) for c in deferred) or "none"
            raise UsageError(
                f"{call!r} is not a call the server waits on; the deferred calls are {waiting}."
            )
        value = to_json_value(result, "The result")
        if json_size(value) > self.agent.max_answer_bytes:
            raise UsageError(
                f"The result is larger than the {self.agent.max_answer_bytes:,} bytes this "
                "client sends; send a smaller one."
            )
        content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        self._mirror.give_result(record, value, content)
        await self._emit(ToolCallFinishedEvent(record))
        if self.deferred:
            if on_recorded is not None:
                on_recorded()
            assert self._result is not None  # only a stretch that ended defers a call
            return self._result
        return await self.send(on_recorded=on_recorded)

    async def reject(
        self,
        error: Rejection | ErrorInfo | str | dict[str, Any] | None = None,
        *,
        interrupt: str | None = None,
        on_recorded: OnRecorded | None = None,
        by: AnsweredBy = "code",
    ) -> AgentRunResult:
        """Decline an answerable pause; the server's model sees the reason. Sent as a
        `cancelled` resume entry with the reason in its metadata, or, for a pause read
        from another producer's shape, as that producer's own refusal."""
        if self.busy:
            raise RunBusyError("The remote run is executing; answer once it has paused.")
        record, entry = target(self.prompt, self._mirror.foreign, interrupt)
        shape = self._mirror.shaped.get(entry.id)
        if shape is not None:
            shape.check("reject")
        info = as_error_info(error, max_bytes=self.agent.max_answer_bytes)
        resolution = RejectResolution(error=info, by=by)
        wire = (
            {"interruptId": entry.id, "status": "resolved", "payload": shape.decline(info.message)}
            if shape is not None
            else {
                "interruptId": entry.id,
                "status": "cancelled",
                "metadata": {"reason": info.message},
            }
        )
        return await self._answer(record, entry, resolution, wire, on_recorded)

    async def cancel(self, reason: str | None = None) -> AgentRunResult | None:
        """Stop: close the stream being followed (the server sees the client leave). The
        run ends here as `cancelled`; this returns its result."""
        return await asyncio.wrap_future(self.cancel_threadsafe(reason))

    def cancel_threadsafe(self, reason: str | None = None) -> Future[AgentRunResult | None]:
        """`cancel()` for code without a loop of its own (the view's Stop)."""
        done: Future[AgentRunResult | None] = Future()
        loop, stream = self._loop, self._stream
        if loop is None or stream is None or stream.done():
            done.set_result(self._result)
            return done

        def stop() -> None:
            if not stream.done():
                self._stop = Cancellation(by="user", reason=reason)
                stream.cancel()

            def settled() -> None:
                if not done.done():
                    done.set_result(self._result)

            def report(_: Any) -> None:
                # The result is settled after the stream ends: look once the loop moves on.
                loop.call_soon(settled)

            stream.add_done_callback(report)

        loop.call_soon_threadsafe(stop)
        return done

    async def wait(self) -> AgentRunResult | None:
        """Wait until the run stops executing; its latest result."""
        while self.busy or (self._task is not None and not self._task.done()):  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        return self._result

    run_sync = blocking(run, "`run()` for code that does not `await`.")
    resume_sync = blocking(resume, "`resume()` for code that does not `await`.")
    reject_sync = blocking(reject, "`reject()` for code that does not `await`.")

    @property
    def task(self) -> asyncio.Task[AgentRunResult] | None:
        """The background task started by `start()`, if any."""
        return self._task

    def start(self, message: str | None = None) -> RemoteRun:
        """Send `message` in the background on the running loop; returns at once, so the
        cell ends and the view follows the run live."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise UsageError(
                "start() needs a running event loop, as in a notebook cell or async code; "
                "elsewhere use `await remote.run(...)`."
            ) from None
        self._task = loop.create_task(self.run(message))
        return self

    # -- saving ----------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Write what this client knows of the run to `path` (JSON): its address, the
        transcript, the AG-UI history and state, the open interrupts. Headers are not
        written (they may hold secrets); give them again to `RemoteRun.load`."""
        if self.busy:
            raise RunBusyError("Save the remote run once it rests (await remote.wait()).")
        mirror, result = self._mirror, self._result
        saved = SavedRemoteRun(
            url=self.url,
            forwarded_props=self.forwarded_props,
            prompt=mirror.prompt,
            messages=mirror.messages,
            state=mirror.state,
            run_id=mirror.run_id,
            heard=[c.interrupt for c in mirror.heard],
            foreign=[c.interrupt for c in mirror.foreign],
            unsent=self._answers,
            status=self._status if self._status != "running" else "idle",
            error=result.error if result is not None else None,
        )
        return write(path, saved)

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        headers: Mapping[str, str] | None = None,
        limits: RemoteLimits | None = None,
    ) -> RemoteRun:
        """A remote run saved by `save`, to follow and answer again (in a new kernel).
        Every field is checked as it is read; a file that is not one raises `UsageError`."""
        saved = read(path)
        run = cls(saved.url, headers=headers, forwarded_props=saved.forwarded_props, limits=limits)
        run._restore(saved)
        return run

    def _restore(self, saved: SavedRemoteRun) -> None:
        """Where a saved run stood: its mirror, unsent answers and status."""
        run = self
        mirror = Mirror(saved.prompt, saved.messages)
        mirror.state = saved.state
        mirror.run_id = saved.run_id
        mirror.heard = [classify(i) for i in saved.heard]
        mirror.foreign = [classify(i) for i in saved.foreign]
        mirror.reshape()
        run._mirror = mirror
        run._answers = dict(saved.unsent)
        run._status = saved.status
        if saved.status != "idle":
            run._result = AgentRunResult(saved.status, mirror.prompt, run.pending, saved.error)

    # -- the view ----------------------------------------------------------------------------

    @property
    def view(self) -> LiveView:
        """The live notebook view (one per run, shared by every display): the same view as
        a local run's, with the interrupts this client cannot answer shown read-only."""
        if self._view is None or self._view.comm is None:
            self._view = run_display().view(self)
            self._view.show_interrupts(
                [c.interrupt for c in self._mirror.foreign], how=ANSWER_ELSEWHERE
            )
        return self._view

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return run_display().bundle(self, **kwargs)

    def _ipython_display_(self) -> None:
        run_display().show(self)

    def __repr__(self) -> str:
        return f"<RemoteRun {self.id} {self.status} at {self.url}>"

    # -- inside ------------------------------------------------------------------------------

    async def _answer(
        self,
        record: ToolCall,
        entry: InterruptEntry,
        resolution: ResumeResolution | RejectResolution,
        wire: dict[str, Any],
        on_recorded: OnRecorded | None,
    ) -> AgentRunResult:
        entry.resolution = resolution
        if isinstance(resolution, RejectResolution):
            record.status, record.error = "rejected", resolution.error
        else:
            record.status = "running"
        self._answers[entry.id] = wire
        await self._emit(ResolvedEvent(record, entry, resolution))
        if self.prompt.pending():
            if on_recorded is not None:
                on_recorded()
            result = AgentRunResult("interrupted", self.prompt, self.pending)
            self._result = result
            return result
        return await self.send(resume=list(self._answers.values()), on_recorded=on_recorded)

    def _body(
        self,
        message: str | None,
        entries: list[dict[str, Any]] | None,
        forwarded_props: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        mirror = self._mirror
        # First, as it may refuse (a batch not answered whole) before anything changed.
        resume, command = continuation(entries or [], mirror.shaped)
        run_id = f"run_{uuid.uuid4().hex}"
        mirror.begin(self.id, run_id)
        if message is not None:
            mirror.user(message, f"msg_{uuid.uuid4().hex}")
        body: dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "threadId": self.id,
            "runId": run_id,
            "state": mirror.state if mirror.state is not None else {},
            "messages": mirror.messages,
            "tools": [],
            "context": [],
            "forwardedProps": {**self.forwarded_props, **(forwarded_props or {})},
        }
        if mirror.run_id is not None:
            body["parentRunId"] = mirror.run_id
        if resume:
            body["resume"] = resume
        if command is not None:  # several LangGraph pauses: its own command, keyed by id
            body["forwardedProps"] = {**body["forwardedProps"], **command}
        return body

    async def _follow(self, body: dict[str, Any]) -> None:
        """Send `body` and hear each event of the answer, up to the run's last one."""
        await follow(
            self._connection,
            self.url,
            body,
            headers=self.headers,
            hear=self._hear,
            limits=self.limits,
        )

    async def _hear(self, event: dict[str, Any]) -> None:
        self._events.append(event)
        for change in self._mirror.hear(event):
            await self._emit(change)

    async def _settle(self, failure: BaseException | None) -> AgentRunResult:
        """The stretch's result from how it ended; its events."""
        ending = self._mirror.ending
        status: Literal["interrupted", "completed", "failed", "cancelled"]
        error: ErrorInfo | None = None
        if self._stop is not None:
            status = "cancelled"
            reason = self._stop.reason or "Stopped: the stream was closed."
            error = ErrorInfo(name="Cancelled", message=reason)
            for change in self._mirror.cut(self.agent.url):
                await self._emit(change)
            self._settle_calls(self._stop)
        elif failure is not None:
            status, error = "failed", describe(failure)
            if isinstance(failure, RemoteRefused | RemoteProtocolError):
                await self._reopen()  # the server answered, refusing (not a lost connection)
        elif ending is None:
            status = "failed"
            error = ErrorInfo(
                name="RemoteStreamEnded",
                message="The server closed the stream before RUN_FINISHED or RUN_ERROR.",
            )
        else:
            status, error = ending.status, ending.error  # type: ignore[assignment]
            if status == "failed":
                await self._reopen()
        self._status = status
        result = AgentRunResult(status, self.prompt, self.pending, error)
        self._result = result
        if self._view is not None:
            self._view.show_interrupts(
                [c.interrupt for c in self._mirror.foreign], how=ANSWER_ELSEWHERE
            )
        if status == "completed":
            await self._emit(CompletedEvent(result))
        elif status == "failed" and error is not None:
            await self._emit(FailedEvent(error, failure))
        elif status == "cancelled" and self._stop is not None:
            await self._emit(CancelledEvent(self._stop, result))
        await self._emit(RunFinishedEvent(result))
        return result

    async def _reopen(self) -> None:
        """A stretch that failed: if the server refused it before doing anything, the
        answers it carried were not taken, so their pauses wait here again (to answer
        anew, not to send the refused answer again)."""
        for record, entry in self._mirror.refused(self._sent):
            self._answers.pop(entry.id, None)
            await self._emit(InterruptedEvent(record, entry))

    def _settle_calls(self, stop: Cancellation) -> None:
        """Calls still running when the stream was closed: their outcome is unknown here."""
        for item in self.prompt.items:
            if isinstance(item, ToolCall) and item.status == "running":
                item.status, item.cancellation = "cancelled", stop

    async def _emit(self, event: Event) -> None:
        await self._handlers.emit(event)
