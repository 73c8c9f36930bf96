"""The exception hierarchy: everything pausepoint raises derives from `PausepointError`.

Each message says what happened and what to do next. Errors raised by a refused call
are raised before anything is recorded: the transcript is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ActionTimeoutError",
    "AnswerTooLargeError",
    "ForkMovedOnError",
    "InterruptAlreadyResolvedError",
    "InterruptExpiredError",
    "InterruptWireError",
    "InvalidRejectionError",
    "InvalidResolutionError",
    "InvalidResponseSchemaError",
    "InvalidTranscriptError",
    "MaxTurnsExceededError",
    "MissingDependencyError",
    "NoPendingInterruptError",
    "NotJSONError",
    "PausepointError",
    "RemoteLimitError",
    "RemoteProtocolError",
    "ResolutionProblem",
    "ResumeBatchError",
    "ResumeItemError",
    "RunBusyError",
    "RunStateError",
    "RunSuspendedError",
    "ServerStartError",
    "TranscriptProblem",
    "UnansweredInterruptError",
    "UnknownInterruptError",
    "UnsupportedSchemaVersionError",
    "UsageError",
]


class PausepointError(Exception):
    """Base class of every error pausepoint raises."""


class UsageError(PausepointError, TypeError, ValueError):
    """pausepoint was called in a way it does not support: an argument of the wrong type
    or value, or a call made where it cannot work. Fix the call; nothing was changed.

    It is also a `TypeError` and a `ValueError`, so code written against the built-in
    errors keeps catching it.
    """


class NotJSONError(PausepointError, TypeError):
    """A value that must travel as JSON (interrupt data, checkpoints, answers) is not JSON.

    `path` points at the offending part, e.g. ``$.items[2]``.
    """

    def __init__(self, what: str, path: str, reason: str) -> None:
        self.what = what
        self.path = path
        self.reason = reason
        super().__init__(
            f"{what} must be JSON-compatible (dict with str keys, list, str, int, float, "
            f"bool or None), but {path} is {reason}. Convert it before passing it, e.g. "
            f"with model.model_dump(mode='json')."
        )


class RunStateError(PausepointError):
    """The run is not in a state that allows this call."""


class RunSuspendedError(RunStateError):
    """`run()` was called while the run waits on an interrupt."""


class RunBusyError(RunStateError):
    """The run is already executing; a second concurrent call was refused."""


class NoPendingInterruptError(RunStateError):
    """`resume` / `reject` was called but nothing is pending."""


class UnknownInterruptError(RunStateError):
    """An interrupt id was given that is not pending in this run, or several are pending."""


class InterruptAlreadyResolvedError(RunStateError):
    """The interrupt was answered already (double click, a second view, a stale form)."""


class InterruptExpiredError(RunStateError):
    """The interrupt's `expires_at` has passed; it can no longer be answered."""


class ForkMovedOnError(RunStateError):
    """A fork's items were to be edited after it had asked the model again."""


class InterruptWireError(PausepointError, ValueError):
    """A wire object (interrupt descriptor, resume entry) lacks a field it must have."""


class InvalidRejectionError(UsageError):
    """`reject()` was given something that is not a rejection."""


@dataclass(frozen=True, slots=True)
class ResolutionProblem:
    """One reason an answer was refused: a JSON path into the answer and a message."""

    path: str
    message: str
    code: str = "invalid-payload"


class InvalidResolutionError(PausepointError, ValueError):
    """An answer does not satisfy what the interrupt asked for. Nothing was recorded."""

    def __init__(self, problems: Sequence[ResolutionProblem], *, summary: str = "") -> None:
        self.problems = tuple(problems)
        lines = [f"  {p.path}: {p.message}" for p in self.problems]
        head = summary or "The answer does not match what the interrupt asks for"
        super().__init__(
            head + ":\n" + "\n".join(lines) + "\nFix the answer and call again; "
            "nothing was recorded."
        )


ResumeErrorCode = Literal[
    "conflict",
    "unknown-interrupt",
    "incomplete-batch",
    "stale",
    "expired",
    "invalid-payload",
    "invalid-edited-args",
    "invalid-response-schema",
]


@dataclass(frozen=True, slots=True)
class ResumeItemError:
    """Why one entry of a resume batch was refused (`interrupt_id` None: the whole batch)."""

    code: ResumeErrorCode
    message: str
    interrupt_id: str | None = None
    path: str | None = None


class ResumeBatchError(PausepointError, ValueError):
    """A batch of AG-UI resume entries was refused; nothing of it was applied."""

    def __init__(self, errors: Sequence[ResumeItemError]) -> None:
        self.errors = tuple(errors)
        lines = [
            f"  [{e.code}] {e.interrupt_id or '(batch)'}"
            + (f" at {e.path}" if e.path else "")
            + f": {e.message}"
            for e in self.errors
        ]
        super().__init__(
            "The resume batch was refused and nothing was applied:\n"
            + "\n".join(lines)
            + "\nSend one entry per pending interrupt, each answering it as its schema asks."
        )

    @property
    def codes(self) -> list[str]:
        return [e.code for e in self.errors]


