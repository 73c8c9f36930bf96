"""`TemporalRunner`: stored runs scheduled by a Temporal cluster, answered from anywhere.

    runner = TemporalRunner(client, task_queue="refunds")
    await runner.start(agent.new_run("Refund order 42", store=store))
    ...
    await runner.resume(run_id, {"approved": True}, interrupt=pending_id)

The transcript stays in the store; Temporal holds one workflow per run (its id is the
run's), which executes the run's stretches on the workers of `task_queue` and waits,
between them, for the answers sent here as Workflow Updates. An answer is checked by
the run's own checks on a worker: a refused one raises here the error pausepoint raises
(`InvalidResolutionError` with its problems, `NoPendingInterruptError`, ...), and nothing
is recorded."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import Worker as TemporalWorker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from .. import errors
from ..errors import (
    InvalidResolutionError,
    NoPendingInterruptError,
    PausepointError,
    ResolutionProblem,
    UsageError,
)
from ..run import Agent, AgentRun
from ..store import RunStore
from ._activities import Activities
from ._attached import TemporalRun
from ._shared import Answer, AnswerOutcome, RunInput, StretchOutcome
from ._workflow import ANSWER, STATUS, RunWorkflow

if TYPE_CHECKING:
    from ..widget import Inbox

__all__ = ["TemporalRunner", "sandbox", "temporal_worker"]


class TemporalRunner:
    """Starts stored runs as Temporal workflows on `task_queue`, and answers them."""

    def __init__(
        self,
        client: Client,
        task_queue: str,
        *,
        status_attribute: str | None = None,
        continue_after: int = 10_000,
    ) -> None:
        if not isinstance(task_queue, str) or not task_queue:
            raise UsageError(f"A task queue is a non-empty str, not {task_queue!r}.")
        self.client = client
        self.task_queue = task_queue
        self.status_attribute = status_attribute
        self.continue_after = continue_after
        """History events after which a waiting run's workflow continues as new (its
        history starts again; the run is in the store)."""
        """A Keyword search attribute each run's workflow keeps at the run's status (e.g.
        "PausepointStatus", registered with `temporal operator search-attribute create
        --name PausepointStatus --type Keyword`): then Temporal's own list shows the runs
        waiting on a person (`PausepointStatus = "interrupted"`). None: not kept."""

    async def start(self, run: AgentRun) -> WorkflowHandle[Any, StretchOutcome]:
        """Schedule a stored run (made with `agent.new_run(..., store=store)`): its
        workflow, with the run's id, starts on this runner's task queue."""
        if run.store is None:
            raise UsageError(
                "Temporal schedules stored runs only: make the run with "
                "agent.new_run(..., store=store), the store the workers open too."
            )
        return await self.client.start_workflow(
            RunWorkflow.run,
            RunInput(run.id, run.agent.name, self.status_attribute, self.continue_after),
            id=run.id,
            task_queue=self.task_queue,
        )

    def attach(self, run_id: str, agent: Agent, store: RunStore) -> TemporalRun:
        """The stored run `run_id` in this kernel, for its view: read from `store`, its
        answers sent to its workflow (see `TemporalRun`)."""
        return TemporalRun(self, agent, store, run_id)

    def inbox(self, store: RunStore, agents: Mapping[str, Agent], **options: Any) -> Inbox:
        """The inbox of `store` (see `pausepoint.inbox`), its answers sent to the runs'
        workflows: every run waiting on a person, the Temporal-scheduled ones answered
        through this runner."""
        from ..widget import Inbox

        return Inbox(
            store,
            agents,
            loader=lambda opened, run_id, agent: self.attach(run_id, agent, opened),
            **options,
        )

    def handle(self, run_id: str) -> WorkflowHandle[Any, StretchOutcome]:
        return self.client.get_workflow_handle(run_id, result_type=StretchOutcome)

    async def status(self, run_id: str) -> StretchOutcome:
        """Where the run's workflow stands: the run's status and what it waits on."""
        found: StretchOutcome = await self.handle(run_id).query(STATUS, result_type=StretchOutcome)
        return found

    async def result(self, run_id: str) -> StretchOutcome:
        """How the run ended, once its workflow has."""
        return await self.handle(run_id).result()

    async def resume(
        self, run_id: str, data: Any = None, *, interrupt: str, by: str = "code"
    ) -> AnswerOutcome:
        """Answer `interrupt` with `data`, as `run.resume(data)` would."""
        return await self._answer(run_id, Answer(interrupt, "resume", data, by))

    async def reject(
        self, run_id: str, reason: str | None = None, *, interrupt: str, by: str = "code"
    ) -> AnswerOutcome:
        """Decline `interrupt`, as `run.reject(reason)` would."""
        return await self._answer(run_id, Answer(interrupt, "reject", reason, by))

    async def respond(
        self, run_id: str, words: str, *, interrupt: str, by: str = "code"
    ) -> AnswerOutcome:
        """Answer `interrupt` in words instead of running it, as `run.respond` would."""
        return await self._answer(run_id, Answer(interrupt, "respond", words, by))

    async def _answer(self, run_id: str, answer: Answer) -> AnswerOutcome:
        try:
            done: AnswerOutcome = await self.handle(run_id).execute_update(
                ANSWER, answer, id=update_id(answer), result_type=AnswerOutcome
            )
            return done
        except WorkflowUpdateFailedError as failed:
            raise typed(failed.cause) from failed
        except RPCError as failed:
            if failed.status == RPCStatusCode.NOT_FOUND:  # ended, or never started
                raise NoPendingInterruptError(
                    f"Run {run_id!r} waits on no answer: its workflow has ended or was "
                    f"never started ({failed.message})."
                ) from failed
            raise


def update_id(answer: Answer) -> str:
    """The Update's id: the interrupt's and a digest of the answer, so the same answer
    sent twice (a retry) is one Update, and an answer refused by the run's checks does not
    stand in the way of a corrected one."""
    text = json.dumps([answer.kind, answer.data, answer.by], sort_keys=True, default=str)
    return f"answer-{answer.interrupt_id}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def typed(cause: BaseException | None) -> BaseException:
    """The pausepoint error a refused Update carries, raised as its own class."""
    while isinstance(cause, ActivityError):
        cause = cause.cause
    if not isinstance(cause, ApplicationError):
        return cause or PausepointError("The answer was refused.")
    message = cause.message
    if cause.type == "InvalidResolutionError":
        found = cause.details[0] if cause.details else []
        problems = [
            ResolutionProblem(str(p["path"]), str(p["message"]), str(p.get("code", "")))
            for p in found
            if isinstance(p, Mapping)
        ]
        return InvalidResolutionError(problems, summary=message.split(":\n", 1)[0])
    kind = getattr(errors, cause.type or "", None)
    if isinstance(kind, type) and issubclass(kind, PausepointError):
        error = kind.__new__(kind)
        Exception.__init__(error, message)
        return error
    return UsageError(message)


def temporal_worker(
    client: Client,
    task_queue: str,
    agents: Agent | Mapping[str, Agent],
    store: RunStore,
    **options: Any,
) -> TemporalWorker:
    """A Temporal worker that executes `agents`' runs of `store` for `task_queue`
    (`options` go to `temporalio.worker.Worker`). Run it with `await worker.run()`."""
    activities = Activities(store, agents)
    options.setdefault("workflow_runner", sandbox())
    return TemporalWorker(
        client,
        task_queue=task_queue,
        workflows=[RunWorkflow],
        activities=[activities.stretch, activities.answer],
        **options,
    )


def sandbox() -> SandboxedWorkflowRunner:
    """The sandbox `RunWorkflow` runs in (and is replayed in: `Replayer(workflows=
    [RunWorkflow], workflow_runner=sandbox())`): Temporal's, with pausepoint passed through,
    since the workflow only uses its small outcome types."""
    return SandboxedWorkflowRunner(
        restrictions=SandboxRestrictions.default.with_passthrough_modules("pausepoint")
    )
