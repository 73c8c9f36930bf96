"""The inbox's triage list in the kernel: pages of rows, a run opened, answers to many runs.

The view asks for one page of rows at a time (`{type: "list", filter, sort, offset,
limit}`), each row made from a run's header row alone (`RunStore.waiting`): its title,
agent, what it waits for with the call's key arguments, since when, its status. Every
text is cut as a run view cuts a message (`cut_text`, and shorter for a row's one line).
Opening a row reads that run's transcript for its cards and its thread (the conversation
so far, its last `THREAD_ITEMS` items, each text cut). A bulk answer approves, declines or
responds to each listed run in turn; each run's outcome is reported on its own, so a run
that stopped waiting (answered in another kernel) is named and the others are answered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..actions import Rejection
from ..errors import PausepointError, UsageError
from ..store import (
    TRIAGE_STATUSES,
    LeaseHeldError,
    RunNotFoundError,
    RunSummary,
    StoreConflictError,
    TriagePage,
)
from ..transcript import AssistantMessage, Item, ToolCall, UserMessage
from ._preview import cut_text
from .protocol import BULK_LIMIT, BulkAnswer, ListFilter, ListRuns

if TYPE_CHECKING:
    from ..run import AgentRun

__all__ = [
    "ANSWERS",
    "BULK_LIMIT",
    "THREAD_ITEMS",
    "BulkAnswer",
    "BulkOutcome",
    "page_json",
    "row_json",
    "thread_json",
]

ANSWERS: tuple[str, ...] = get_args(BulkAnswer.__value__)
THREAD_ITEMS = 40
"""How many of a run's last transcript items its opened row shows."""
ROW_TEXT = 300
"""How many characters of a title, message or argument a row shows."""
THREAD_TEXT = 2000
"""How many characters of each message an opened thread shows."""
# Runs answered at once by a bulk answer: each loads its transcript and records its answer.
_AT_ONCE = 8
_STATUS_NAMES = {status: name for name, status in TRIAGE_STATUSES.items()}

Outcome = Literal["answered", "not-waiting", "read-only", "gone", "refused"]


@dataclass(frozen=True, slots=True)
class BulkOutcome:
    """What a bulk answer did to one run: `answered` (recorded; the run goes on),
    `not-waiting` (answered elsewhere or no longer paused), `read-only` (no agent of this
    kernel for it), `gone` (deleted) or `refused` (the run refused the answer: `message`
    says why)."""

    run_id: str
    outcome: Outcome
    message: str = ""

    def wire(self) -> dict[str, str]:
        return {"runId": cut_text(self.run_id), "outcome": self.outcome, "message": self.message}


def _short(text: str | None, limit: int = ROW_TEXT) -> str | None:
    if text is None:
        return None
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit:,} more)"


def row_json(summary: RunSummary, *, answerable: bool) -> dict[str, Any]:
    """One run as a row of the list: from its header row alone, every text cut."""
    first = summary.pending[0] if summary.pending else None
    arguments = {
        name: _short(value) if isinstance(value, str) else value
        for name, value in summary.arguments.items()
    }
    return {
        "runId": cut_text(summary.run_id),
        "title": _short(summary.title) or "",
        "agent": _short(summary.agent),
        "status": _STATUS_NAMES.get(summary.status, summary.status),
        "kind": first.kind if first else None,
        "tool": _short(first.tool_name) if first else None,
        "message": _short(first.message) if first else None,
        "pauses": len(summary.pending),
        "arguments": arguments,
        "since": summary.updated_at.isoformat(),
        "ignoredBy": _short(summary.ignored_by),
        "ignoredAt": summary.ignored_at.isoformat() if summary.ignored_at else None,
        "damaged": _short(summary.damage),
        "answerable": answerable and summary.damage is None,
    }


def page_json(page: TriagePage, answerable: Callable[[RunSummary], bool]) -> dict[str, Any]:
    """A page of the list as the view gets it, with the agents and kinds to filter by and
    the key arguments its rows have, to sort by."""
    rows = [row_json(s, answerable=answerable(s)) for s in page.runs]
    keys = sorted({name for s in page.runs for name in s.arguments})
    return {
        "rows": rows,
        "total": page.total,
        "offset": page.offset,
        "agents": [[_short(name), count] for name, count in page.agents],
        "kinds": [[kind, count] for kind, count in page.kinds],
        "keys": keys,
    }