class MissingDependencyError(PausepointError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class RemoteLimitError(PausepointError):
    """A served agent's stream went past one of the bounds a `RemoteRun` holds it to
    (`RemoteLimits`): an event or a stream too large, too many events, or a server silent
    for too long. The stream was closed and the run ended `failed` with this error.

    `limit` names the `RemoteLimits` field, `value` its setting; the message says how to
    raise it.
    """

    def __init__(self, limit: str, value: float, what: str) -> None:
        self.limit = limit
        self.value = value
        shown = f"{value:,}" if isinstance(value, int) else f"{value:g}"
        super().__init__(
            f"{what} (RemoteLimits.{limit} = {shown}); the stream was closed. If the server "
            f"is right to, raise it: RemoteRun(url, limits=RemoteLimits({limit}=...))."
        )


class RemoteProtocolError(PausepointError, ValueError):
    """A served agent sent an event a `RemoteRun` refuses: a run of another thread, a
    tool call id it already used, an interrupt whose binding names another request.

    The event changed nothing; the stream was closed and the run ended `failed` with this
    error. `event` is the refused event's type.
    """

    def __init__(self, event: str, reason: str) -> None:
        self.event = event
        self.reason = reason
        super().__init__(
            f"The server sent a {event} this client refuses: {reason}. Nothing of it was "
            "recorded; the server is not speaking AG-UI as this client expects."
        )


class ServerStartError(PausepointError, OSError):
    """A server `pausepoint.agui.serve` started in the background did not come up (its
    port was taken, or it stopped while starting)."""


class InvalidResponseSchemaError(UsageError):
    """An `ActionInterrupt`'s response schema cannot be used: it is not a valid JSON Schema,
    a `$ref` points outside the schema or nowhere, or a `pattern` is not supported.

    Raised at the `ActionInterrupt(...)`, so the call fails before anything is recorded.
    `path` points into the schema, e.g. ``$.properties.email``.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"The response schema cannot be used: at {path}, {reason}")


class AnswerTooLargeError(InvalidResolutionError):
    """An answer is larger than the agent accepts (`Agent(max_answer_bytes=...)`)."""

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            [
                ResolutionProblem(
                    "$",
                    f"the answer is {size} bytes of JSON, more than the {limit} bytes this "
                    "agent accepts; send a smaller answer or raise Agent(max_answer_bytes=...)",
                    "invalid-payload",
                )
            ],
            summary="The answer is too large",
        )


@dataclass(frozen=True, slots=True)
class TranscriptProblem:
    """One reason a transcript was refused: where (e.g. ``items[3].interrupts[0].id``),
    what is wrong, and the name of the rule that found it."""

    path: str
    message: str
    rule: str


class InvalidTranscriptError(PausepointError):
    """A Prompt (usually a saved one being loaded) is inconsistent or malformed.

    `problems` lists each finding with its path. Nothing was loaded; fix or restore the
    file. Not a `ValueError` on purpose: pydantic passes it through unchanged.
    """

    def __init__(self, problems: Sequence[TranscriptProblem], *, summary: str = "") -> None:
        self.problems = tuple(problems)
        lines = [f"  {p.path}: {p.message}" for p in self.problems[:20]]
        if len(self.problems) > 20:
            lines.append(f"  ... and {len(self.problems) - 20} more")
        head = summary or "The transcript cannot be used"
        super().__init__(
            head + ":\n" + "\n".join(lines) + "\nNothing was loaded. Fix the saved transcript "
            "or load an earlier copy."
        )

    @property
    def path(self) -> str:
        """The path of the first problem."""
        return self.problems[0].path if self.problems else "$"


class UnsupportedSchemaVersionError(InvalidTranscriptError):
    """A saved Prompt has a `schema_version` this version of pausepoint cannot read."""

    def __init__(self, found: object, supported: Sequence[int]) -> None:
        self.found = found
        self.supported = tuple(supported)
        newest = max(self.supported)
        if isinstance(found, int) and not isinstance(found, bool) and found > newest:
            advice = (
                f"it was saved by a newer pausepoint (schema version {found}; this one reads "
                f"up to {newest}). Upgrade pausepoint to load it"
            )
        else:
            advice = (
                f"schema version {found!r} is not one this pausepoint reads (supported: "
                f"{', '.join(map(str, self.supported))}) and no migration from it exists"
            )
        super().__init__(
            [TranscriptProblem("schema_version", advice, "schema-version")],
            summary="The transcript's schema version is not supported",
        )


class MaxTurnsExceededError(PausepointError):
    """The run asked the model `max_turns` times in one stretch without finishing.

    The run ends as `failed` with this error; the transcript is intact. Call
    `run.run(max_turns=...)` to continue it with a new allowance.
    """

    def __init__(self, max_turns: int) -> None:
        self.max_turns = max_turns
        super().__init__(
            f"The run asked the model {max_turns} times without finishing (max_turns="
            f"{max_turns}). Check that the model is not stuck calling tools, then continue "
            "with run.run(max_turns=<more>)."
        )


class ActionTimeoutError(PausepointError, TimeoutError):
    """An action ran longer than its `timeout`; the call is recorded as failed.

    The model sees this error as the call's result. A synchronous action keeps running in
    its worker thread (threads cannot be stopped), but its call is never started again.
    """


class UnansweredInterruptError(PausepointError):
    """A strict policy met an interrupt none of its rules answer. Add a rule for it
    (approve, reject or answers), or drive without strict=True to leave it pending."""
