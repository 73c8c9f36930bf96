"""Stored runs scheduled by Temporal (`pip install 'pausepoint[temporal]'`).

The transcript stays in pausepoint's store (SQLite or PostgreSQL); Temporal schedules:
one workflow per run (workflow id = run id) executes the run's stretches as activities on
the workers of a task queue, retries them when a worker dies, and waits between them for
the answers people give, sent as Workflow Updates and checked by the run's own checks.
See docs/temporal.md."""

from __future__ import annotations

try:
    import temporalio  # noqa: F401
except ImportError as missing:  # pragma: no cover - depends on what is installed
    from ..errors import MissingDependencyError

    raise MissingDependencyError(
        "pausepoint.temporal needs temporalio: pip install 'pausepoint[temporal]'."
    ) from missing

from ._activities import Activities
from ._attached import TemporalRun
from ._dev_server import DevServer, temporal_cli
from ._runner import TemporalRunner, sandbox, temporal_worker
from ._shared import Answer, AnswerOutcome, RunInput, StretchOutcome
from ._workflow import RETRY, RunWorkflow

__all__ = [
    "RETRY",
    "Activities",
    "Answer",
    "AnswerOutcome",
    "DevServer",
    "RunInput",
    "RunWorkflow",
    "StretchOutcome",
    "TemporalRun",
    "TemporalRunner",
    "sandbox",
    "temporal_cli",
    "temporal_worker",
]
