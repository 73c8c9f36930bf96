"""A `RemoteRun` written to a file and read back: what this client knows of the run, each
field checked as it is read (the transcript by the rules every transcript obeys)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from ..errors import UsageError
from ..transcript import ErrorInfo, Prompt

__all__ = ["SAVED_FORMAT", "SavedRemoteRun", "read", "write"]

SAVED_FORMAT = "pausepoint.remote-run/1"


class SavedRemoteRun(BaseModel):
    """The file's content. Headers are never in it: they may hold secrets."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    format: Literal["pausepoint.remote-run/1"] = "pausepoint.remote-run/1"
    url: str
    forwarded_props: dict[str, JsonValue] = Field(default_factory=dict, alias="forwardedProps")
    prompt: Prompt
    messages: list[dict[str, JsonValue]] = Field(default_factory=list)
    state: JsonValue = None
    run_id: str | None = Field(default=None, alias="runId")
    heard: list[dict[str, JsonValue]] = Field(default_factory=list)
    """The interrupts the latest stretch ended with."""
    foreign: list[dict[str, JsonValue]] = Field(default_factory=list)
    """Those of them this client cannot answer."""
    unsent: dict[str, dict[str, JsonValue]] = Field(default_factory=dict)
    """Answers recorded here that did not reach the server, by interrupt id."""
    status: Literal["idle", "interrupted", "completed", "failed", "cancelled"] = "idle"
    error: ErrorInfo | None = None


def write(path: str | Path, saved: SavedRemoteRun) -> Path:
    target = Path(path)
    text = saved.model_dump_json(by_alias=True)
    target.write_text(text, encoding="utf-8")
    return target


def read(path: str | Path) -> SavedRemoteRun:
    """The saved run at `path`; `UsageError` saying what is wrong when it is not one
    (`InvalidTranscriptError` when its transcript breaks a transcript's rules)."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        return SavedRemoteRun.model_validate_json(text)
    except ValidationError as exc:
        where = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or '(the file)'}: {error['msg']}"
            for error in exc.errors()[:5]
        )
        raise UsageError(f"{path} is not a remote run saved by RemoteRun.save: {where}.") from None
