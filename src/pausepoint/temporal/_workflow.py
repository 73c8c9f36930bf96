"""`RunWorkflow`: one per stored run, workflow id = run id. It schedules the run's
stretches as activities and waits, between them, for the answers people give as Workflow
Updates. Its history holds ids and small outcomes only: the transcript stays in the store.

Workflow code must replay the same way from its history, so it only awaits activities,
timers and conditions; everything that touches the store is in the activities."""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy, SearchAttributeKey
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from ..errors import UsageError
    from ._shared import Answer, AnswerOutcome, RunInput, Stretch, StretchOutcome

__all__ = ["ANSWER", "RETRY", "STATUS", "RunWorkflow"]

ANSWER = "answer"
"""The Update that answers one interrupt."""
STATUS = "status"
"""The query that says where the run stands."""

RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=0,  # until it succeeds: a stretch that fails ends the run "failed"
    non_retryable_error_types=["RunNotFoundError", "UsageError", "StoreError"],
)
"""How a stretch is tried again after its worker died or raised (a store it could not
reach, say), until it succeeds. What pausepoint raises about the run itself (an unknown
run, a store that cannot read it, a usage error) is not tried again. The run's lease keeps
a stale attempt from committing; an action cut short runs again as a new attempt
(`ctx.attempt`). A run that fails (its model, a limit) is no error here: the stretch
returns it "failed"."""

STRETCH_TIMEOUT = timedelta(hours=24)
HEARTBEAT_TIMEOUT = timedelta(seconds=10)
ANSWER_TIMEOUT = timedelta(seconds=10)
"""An answer's commit is one short write: a worker that died while committing one is
found out this soon, and another commits it."""
WAITING = ("interrupted", "paused")


@workflow.defn(name="PausepointRun")
class RunWorkflow:
    def __init__(self) -> None:
        self._status = "idle"
        self._pending: list[str] = []
        self._stretching = False
        self._go_on = False
        self._agent: str | None = None
        self._attribute: str | None = None
        self._expires: str | None = None

    @workflow.run
    async def run(self, given: RunInput) -> StretchOutcome:
        self._agent = given.agent
        self._attribute = given.status_attribute
        while True:
            self._stretching = True
            self._go_on = False
            outcome: StretchOutcome = await workflow.execute_activity(
                "pausepoint_stretch",
                Stretch(given.run_id, given.agent),
                result_type=StretchOutcome,
                start_to_close_timeout=STRETCH_TIMEOUT,
                heartbeat_timeout=HEARTBEAT_TIMEOUT,
                retry_policy=RETRY,
            )
            self._status, self._pending = outcome.status, list(outcome.pending)
            self._expires = outcome.expires_at
            self._stretching = False
            self._mark()
            if outcome.status not in WAITING:
                return outcome
            await self._wait(outcome.expires_at)
            if workflow.info().get_current_history_length() >= given.continue_after:
                # Each pause adds some 17 events: a run answered for months starts a
                # fresh history (the run itself is in the store), once no answer is
                # still being handled.
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(given)

    async def _wait(self, expires_at: str | None) -> None:
        """Until every pause has its answer, or (when they all expire) their expiry: the
        next stretch then declines them as expired."""
        timeout: timedelta | None = None
        if expires_at is not None:
            left = datetime.fromisoformat(expires_at) - workflow.now()
            timeout = max(left, timedelta(0)) + timedelta(seconds=1)
        with contextlib.suppress(TimeoutError):
            await workflow.wait_condition(lambda: self._go_on, timeout=timeout)

    def _mark(self) -> None:
        if self._attribute is not None:
            key = SearchAttributeKey.for_keyword(self._attribute)
            workflow.upsert_search_attributes([key.value_set(self._status)])

    @workflow.query(name=STATUS)
    def status(self) -> StretchOutcome:
        return StretchOutcome(self._status, list(self._pending), expires_at=self._expires)

    @workflow.update(name=ANSWER)
    async def answer(self, answer: Answer) -> AnswerOutcome:
        # An answer that arrives while a stretch is ending waits for it to end.
        await workflow.wait_condition(lambda: not self._stretching)
        if answer.interrupt_id not in self._pending:
            raise ApplicationError(
                f"Run {workflow.info().workflow_id!r} waits on no interrupt "
                f"{answer.interrupt_id!r} (waiting on: {', '.join(self._pending) or 'none'}).",
                type="NoPendingInterruptError",
                non_retryable=True,
            )
        try:
            committed: AnswerOutcome = await workflow.execute_activity(
                "pausepoint_answer",
                args=[workflow.info().workflow_id, self._agent, answer],
                result_type=AnswerOutcome,
                start_to_close_timeout=ANSWER_TIMEOUT,
                retry_policy=RetryPolicy(maximum_attempts=5),
            )
        except ActivityError as failed:
            refused = failed.cause
            if isinstance(refused, ApplicationError):  # the run's checks refused it
                raise ApplicationError(
                    refused.message, *refused.details, type=refused.type, non_retryable=True
                ) from None
            raise
        self._status, self._pending = committed.status, list(committed.pending)
        self._mark()
        if committed.status == "idle":
            self._go_on, self._expires = True, None
        return committed

    @answer.validator
    def _check(self, answer: Answer) -> None:
        if not isinstance(answer.interrupt_id, str) or not answer.interrupt_id:
            raise UsageError("An answer names the interrupt it answers (interrupt_id).")
        if answer.kind not in ("resume", "reject", "respond"):
            raise UsageError(f"An answer is resume, reject or respond, not {answer.kind!r}.")
