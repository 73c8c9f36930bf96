"""Errors a model endpoint can cause, each saying what to check next.

They do not depend on any provider package, so they can be caught (and exported) even
when the optional `openai` dependency is not installed::

    try:
        response = await model.request(request)
    except ModelAuthenticationError as exc:
        print(exc)  # "... Check OPENAI_API_KEY or pass api_key=... ."

A run that hits one of them ends with status ``failed``; its `result.error.name` is the
class name (e.g. ``"ModelRateLimitError"``) and calling `run()` again retries.
"""

from __future__ import annotations

from ._core import PausepointError

__all__ = [
    "ModelAuthenticationError",
    "ModelBadRequestError",
    "ModelConfigurationError",
    "ModelConnectionError",
    "ModelError",
    "ModelRateLimitError",
    "ModelServerError",
    "ModelTimeoutError",
    "ReplayDivergedError",
    "ScriptExhaustedError",
]


class ModelError(PausepointError):
    """A model endpoint could not answer.

    `status_code` is the HTTP status when there was a response, `retryable` tells whether
    trying again later may help, and `attempts` is how many requests were made.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        retryable: bool = False,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.retryable = retryable
        self.attempts = attempts


class ModelConfigurationError(ModelError, ValueError):
    """The model is missing a setting it needs (a model name, an API key)."""


class ModelAuthenticationError(ModelError):
    """The endpoint refused the credentials (HTTP 401 or 403)."""


class ModelBadRequestError(ModelError):
    """The endpoint refused the request itself (HTTP 400, 404, 422...): retrying won't help."""


class ModelRateLimitError(ModelError):
    """The endpoint kept answering HTTP 429 (too many requests, or out of quota)."""


class ModelServerError(ModelError):
    """The endpoint kept failing with HTTP 5xx."""


class ModelConnectionError(ModelError):
    """No answer arrived: the server could not be reached or dropped the connection."""


class ModelTimeoutError(ModelConnectionError):
    """The endpoint did not answer within the timeout."""


class ReplayDivergedError(PausepointError):
    """The run asked the model something the recording did not: its transcript so far
    differs from the recorded one, or it asked for more turns than were recorded."""


class ScriptExhaustedError(PausepointError):
    """The model was asked for more turns than its script has."""
