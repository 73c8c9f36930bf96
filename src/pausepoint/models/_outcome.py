"""A tool call's outcome as the text a model reads: one wording for every adapter."""

from __future__ import annotations

import json

from ..transcript import ToolCall

__all__ = ["outcome_text"]


def outcome_text(record: ToolCall) -> str:
    """What a model reads as a tool call's outcome, in words: the result (a text as it is,
    anything else as JSON), the person's words in place of running it, or why there is no
    result (failed, declined, cancelled). Adapters and the AG-UI stream send the same."""
    if record.status == "succeeded":
        if isinstance(record.result, str):
            return record.result
        return json.dumps(record.result, ensure_ascii=False)
    if record.status == "responded":
        return f"Not run: instead, the person said: {record.result}"
    error = record.error
    reason = f"{error.name}: {error.message}" if error else "no reason given"
    if record.status == "failed":
        return f"Error. {reason}"
    if record.status == "rejected":
        return f"Not done: a person declined this call. {reason}"
    if record.status == "cancelled":
        return f"Cancelled: the run was stopped. {reason}"
    # The loop only asks the model once every call has settled; this keeps the wire
    # format valid (each tool call needs an answer) should an unsettled one slip through.
    return f"No result yet: the call is {record.status}."
