"""`Inbox`: every run of a store that waits on a person, answerable from one view.

The kernel side lists the store's interrupted runs (newest first) and turns each pending
interrupt into the same card a run view shows. Only a window of the newest runs is listed
in full (`WINDOW`, more on the view's "Show more"): the rest are counted from the store's
header rows, so a store of thousands of waiting runs loads no more transcripts than the
view draws. Every text an entry holds is bounded as in a run view (`_preview`).
Answering a card records the answer on the run loaded here (durably: the run is attached
to the store) and continues it; the entry leaves the list once the run no longer waits.
The list follows the store on the kernel's event loop: it waits for the store's changes
(`store.changes()`: pushed by PostgreSQL, a commit counter on SQLite) and reads the header
rows changed since its last look only when they moved, and at least every `poll` seconds
where changes may go unseen; `stop_polling()` and `poll(seconds)` stop and start it. The
view's Refresh button reads the store too. Like a run view,
the inbox saves only a small loader with the notebook, not the view's code (`_bundle`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets  # type: ignore[import-untyped]
import traitlets

from ..errors import PausepointError, UsageError
from ..run import Agent, AgentRun
from ..store import (
    DamagedRunError,
    RunChanges,
    RunNotFoundError,
    RunStore,
    RunSummary,
    UnwatchedChanges,
)
from ..transcript import UserMessage
from ._bundle import LOADER, FrontEnd, shared_front_end
from ._cards import card_for
from ._inbox_entries import entry_of, read_only_entry
from ._inbox_triage import (
    BulkAnswer,
    BulkOutcome,
    answer_all,
    filters_of,
    page_json,
    thread_json,
)
from ._loops import current_loop
from ._preview import bounded_card, cut_text, ref_of, resolve
from ._requests import (
    ANSWER_ENVELOPE,
    ANSWERS,
    MAX_REQUEST_BYTES,
    Handler,
    HandOver,
    RequestPath,
    RequestRefused,
    Served,
    answer_start,
    running_loop,
)
from .protocol import (
    INBOX_REQUESTS,
    Bulk,
    Ignore,
    ListRuns,
    OpenRun,
    Refresh,
    Reject,
    Resume,
    Show,
    Unignore,
    Value,
)

__all__ = ["DEFAULT_POLL", "WINDOW", "Inbox", "RunLoader", "inbox"]

logger = logging.getLogger("pausepoint")

_STATIC = Path(__file__).parent / "static"

RunLoader = Callable[[RunStore, str, Agent], AgentRun]
"""Makes the run an inbox row answers: from the store, its id and its agent."""
DEFAULT_POLL = 2.0
"""Seconds between two looks at the store, where a change can go unseen (PostgreSQL: a row
edited by hand). Changes the store tells of show sooner."""
WINDOW = 50
"""How many of the newest waiting runs are listed in full at first, and added by each
"Show more"."""
MAX_WINDOW = 100_000
MAX_PAGE = 1000
MAX_OPENED = 20
"""How many runs opened from the list stay loaded here, answerable (the latest opened)."""


class Inbox(anywidget.AnyWidget):
    """Every run in `store` waiting on a person, newest first, with its answerable cards.

    `agents` maps the agent names runs were stored under (`Agent(name=...)`) to agents of
    this kernel; runs of other agents are listed read-only, with the reason. A run the
    store cannot read (a row changed outside pausepoint) is listed with the reason and
    in `damaged`; the others stay answerable::

        box = pausepoint.inbox(store, agents={"ops": ops_agent})
        box            # answer a card: the run is loaded here, answered and continued

    The list follows the store's changes as they come (`store.changes()`: within a second
    on PostgreSQL and SQLite) and looks at the store every `poll` seconds where a change
    can go unseen; `box.stop_polling()` stops both and leaves the inbox drawn (Refresh
    still works), `box.poll(10)` starts them again. The
    newest `WINDOW` runs are kept in full (`entries`, of `total` waiting: what the view
    shows once its kernel is gone); `box.show(200)` keeps more.

    The view is a triage list served a page at a time (`rows()`), answered in bulk
    (`approve`, `decline`, `respond`), with Ignore (`ignore`, `unignore`). With
    `continue_runs=False`, bulk answers are recorded durably and the runs left to
    workers (`pausepoint.Worker`) instead of continuing in this kernel; a card answered
    in an opened row still continues here.

    `loader(store, run_id, agent)` makes the run a row's answers go to (`AgentRun.load`
    unless given): `TemporalRunner.inbox` gives one whose answers go to the runs'
    Temporal workflows.
    """

    # The view's code is not saved with it, as for run views (`_bundle`).
    _esm = LOADER
    _front_end = traitlets.Instance(FrontEnd).tag(sync=True, **ipywidgets.widget_serialization)

    view = traitlets.Unicode("inbox").tag(sync=True)
    entries: traitlets.List[Any] = traitlets.List().tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    """How many runs wait, `entries` being the newest of them."""
    refreshed_at = traitlets.Unicode("").tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)
    """Moves on each reading of the store: the view asks for its shown page again."""
    bulk: traitlets.Dict[str, Any] = traitlets.Dict().tag(sync=True)
    """The latest bulk answer asked from the view: its request id, answer, how many runs it
    goes to, and each run's outcome so far (`{runId, outcome, message}`)."""
    _poller: asyncio.Task[None] | None = None

    def __init__(
        self,
        store: RunStore,
        agents: Mapping[str, Agent] | None = None,
        *,
        poll: float | None = DEFAULT_POLL,
        continue_runs: bool = True,
        loader: RunLoader | None = None,
    ) -> None:
        if not isinstance(store, RunStore):
            raise UsageError(f"inbox() needs a run store (e.g. SQLiteStore), not {store!r}.")
        if poll is not None and not poll > 0:
            raise UsageError("poll must be a positive number of seconds, or None.")
        super().__init__(_front_end=shared_front_end(_STATIC))
        self.store = store
        self.agents: dict[str, Agent] = dict(agents or {})
        self.continue_runs = bool(continue_runs)
        self._loader: RunLoader = loader if loader is not None else AgentRun.load
        # Runs loaded here, by id, with the version they were loaded at.
        self._runs: dict[str, tuple[int, AgentRun]] = {}
        # interrupt id -> the runs waiting on it (a fork waits on its parent's interrupt id)
        self._owners_of: dict[str, list[str]] = {}
        self._damaged: tuple[DamagedRunError, ...] = ()
        self._seen: datetime | None = None
        self._versions: dict[str, int] = {}
        self._window = WINDOW
        # The run id each listed entry goes by in the view (a long one is cut) -> the run's.
        self._ids: dict[str, str] = {}
        # Runs opened from the list, by the id the view shows: their cards are answerable.
        self._opened: dict[str, str] = {}
        self._continuing: set[asyncio.Task[Any]] = set()
        self._home_loop = current_loop()
        self._requests = RequestPath(self.send, INBOX_REQUESTS, self._handlers(), limit=self._limit)
        self._polling: float | None = None
        self._changes: RunChanges | None = None
        # The store's change version read just before the last listing, when watched.
        self._listed: int | None = None
        if poll is not None and self._home_loop is not None:
            self._watch()  # before the first listing, so no change after it goes unseen
        self.refresh()
        if poll is not None and self._home_loop is not None:
            self.poll(poll)
        self.on_msg(self._requests)

    # -- the list ----------------------------------------------------------------------

    @property
    def damaged(self) -> tuple[DamagedRunError, ...]:
        """The waiting runs the store cannot read, as of the last refresh, each naming its
        run and what is wrong (they are listed too, without cards). Past the listed
        `window`, rows are not read: the triage list (`rows()`) names their damage."""
        return self._damaged

    @property
    def window(self) -> int:
        """How many of the newest waiting runs the inbox lists in full (`entries`)."""
        return self._window

    def show(self, count: int) -> None:
        """List (at least) the newest `count` waiting runs in full: what "Show more" asks."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise UsageError("show() needs a number of runs (0 or more).")
        if count > self._window:
            self._window = min(count, MAX_WINDOW)
            self.refresh()

    def refresh(self) -> None:
        """Read the store's waiting runs again (what the poll and Refresh do).

        The header rows of every waiting run are read; the transcripts of the newest
        `window` only (once per version), to list them with their cards."""
        listed = self._changes.version() if self._changes is not None else None
        # One indexed page and a count: a store of 10,000 waiting runs reads a window of
        # header rows, not all of them. Ignored runs are left out, as the list does.
        page = self.store.waiting(limit=min(self._window, MAX_PAGE)) if self._window else None
        waiting = list(page.runs) if page is not None else []
        if self._window > MAX_PAGE:
            waiting += self.store.runs(status="interrupted")[MAX_PAGE : self._window]
        latest = self.store.runs(limit=1)
        entries: list[dict[str, Any]] = []
        owners_of: dict[str, list[str]] = {}
        ids: dict[str, str] = {}
        damaged: list[DamagedRunError] = []
        for summary in waiting:
            entry = self._entry(summary, damaged)
            entries.append(entry)
            ids[entry["runId"]] = summary.run_id
            for card in entry["cards"]:
                card["runId"] = entry["runId"]
                owners_of.setdefault(card["id"], []).append(summary.run_id)
        self._owners_of = owners_of
        self._ids = ids
        self._damaged = tuple(damaged)
        live = set(ids.values()) | set(self._opened.values())
        self._runs = {k: v for k, v in self._runs.items() if k in live or v[1].busy}
        # The listed runs, and the latest written: a write to any run since shows as a run
        # updated since then whose version is not this one (`changed`).
        self._versions = {s.run_id: s.version for s in [*waiting[: self._window], *latest]}
        self._seen = latest[0].updated_at if latest else None
        self._listed = listed
        total = page.total if page is not None else self.store.waiting(limit=0).total
        with self.hold_sync():
            self.refreshed_at = datetime.now().astimezone().isoformat(timespec="seconds")
            self.revision += 1
            self.total = total
            self.entries = entries

    def _entry(self, summary: RunSummary, damaged: list[DamagedRunError]) -> dict[str, Any]:
        entry = entry_of(summary)
        agent = self.agents.get(summary.agent or "")
        try:
            if summary.damage is not None:
                raise DamagedRunError(summary.run_id, summary.damage)
            if agent is None:
                return read_only_entry(entry, summary)
            run = self._run(summary, agent)
        except DamagedRunError as exc:
            return _damaged_entry(entry, exc, damaged)
        except Exception as exc:
            # Whatever one run's rows hold, the others stay listed and answerable.
            if not isinstance(exc, PausepointError):
                logger.warning(
                    "pausepoint inbox: run %s does not load", summary.run_id, exc_info=exc
                )
            return _damaged_entry(entry, DamagedRunError(summary.run_id, str(exc)), damaged)
        if run is None:
            return entry
        title = next((i.text for i in run.prompt.items if isinstance(i, UserMessage)), "")
        entry["title"] = cut_text(title)
        entry["cards"] = [
            bounded_card(card, _card_ref(entry["runId"], card["key"]))
            for card in _cards_of(run, agent)
        ]
        return entry

    def _run(self, summary: RunSummary, agent: Agent) -> AgentRun | None:
        cached = self._runs.get(summary.run_id)
        if cached is not None and (cached[0] == summary.version or cached[1].busy):
            return cached[1]
        try:
            run = self._loader(self.store, summary.run_id, agent)
        except RunNotFoundError:
            return None
        self._runs[summary.run_id] = (summary.version, run)
        return run

    def changed(self) -> bool:
        """Whether the store moved since the last refresh, from the header rows of the
        runs updated since then (no transcript is read)."""
        if self._seen is None:
            return bool(self.store.runs(limit=1))
        return any(
            summary.version != self._versions.get(summary.run_id)
            for summary in self.store.runs(since=self._seen)
        )

    @property
    def polling(self) -> float | None:
        """Seconds between two looks at the store, or None when the inbox does not poll."""
        return self._polling

    def poll(self, seconds: float = DEFAULT_POLL) -> None:
        """Follow the store's changes from now on (again, after `stop_polling()`), and look
        at it every `seconds` where a change can go unseen (`RunChanges.exact`).

        Each look reads the store's header rows changed since the last one (`changed()`),
        and the list again only when they moved. On SQLite every commit moves a counter
        the inbox checks every 0.1 s, so it reads nothing while nothing changes; on
        PostgreSQL changes are pushed as they commit, and the inbox still looks every
        `seconds`, for rows changed outside pausepoint::

            box.poll(10)   # look every 10 seconds instead of every 2
        """
        if not seconds > 0:
            raise UsageError("poll needs a positive number of seconds.")
        loop = self._home_loop or current_loop()
        if loop is None:
            raise UsageError(
                "The inbox polls on the event loop of a Jupyter kernel (or of asyncio.run); "
                "call poll() where one runs, or press Refresh."
            )
        self.stop_polling()
        self._home_loop = loop
        self._poller = loop.create_task(self._poll(self._watch(), float(seconds)))
        self._polling = float(seconds)

    def stop_polling(self) -> None:
        """Stop looking at the store; the inbox stays drawn and answerable, and Refresh (or
        `refresh()`) still reads the store. `poll()` starts again."""
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None
        self._polling = None

    def _watch(self) -> RunChanges:
        if self._changes is None:
            try:
                self._changes = self.store.changes()
            except Exception:
                logger.warning(
                    "pausepoint inbox: the store does not tell its changes; looking at it "
                    "every poll interval instead",
                    exc_info=True,
                )
                self._changes = UnwatchedChanges()
        return self._changes

    async def _poll(self, changes: RunChanges, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        looked = loop.time()
        while True:
            seen = self._listed
            if seen is not None:
                due = looked + seconds
                # An exact store tells every change: no look while its version stands.
                timeout = seconds if changes.exact else max(0.0, due - loop.time())
                moved = await changes.wait(seen, timeout) != seen
                if not moved and (changes.exact or loop.time() < due):
                    continue
            looked = loop.time()
            try:
                version = changes.version()
                # A listed run the store names as changed may have been deleted, which
                # the header rows cannot show.
                named = changes.changed_runs(seen) if seen is not None else None
                if (named is not None and not named.isdisjoint(self._versions)) or self.changed():
                    self.refresh()
                else:
                    self._listed = version
            except Exception:
                logger.warning("pausepoint inbox: reading the store failed", exc_info=True)
                await asyncio.sleep(seconds)

    def close(self) -> None:
        """Close the widget: its views go blank and polling stops (to stop polling alone,
        `stop_polling()`)."""
        self.stop_polling()
        super().close()

    # -- requests from the front end -----------------------------------------------------

    def _handlers(self) -> dict[str, Handler]:
        def refresh(_: Refresh) -> Served:
            self.refresh()
            return Served()

        def show(request: Show) -> Served:
            self.show(request.count)
            return Served()

        def value(request: Value) -> Served:
            return Served(self.full_value(request.ref))

        def answer(request: Resume | Reject) -> HandOver:
            run = self._answerable(request.interrupt, request.run)
            loop = running_loop(run.loop, self._home_loop)
            return HandOver(loop, answer_start(run, request, "inbox"), stopped=self.refresh)

        def listing(request: ListRuns) -> Served:
            try:
                return Served(self.rows(**filters_of(request)))
            except PausepointError as exc:
                raise RequestRefused("bad-request", str(exc)) from None

        def opening(request: OpenRun) -> Served:
            run_id = self._run_id_of(request.run)
            try:
                return Served(self.open_run(run_id))
            except RunNotFoundError as exc:
                raise RequestRefused("not-found", str(exc), name="RunNotFoundError") from None

        def bulk(request: Bulk) -> Served:
            runs = [self._run_id_of(r) for r in dict.fromkeys(request.runs)]
            answer, text = request.answer, request.text
            loop = running_loop(self._home_loop)
            if loop is None:
                raise RequestRefused(
                    "no-loop", "The kernel has no running event loop.", name="NoEventLoop"
                )
            outcomes: list[dict[str, str]] = []
            progress = {"id": request.request_id, "answer": answer, "total": len(runs)}
            self.bulk = {**progress, "outcomes": []}

            def each(outcome: BulkOutcome) -> None:
                outcomes.append(outcome.wire())
                self.bulk = {**progress, "outcomes": list(outcomes)}

            asyncio.run_coroutine_threadsafe(self._answer_all(runs, answer, text, each), loop)
            return Served({"runs": len(runs)})

        def ignoring(request: Ignore | Unignore) -> Served:
            run_id = self._run_id_of(request.run)
            try:
                if isinstance(request, Ignore):
                    self.ignore(run_id, by=request.by)
                else:
                    self.unignore(run_id)
            except RunNotFoundError as exc:
                raise RequestRefused("not-found", str(exc), name="RunNotFoundError") from None
            return Served()

        return {
            "list": listing,
            "open": opening,
            "bulk": bulk,
            "ignore": ignoring,
            "unignore": ignoring,
            "refresh": refresh,
            "show": show,
            "value": value,
            "resume": answer,
            "reject": answer,
        }

    def _run_id_of(self, shown: str) -> str:
        """The run id behind one the view shows (a long id is cut in rows)."""
        return self._ids.get(shown) or self._opened.get(shown) or shown

    def _limit(self, kind: str) -> int:
        if kind not in ANSWERS:
            return MAX_REQUEST_BYTES
        limits = [agent.max_answer_bytes for agent in self.agents.values()]
        return max(limits, default=MAX_REQUEST_BYTES) + ANSWER_ENVELOPE

    def _answerable(self, interrupt: str, named: str | None) -> AgentRun:
        """The run of this inbox that a card's answer goes to."""
        owners = self._owners_of.get(interrupt, [])
        if named is not None:
            run_id = self._ids.get(named)
            owners = [run_id] if run_id in owners else []
        if len(owners) > 1:
            raise RequestRefused(
                "bad-request",
                f"Runs {', '.join(owners)} all wait on interrupt {interrupt[:200]!r} (a run "
                "and its forks); name one with run: <run id>.",
            )
        cached = self._runs.get(owners[0]) if owners else self._opened_run(interrupt, named)
        if cached is None:
            raise RequestRefused(
                "not-found",
                "No run in this inbox waits on this interrupt any more; press Refresh.",
                name="UnknownInterruptError",
            )
        return cached[1]

    def full_value(self, ref: str) -> Any:
        """The whole value behind a card preview's reference (what "Show all" shows)."""
        try:
            return resolve(ref, self._value_root)
        except UsageError as exc:
            raise RequestRefused("not-found", str(exc), name="UsageError") from None

    def _value_root(self, kind: str, name: str) -> Any:
        try:
            named = json.loads(name) if kind == "card" else None
        except ValueError:
            named = None
        if isinstance(named, list) and len(named) == 2 and all(isinstance(n, str) for n in named):
            run_id = self._ids.get(named[0]) or self._opened.get(named[0], "")
            cached = self._runs.get(run_id)
            if cached is not None:
                run = cached[1]
                for card in _cards_of(run, run.agent):
                    if card["key"] == named[1]:
                        return card
        raise UsageError("This inbox shows that value no more; press Refresh.")

    async def wait(self) -> None:
        """Wait until every run answered from this view (or by `approve`, `decline`,
        `respond`) has stopped executing: paused again, finished, failed or cancelled (and
        the list shows it)."""
        await self._requests.settled()
        while self._continuing:
            await asyncio.gather(*self._continuing, return_exceptions=True)

    # -- the triage list -----------------------------------------------------------------

    def rows(
        self,
        *,
        status: str | list[str] = "waiting",
        agent: str | None = None,
        kind: str | None = None,
        text: str | None = None,
        ignored: bool | None = False,
        sort: str = "newest",
        offset: int = 0,
        limit: int = 50,
    ) -> dict[str, Any]:
        """One page of the triage list, as the view draws it: `rows` (title, agent, what
        the run waits for with its key arguments, since when, status), `total` matching,
        and the agents, kinds and key arguments to filter and sort by. The options are
        `RunStore.waiting`'s::

            box.rows(agent="payments", sort="-amount", limit=20)["total"]
        """
        page = self.store.waiting(
            status=status,
            agent=agent,
            kind=kind,
            text=text,
            ignored=ignored,
            sort=sort,
            offset=offset,
            limit=limit,
        )
        return page_json(page, lambda s: (s.agent or "") in self.agents)

    def open_run(self, run_id: str) -> dict[str, Any]:
        """A listed run opened: its answerable cards (as a run view's) and its thread, the
        conversation so far (its last items, texts cut). A run of an agent this kernel
        lacks, or that does not load, comes with the reason and read-only cards."""
        summary = self.store.summary(run_id)
        entry = self._entry(summary, [])
        cached = self._runs.get(run_id)
        entry["status"] = cached[1].status if cached is not None else summary.status
        shown = entry["runId"]
        for card in entry["cards"]:
            card["runId"] = shown
        if cached is not None:
            self._opened.pop(shown, None)
            self._opened[shown] = run_id
            while len(self._opened) > MAX_OPENED:  # the oldest opened go back to the store
                del self._opened[next(iter(self._opened))]
            entry["thread"] = thread_json(cached[1].prompt.items)
        else:
            entry["thread"] = {"items": [], "earlier": 0}
        return entry

    async def approve(self, run_ids: list[str]) -> list[BulkOutcome]:
        """Approve the first pause of each run (answer True), a few runs at a time; returns
        each run's outcome once its answer is recorded (the runs go on: `await wait()`).
        A run that no longer waits (answered elsewhere) is reported, not an error::

            outcomes = await box.approve(["run_1", "run_2"])
        """
        return await self._answer_all(run_ids, "approve", None)

    async def decline(self, run_ids: list[str], reason: str | None = None) -> list[BulkOutcome]:
        """Decline the first pause of each run, the model told `reason` (see `approve`)."""
        return await self._answer_all(run_ids, "decline", reason)

    async def respond(self, run_ids: list[str], text: str) -> list[BulkOutcome]:
        """Answer the first pause of each run with `text`: a tool approval is responded to
        (the action does not run and the model reads the words), another pause resumed
        with the text (see `approve`)."""
        return await self._answer_all(run_ids, "respond", text)

    def ignore(self, run_id: str, *, by: str | None = None) -> None:
        """Hide a run from the list, recording `by` and when (`unignore` undoes it)."""
        self.store.ignore(run_id, by=by)
        self.refresh()

    def unignore(self, run_id: str) -> None:
        """List an ignored run again."""
        self.store.unignore(run_id)
        self.refresh()

    async def _answer_all(
        self,
        run_ids: list[str],
        answer: BulkAnswer,
        text: str | None,
        each: Any = None,
    ) -> list[BulkOutcome]:
        if isinstance(run_ids, str) or not all(isinstance(r, str) for r in run_ids):
            raise UsageError("Name the runs to answer as a list of run ids.")
        outcomes = await answer_all(
            run_ids,
            answer,
            text,
            self._bulk_run,
            started=self._continue,
            each=each or _nothing,
            continue_runs=self.continue_runs,
        )
        self.refresh()
        return outcomes

    def _bulk_run(self, run_id: str) -> AgentRun | BulkOutcome:
        summary = self.store.summary(run_id)
        if summary.status != "interrupted" or not summary.pending:
            return BulkOutcome(run_id, "not-waiting", "The run no longer waits on a person.")
        agent = self.agents.get(summary.agent or "")
        if agent is None:
            return BulkOutcome(
                run_id, "read-only", f"This kernel has no agent {summary.agent!r} for the run."
            )
        if summary.damage is not None:
            raise DamagedRunError(run_id, summary.damage)
        run = self._run(summary, agent)
        if run is None:
            raise RunNotFoundError(run_id)
        return run

    def _continue(self, task: asyncio.Task[Any]) -> None:
        self._continuing.add(task)
        task.add_done_callback(self._continued)

    def _continued(self, task: asyncio.Task[Any]) -> None:
        self._continuing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            if not isinstance(exc, PausepointError):
                logger.warning("pausepoint inbox: a run answered in bulk failed", exc_info=exc)

    def _opened_run(self, interrupt: str, named: str | None) -> tuple[int, AgentRun] | None:
        for shown, run_id in self._opened.items():
            if named is not None and named != shown:
                continue
            cached = self._runs.get(run_id)
            if cached is not None and any(p.id == interrupt for p in cached[1].pending):
                return cached
        return None


def _nothing(_: BulkOutcome) -> None:
    return None


def inbox(
    store: RunStore,
    agents: Mapping[str, Agent] | None = None,
    *,
    poll: float | None = DEFAULT_POLL,
    continue_runs: bool = True,
    loader: RunLoader | None = None,
) -> Inbox:
    """The inbox of `store`: every run waiting on a person, answerable here (see `Inbox`)."""
    return Inbox(store, agents, poll=poll, continue_runs=continue_runs, loader=loader)


def _cards_of(run: AgentRun, agent: Agent) -> list[dict[str, Any]]:
    return [card_for(p, agent.actions.get(p.tool_call.name)) for p in run.pending]


def _damaged_entry(
    entry: dict[str, Any], exc: DamagedRunError, damaged: list[DamagedRunError]
) -> dict[str, Any]:
    damaged.append(exc)
    return {**entry, "reason": cut_text(str(exc)), "damaged": True}


def _card_ref(shown_run_id: str, key: str) -> str:
    return ref_of("card", json.dumps([shown_run_id, key]))
