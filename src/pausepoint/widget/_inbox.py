"""`Inbox`: every run of a store that waits on a person, answerable from one view.

The kernel side lists the store's interrupted runs (newest first) and turns each pending
interrupt into the same card a run view shows. Answering a card loads the run in this
kernel, records the answer (durably: the run is attached to the store) and continues it;
the entry leaves the list once the run no longer waits. The list follows the store by
polling `store.runs(since=...)` every `poll` seconds on the kernel's event loop (other
kernels' changes show up then), and on the view's Refresh button.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Coroutine, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from ..actions import Rejection
from ..errors import PausepointError, UsageError
from ..run import Agent, AgentRun, OnRecorded
from ..store import PendingSummary, RunNotFoundError, RunStore, RunSummary
from ..transcript import UserMessage
from ._bundle import front_end
from ._cards import card_for
from ._loops import current_loop, log_failure
from ._preview import bounded_card, is_preview, ref_of, resolve
from ._responses import failure, failure_of

__all__ = ["DEFAULT_POLL", "Inbox", "inbox"]

logger = logging.getLogger("pausepoint")

_STATIC = Path(__file__).parent / "static"
DEFAULT_POLL = 2.0
"""Seconds between two looks at the store for changes made elsewhere."""


class Inbox(anywidget.AnyWidget):
    """Every run in `store` waiting on a person, newest first, with its answerable cards.

    `agents` maps the agent names runs were stored under (`Agent(name=...)`) to agents of
    this kernel; runs of other agents are listed read-only, with the reason::

        box = pausepoint.inbox(store, agents={"ops": ops_agent})
        box            # answer a card: the run is loaded here, answered and continued
    """

    _esm, _css = front_end(_STATIC)

    view = traitlets.Unicode("inbox").tag(sync=True)
    entries: traitlets.List[Any] = traitlets.List().tag(sync=True)
    refreshed_at = traitlets.Unicode("").tag(sync=True)
    _poller: asyncio.Task[None] | None = None

    def __init__(
        self,
        store: RunStore,
        agents: Mapping[str, Agent] | None = None,
        *,
        poll: float | None = DEFAULT_POLL,
    ) -> None:
        if not isinstance(store, RunStore):
            raise UsageError(f"inbox() needs a run store (e.g. SQLiteStore), not {store!r}.")
        if poll is not None and not poll > 0:
            raise UsageError("poll must be a positive number of seconds, or None.")
        super().__init__()
        self.store = store
        self.agents: dict[str, Agent] = dict(agents or {})
        # Runs loaded here, by id, with the version they were loaded at.
        self._runs: dict[str, tuple[int, AgentRun]] = {}
        # interrupt id -> the runs waiting on it (a fork waits on its parent's interrupt id)
        self._owners_of: dict[str, list[str]] = {}
        self._seen: datetime | None = None
        self._versions: dict[str, int] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        self._home_loop = current_loop()
        self.refresh()
        if poll is not None and self._home_loop is not None:
            self._poller = self._home_loop.create_task(self._poll(poll))
        self.on_msg(self._on_msg)

    # -- the list ----------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the store's waiting runs again (what the poll and Refresh do)."""
        waiting = self.store.runs(status="interrupted")
        entries: list[dict[str, Any]] = []
        owners_of: dict[str, list[str]] = {}
        for summary in waiting:
            entry = self._entry(summary)
            entries.append(entry)
            for card in entry["cards"]:
                card["runId"] = summary.run_id
                owners_of.setdefault(card["id"], []).append(summary.run_id)
        self._owners_of = owners_of
        live = {s.run_id for s in waiting}
        self._runs = {k: v for k, v in self._runs.items() if k in live or v[1].busy}
        self._versions = {s.run_id: s.version for s in waiting}
        if waiting:
            self._seen = max(s.updated_at for s in waiting)
        self.refreshed_at = datetime.now().astimezone().isoformat(timespec="seconds")
        self.entries = entries

    def _entry(self, summary: RunSummary) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "runId": summary.run_id,
            "agent": summary.agent,
            "updatedAt": summary.updated_at.isoformat(),
            "createdAt": summary.created_at.isoformat(),
            "reason": None,
            "title": "",
            "cards": [],
        }
        agent = self.agents.get(summary.agent or "")
        if agent is None:
            entry["reason"] = (
                f"Read-only: this kernel has no agent {summary.agent!r}. Pass it as "
                f"pausepoint.inbox(store, agents={{{summary.agent!r}: agent}}) to answer here."
            )
            entry["cards"] = [_read_only_card(p) for p in summary.pending]
            return entry
        run = self._run(summary, agent)
        if run is None:
            return entry
        entry["title"] = next((i.text for i in run.prompt.items if isinstance(i, UserMessage)), "")
        entry["cards"] = [
            bounded_card(card, _card_ref(summary.run_id, card["key"]))
            for card in _cards_of(run, agent)
        ]
        return entry

    def _run(self, summary: RunSummary, agent: Agent) -> AgentRun | None:
        cached = self._runs.get(summary.run_id)
        if cached is not None and (cached[0] == summary.version or cached[1].busy):
            return cached[1]
        try:
            run = AgentRun.load(self.store, summary.run_id, agent)
        except RunNotFoundError:
            return None
        self._runs[summary.run_id] = (summary.version, run)
        return run

    def changed(self) -> bool:
        """Whether the store moved since the last refresh, from the header rows of the
        runs updated since then (no transcript is read)."""
        if self._seen is None:
            return bool(self.store.runs(status="interrupted", limit=1))
        return any(
            summary.version != self._versions.get(summary.run_id)
            and (summary.status == "interrupted" or summary.run_id in self._versions)
            for summary in self.store.runs(since=self._seen)
        )

    async def _poll(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                if self.changed():
                    self.refresh()
            except Exception:
                logger.warning("pausepoint inbox: reading the store failed", exc_info=True)

    def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
        super().close()

    # -- answers from the front end ----------------------------------------------------

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("requestId"), str):
            return
        request_id: str = content["requestId"]
        kind = content.get("type")
        if kind == "refresh":
            self.refresh()
            self._reply(request_id)
            return
        if kind == "value":
            self._value_request(request_id, content.get("ref"))
            return
        interrupt = content.get("interrupt")
        if kind not in ("resume", "reject") or not isinstance(interrupt, str):
            self._reply_error(
                request_id, "BadRequest", "Expected {type: resume|reject|refresh, interrupt}."
            )
            return
        owners = self._owners_of.get(interrupt, [])
        named = content.get("run")
        if isinstance(named, str):
            owners = [named] if named in owners else []
        if len(owners) > 1:
            self._reply_error(
                request_id,
                "BadRequest",
                f"Runs {', '.join(owners)} all wait on interrupt {interrupt!r} (a run and its "
                "forks); name one with run: <run id>.",
            )
            return
        cached = self._runs.get(owners[0]) if owners else None
        if cached is None:
            self._reply_error(
                request_id,
                "UnknownInterruptError",
                "No run in this inbox waits on this interrupt any more; press Refresh.",
            )
            return
        run = cached[1]
        if kind == "resume" and is_preview(content.get("data")):
            self._reply_error(
                request_id,
                "InvalidResolutionError",
                "The answer holds a preview of a large value, not the value itself. Show the "
                "whole value first.",
            )
            return

        def start(recorded: OnRecorded) -> Coroutine[Any, Any, Any]:
            if kind == "resume":
                return run.resume(content.get("data"), interrupt=interrupt, on_recorded=recorded)
            reason = content.get("reason")
            rejection = Rejection(message=reason) if isinstance(reason, str) and reason else None
            return run.reject(rejection, interrupt=interrupt, on_recorded=recorded)

        loop = self._home_loop
        if loop is None or loop.is_closed() or not loop.is_running():
            self._reply_error(
                request_id,
                "NoEventLoop",
                "The kernel has no running event loop; answer from code with "
                "`await agent.load(run_id, store).resume(...)`.",
            )
            return
        future = asyncio.run_coroutine_threadsafe(self._answer(request_id, start), loop)
        future.add_done_callback(log_failure)

    async def _answer(self, request_id: str, start: Any) -> None:
        """On the kernel's loop: reply once the answer is recorded (or refused), then let
        the run go on and refresh the list when it stops."""
        accepted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def recorded() -> None:
            if not accepted.done():
                accepted.set_result(None)

        task: asyncio.Future[Any] = asyncio.ensure_future(start(recorded))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda _: self.refresh())
        await asyncio.wait({task, accepted}, return_when=asyncio.FIRST_COMPLETED)
        if accepted.done() or task.exception() is None:
            self._reply(request_id)
            return
        exc = task.exception()
        assert exc is not None
        if not isinstance(exc, PausepointError):
            logger.error("pausepoint inbox: the answer failed", exc_info=exc)
        self.send(failure_of(request_id, exc))

    def full_value(self, ref: str) -> Any:
        """The whole value behind a card preview's reference (what "Show all" shows)."""
        return resolve(ref, self._value_root)

    def _value_root(self, kind: str, name: str) -> Any:
        try:
            run_id, key = json.loads(name) if kind == "card" else (None, None)
        except ValueError:
            run_id = key = None
        cached = self._runs.get(run_id) if isinstance(run_id, str) else None
        if cached is not None:
            run = cached[1]
            for card in _cards_of(run, run.agent):
                if card["key"] == key:
                    return card
        raise UsageError("This inbox shows that value no more; press Refresh.")

    def _value_request(self, request_id: str, ref: Any) -> None:
        if not isinstance(ref, str):
            self._reply_error(request_id, "BadRequest", "Expected {type: value, ref: <str>}.")
            return
        try:
            value = self.full_value(ref)
        except PausepointError as exc:
            self.send(failure_of(request_id, exc))
            return
        self.send({"type": "response", "requestId": request_id, "ok": True, "value": value})

    def _reply(self, request_id: str) -> None:
        self.send({"type": "response", "requestId": request_id, "ok": True})

    def _reply_error(
        self,
        request_id: str,
        name: str,
        message: str,
        problems: list[dict[str, str]] | None = None,
    ) -> None:
        self.send(failure(request_id, name, message, problems))

    async def wait(self) -> None:
        """Wait until the runs answered from this view have stopped executing."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def inbox(
    store: RunStore,
    agents: Mapping[str, Agent] | None = None,
    *,
    poll: float | None = DEFAULT_POLL,
) -> Inbox:
    """The inbox of `store`: every run waiting on a person, answerable here (see `Inbox`)."""
    return Inbox(store, agents, poll=poll)


def _cards_of(run: AgentRun, agent: Agent) -> list[dict[str, Any]]:
    return [card_for(p, agent.actions.get(p.tool_call.name)) for p in run.pending]


def _card_ref(run_id: str, key: str) -> str:
    return ref_of("card", json.dumps([run_id, key]))


def _read_only_card(pending: PendingSummary) -> dict[str, Any]:
    return {
        "id": pending.interrupt_id,
        "key": pending.interrupt_id,
        "kind": pending.kind,
        "canResolve": False,
        "message": pending.message,
        "reason": "This kernel cannot continue the run.",
        "data": None,
        "toolCallId": pending.tool_call_id,
        "toolName": pending.tool_name,
        "args": None,
        "inputSchema": None,
        "responseSchema": None,
        "createdAt": pending.created_at.isoformat(),
        "expiresAt": pending.expires_at.isoformat() if pending.expires_at else None,
    }
