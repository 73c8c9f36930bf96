"""Which saved transcript versions this pausepoint reads, and how older ones are upgraded.

A saved Prompt carries `schema_version`. Loading one written by a newer pausepoint is
refused (its meaning may have changed); one written by an older pausepoint is upgraded
step by step through `MIGRATIONS` before it is read. To change the transcript format:
bump `SCHEMA_VERSION` and register a function that turns a version ``N - 1`` dict into a
version ``N`` dict::

    def _add_attempts(data: dict[str, Any]) -> dict[str, Any]:
        ...
        return data

    MIGRATIONS[1] = _add_attempts      # reads version 1, returns version 2
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import UnsupportedSchemaVersionError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SUPPORTED_SCHEMA_VERSIONS", "migrate"]

SCHEMA_VERSION = 7
"""The version this pausepoint writes."""

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _add_timing(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2 records when each model request and action ran (`AssistantMessage.call`,
    `ToolCall.started_at` / `ended_at`) and a fork's parent (`Prompt.parent`). A version-1
    transcript has none of it: the new fields are written as unknown."""
    items = data.get("items")
    if isinstance(items, list):
        upgraded: list[Any] = []
        for item in items:
            if isinstance(item, dict) and item.get("type") == "assistant":
                item = {**item, "call": None}
            elif isinstance(item, dict) and item.get("type") == "tool":
                item = {**item, "started_at": None, "ended_at": None}
            upgraded.append(item)
        data["items"] = upgraded
    data["parent"] = None
    data["model_pause"] = None
    return data


def _add_who(data: dict[str, Any]) -> dict[str, Any]:
    """Version 3 records who gave each answer (`by` on a resolution) and a call the person
    answered in words instead of running it (status ``responded``). A version-2 transcript
    reads as it is: who answered is unknown."""
    return data


def _add_set_aside(data: dict[str, Any]) -> dict[str, Any]:
    """Version 4 records a turn set aside by Retry (`AssistantMessage.set_aside`). A
    version-3 transcript has none: it reads as it is."""
    return data


def _add_fork_points(data: dict[str, Any]) -> dict[str, Any]:
    """Version 5 records forks made at a tool call or a model turn (`ForkOrigin`'s
    `tool_call_id`, `turn` and `edited`). A version-4 fork was made at an interrupt: it
    reads as it is."""
    return data


def _add_agui_runs(data: dict[str, Any]) -> dict[str, Any]:
    """Version 6 records the AG-UI request that carried each pause
    (`InterruptEntry.agui_run_id`). A version-5 transcript has none: it reads as it is."""
    return data


def _add_owner(data: dict[str, Any]) -> dict[str, Any]:
    """Version 7 records who started a served run (`Prompt.owner`). A version-6
    transcript has no owner: it reads as it is."""
    return data


MIGRATIONS: dict[int, Migration] = {
    1: _add_timing,
    2: _add_who,
    3: _add_set_aside,
    4: _add_fork_points,
    5: _add_agui_runs,
    6: _add_owner,
}
"""Upgrades by the version they read: ``MIGRATIONS[n]`` turns a version-n dict into n + 1."""


def supported_versions() -> tuple[int, ...]:
    """Every version this pausepoint reads: the current one and those it can upgrade."""
    found = [SCHEMA_VERSION]
    version = SCHEMA_VERSION - 1
    while version in MIGRATIONS:
        found.append(version)
        version -= 1
    return tuple(sorted(found))


SUPPORTED_SCHEMA_VERSIONS = supported_versions()
"""The versions this pausepoint reads."""


def migrate(data: Any) -> Any:
    """A saved transcript's dict, upgraded to `SCHEMA_VERSION`; anything else unchanged.

    Raises `UnsupportedSchemaVersionError` (naming both versions) for a version newer than
    this pausepoint's, and for a version that no chain of migrations reaches.
    """
    if not isinstance(data, dict) or "schema_version" not in data:
        return data
    version = data["schema_version"]
    if version == SCHEMA_VERSION and type(version) is int:
        return data
    if type(version) is not int or version > SCHEMA_VERSION:
        raise UnsupportedSchemaVersionError(version, supported_versions())
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise UnsupportedSchemaVersionError(data["schema_version"], supported_versions())
        data = step(dict(data))
        version += 1
        data["schema_version"] = version
    return data