def thread_json(items: Sequence[Item]) -> dict[str, Any]:
    """The conversation so far, as an opened row shows it: the last `THREAD_ITEMS` items,
    each a line of who said or did what, texts cut to `THREAD_TEXT`."""
    shown = items[-THREAD_ITEMS:]
    lines: list[dict[str, Any]] = []
    for item in shown:
        if isinstance(item, UserMessage):
            lines.append({"role": "user", "text": _short(item.text, THREAD_TEXT)})
        elif isinstance(item, AssistantMessage):
            calls = ", ".join(call.name for call in item.tool_calls)
            text = item.text or (f"calls {calls}" if calls else "")
            lines.append({"role": "assistant", "text": _short(text, THREAD_TEXT)})
        elif isinstance(item, ToolCall):
            lines.append(
                {"role": "tool", "text": _short(f"{item.name}: {item.status}", THREAD_TEXT)}
            )
    return {"items": lines, "earlier": len(items) - len(shown)}


Loader = Callable[[str], "AgentRun | BulkOutcome"]


async def answer_all(
    run_ids: Sequence[str],
    answer: BulkAnswer,
    text: str | None,
    load: Loader,
    *,
    started: Callable[[asyncio.Task[Any]], None],
    each: Callable[[BulkOutcome], None] = lambda _: None,
    continue_runs: bool = True,
) -> list[BulkOutcome]:
    """Give `answer` to each run (loaded by `load`, which may say why it cannot be), a few
    at a time, and return each run's outcome once its answer is recorded or refused. The
    runs go on in tasks handed to `started` (with `continue_runs=False` the answers are
    only recorded, and workers continue the runs)."""
    if answer not in ANSWERS:
        raise UsageError(f"A bulk answer is one of {', '.join(ANSWERS)}, not {answer!r}.")
    if answer == "respond" and not (isinstance(text, str) and text.strip()):
        raise UsageError("Respond needs the words to send: respond(run_ids, 'text').")
    gate = asyncio.Semaphore(_AT_ONCE)

    async def one(run_id: str) -> BulkOutcome:
        async with gate:
            outcome = await _answer_one(run_id, answer, text, load, started, continue_runs)
        each(outcome)
        return outcome

    return list(await asyncio.gather(*(one(run_id) for run_id in run_ids)))


async def _answer_one(
    run_id: str,
    answer: BulkAnswer,
    text: str | None,
    load: Loader,
    started: Callable[[asyncio.Task[Any]], None],
    continue_runs: bool,
) -> BulkOutcome:
    try:
        loaded = load(run_id)
    except RunNotFoundError:
        return BulkOutcome(run_id, "gone", "The run was deleted.")
    except PausepointError as exc:
        return BulkOutcome(run_id, "refused", str(exc))
    if isinstance(loaded, BulkOutcome):
        return loaded
    run = loaded
    if run.busy or not run.pending:
        return BulkOutcome(run_id, "not-waiting", "The run no longer waits on a person.")
    pause = run.pending[0]
    recorded = asyncio.get_running_loop().create_future()

    def on_recorded() -> None:
        if not recorded.done():
            recorded.set_result(None)

    start = _start(run, pause.id, pause.kind, answer, text, on_recorded, continue_runs)
    task = asyncio.ensure_future(start)
    started(task)
    await asyncio.wait({task, recorded}, return_when=asyncio.FIRST_COMPLETED)
    if recorded.done():
        return BulkOutcome(run_id, "answered")
    failed = None if task.cancelled() else task.exception()
    if isinstance(failed, StoreConflictError | LeaseHeldError):
        return BulkOutcome(run_id, "not-waiting", "The run was answered elsewhere.")
    return BulkOutcome(run_id, "refused", str(failed) if failed else "The answer was cancelled.")


def _start(
    run: AgentRun,
    interrupt: str,
    kind: str,
    answer: BulkAnswer,
    text: str | None,
    recorded: Callable[[], None],
    go_on: bool,
) -> Coroutine[Any, Any, Any]:
    how: dict[str, Any] = {
        "interrupt": interrupt,
        "on_recorded": recorded,
        "by": "inbox",
        "continue_run": go_on,
    }
    if answer == "approve":
        return run.resume(True, **how)
    if answer == "decline":
        return run.reject(Rejection(message=text) if text and text.strip() else None, **how)
    assert text is not None
    if kind == "tool-approval":
        return run.respond(text, **how)
    return run.resume(text, **how)


def filters_of(request: ListRuns) -> dict[str, Any]:
    """A list request's filter and sort as `RunStore.waiting` options (the store checks
    their values)."""
    given = request.filter or ListFilter()
    return {
        "status": given.status or "waiting",
        "agent": given.agent or None,
        "kind": given.kind or None,
        "text": given.text or None,
        "ignored": given.ignored,
        "sort": request.sort or "newest",
        "offset": request.offset,
        "limit": request.limit,
    }
