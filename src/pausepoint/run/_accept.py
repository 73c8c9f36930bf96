"""Checking an answer against the pause it answers and the action it resumes, before
anything is recorded: the run's side of answering (the wire package only reads answers)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from pydantic import BaseModel, JsonValue, ValidationError

from pausepoint._json import check_text, json_path, json_size, to_json_value
from pausepoint._response_schema import answer_validator, check_response_schema
from pausepoint.actions import Action, Rejection
from pausepoint.errors import (
    AnswerTooLargeError,
    InvalidRejectionError,
    InvalidResolutionError,
    InvalidResponseSchemaError,
    ResolutionProblem,
)
from pausepoint.transcript import ErrorInfo, InterruptEntry

from ..transcript.decisions import (
    DEFAULT_REJECTION_MESSAGE,
    parse_approval,
    parse_breakpoint_answer,
)

__all__ = [
    "DEFAULT_MAX_ANSWER_BYTES",
    "accept_answer",
    "as_error_info",
    "check_answer",
]

DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024
"""The largest answer accepted by default: 1 MiB of compact UTF-8 JSON."""


def accept_answer(
    entry: InterruptEntry,
    data: Any,
    *,
    action: Action | None,
    response_model: type[BaseModel] | None = None,
    max_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    what: str = "The resume data",
) -> JsonValue:
    """The answer as it will be recorded, once it passes every check; raises otherwise.

    `NotJSONError` when it is not JSON (see `pausepoint._json`), `AnswerTooLargeError`
    beyond `max_bytes` of compact JSON, `InvalidResolutionError` when it does not answer
    `entry`. Nothing is recorded here.
    """
    value = to_json_value(data, what)
    size = json_size(value)
    if size > max_bytes:
        raise AnswerTooLargeError(size, max_bytes)
    check_answer(entry, value, action=action, response_model=response_model)
    return value


def check_answer(
    entry: InterruptEntry,
    data: JsonValue,
    *,
    action: Action | None,
    response_model: type[BaseModel] | None = None,
) -> None:
    """Raise `InvalidResolutionError` when `data` does not answer `entry`; else return."""
    if entry.kind == "breakpoint":
        _, args = parse_breakpoint_answer(data)
        if args is not None and action is not None:
            try:
                action.validate_input(args)
            except ValidationError as exc:
                raise InvalidResolutionError(
                    [
                        ResolutionProblem(
                            json_path(err["loc"], "$.args"), err["msg"], "invalid-edited-args"
                        )
                        for err in exc.errors()
                    ],
                    summary=f"The edited arguments do not fit {action.name}'s input",
                ) from None
        return
    if entry.kind == "tool-approval":
        answer = parse_approval(data)
        if answer.edited_args is not None and action is not None:
            try:
                action.validate_input(answer.edited_args)
            except ValidationError as exc:
                raise InvalidResolutionError(
                    [
                        ResolutionProblem(
                            json_path(err["loc"], "$.editedArgs"),
                            err["msg"],
                            "invalid-edited-args",
                        )
                        for err in exc.errors()
                    ],
                    summary=f"The edited arguments do not fit {action.name}'s input",
                ) from None
        return
    if response_model is not None:
        try:
            # Strict JSON validation: the same answers pass as against the recorded JSON
            # Schema after a restore ("45" is not an integer in either).
            response_model.model_validate_json(json.dumps(data), strict=True)
        except ValidationError as exc:
            raise InvalidResolutionError(
                [ResolutionProblem(json_path(err["loc"], "$"), err["msg"]) for err in exc.errors()]
            ) from None
    if entry.response_schema is not None:
        try:
            # Already checked at the raise or the load, so usually remembered; an entry
            # written around both still gets an error rather than a crash in the check.
            check_response_schema(entry.response_schema)
        except InvalidResponseSchemaError as exc:
            raise InvalidResolutionError(
                [
                    ResolutionProblem(
                        "$", f"the response schema cannot be used: at {exc.path}, {exc.reason}"
                    )
                ],
                summary="This interrupt's response schema is broken; reject it instead",
            ) from None
        # Also for a pydantic model: the formats the browser checks are in its JSON Schema.
        validator = answer_validator(entry.response_schema)
        problems = [p for error in validator.iter_errors(data) for p in _problems(error)]
        if problems:
            raise InvalidResolutionError(sorted(problems, key=lambda p: p.path))


def _problems(error: jsonschema.ValidationError) -> list[ResolutionProblem]:
    """One problem per field: a missing or unexpected key is reported at its own path."""
    instance, expected, schema = error.instance, error.validator_value, error.schema
    if error.validator == "required" and isinstance(instance, dict) and isinstance(expected, list):
        missing = [k for k in expected if k not in instance]
        return [
            ResolutionProblem(json_path([*error.absolute_path, k]), "Field required")
            for k in missing
        ]
    if (
        error.validator == "additionalProperties"
        and isinstance(instance, dict)
        and isinstance(schema, dict)
    ):
        allowed = set(schema.get("properties", {}))
        extra = [k for k in instance if k not in allowed]
        if extra:
            return [
                ResolutionProblem(
                    json_path([*error.absolute_path, k]), "Extra inputs are not permitted"
                )
                for k in extra
            ]
    return [ResolutionProblem(json_path(error.absolute_path), error.message)]


def as_error_info(
    error: Rejection | ErrorInfo | str | dict[str, Any] | None,
    *,
    max_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
) -> ErrorInfo:
    """The `{name, message}` a rejection records, from any of the accepted forms.

    A rejection is an answer too: beyond `max_bytes` of compact JSON it is refused with
    `AnswerTooLargeError`, as `resume` refuses an answer that large."""
    info = _error_info(error)
    size = json_size(info.model_dump())
    if size > max_bytes:
        raise AnswerTooLargeError(size, max_bytes)
    return info


def _error_info(error: Rejection | ErrorInfo | str | dict[str, Any] | None) -> ErrorInfo:
    if error is None:
        return ErrorInfo(name="Rejected", message=DEFAULT_REJECTION_MESSAGE)
    if isinstance(error, str):
        return ErrorInfo(name="Rejected", message=check_text(error, "The rejection message"))
    if isinstance(error, Rejection | ErrorInfo):
        return ErrorInfo(
            name=check_text(error.name, "The rejection name"),
            message=check_text(error.message, "The rejection message"),
        )
    if isinstance(error, dict):
        for key in ("name", "message"):
            if isinstance(error.get(key), str):
                check_text(error[key], f"The rejection {key}")
        try:
            return ErrorInfo.model_validate({"name": "Rejected", **error})
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(part) for part in first["loc"]) or "(root)"
            raise InvalidRejectionError(
                f"A rejection dict has a string 'message' (and optionally a string 'name'); "
                f"{key!r}: {first['msg']}."
            ) from None
    raise InvalidRejectionError(
        "reject() takes a Rejection(name=..., message=...), a message string, a "
        f"{{'name', 'message'}} dict or nothing, not {type(error).__name__}."
    )
