"""The ids a stateless server gives its pauses: each id carries, sealed, what the server
needs to rebuild the pause when a client answers it.

A client such as TanStack AI's sends back the conversation and, for each pause, only its
id and the answer (`state` comes back empty). The conversation tells which tool calls
wait; it cannot tell what a call's action asked, the checkpoint it kept, the schema the
answer must meet, or which AG-UI request carried the pause. So the id holds them: the
tool call record as it was when it paused (its arguments, every pause it made, the new
one without its id), and the request's `runId`, compressed and sealed with an HMAC under
the server's secret over the thread id too. A client can copy an id, never make or change
one, and an id answers only its own call, in its own thread, for the request that
carried it, from the caller it was given to (when the server names its callers).

    int.<base64url(zlib(JSON))>.<base64url(HMAC-SHA256)[:22]>
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import zlib
from dataclasses import dataclass
from typing import Any

from ..transcript import InterruptEntry, ToolCall

__all__ = ["PREFIX", "PauseIds", "SealedPause"]

PREFIX = "int."
_MAC_CHARS = 22  # 132 bits of the HMAC
_LONG = 40  # an earlier pause's id longer than this is shortened inside a later id


@dataclass(frozen=True, slots=True)
class SealedPause:
    """What a pause id says: the AG-UI run that carried the pause, and the tool call
    record as it paused (a JSON dict; its latest entry is the pause, named by the id)."""

    run_id: str
    record: dict[str, Any]


class PauseIds:
    """Names the pauses of one thread (`name`) and reads those names back (`read`)."""

    def __init__(self, key: bytes, thread_id: str, caller: str | None = None) -> None:
        self._key = key
        self._scope = json.dumps([thread_id, caller]).encode("ascii")

    def name(self, run_id: str, record: ToolCall, entry: InterruptEntry) -> str:
        """The id of `entry`, a new pause of `record` raised under AG-UI run `run_id`."""
        dumped = record.model_dump(mode="json")
        dumped["interrupts"] = [_short(e) for e in dumped["interrupts"]]
        new = entry.model_dump(mode="json", exclude={"id", "agui_run_id", "resolution"})
        dumped["interrupts"].append(new)
        text = json.dumps({"r": run_id, "c": dumped}, separators=(",", ":"), ensure_ascii=False)
        body = _b64(zlib.compress(text.encode("utf-8", "surrogatepass")))
        return f"{PREFIX}{body}.{self._mac(body)}"

    def read(self, interrupt_id: str) -> SealedPause | None:
        """The pause `interrupt_id` names, or None when it is not an id this server gave
        in this thread (not of this form, or its seal does not match)."""
        if not interrupt_id.startswith(PREFIX):
            return None
        body, dot, mac = interrupt_id[len(PREFIX) :].rpartition(".")
        if not dot or not hmac.compare_digest(self._mac(body).encode(), mac.encode()):
            return None
        try:
            raw = json.loads(
                zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            )
        except (binascii.Error, zlib.error, ValueError):
            return None
        if not isinstance(raw, dict) or not isinstance(raw.get("c"), dict):
            return None
        record: dict[str, Any] = raw["c"]
        entries = record.get("interrupts")
        if not isinstance(raw.get("r"), str) or not isinstance(entries, list) or not entries:
            return None
        entries[-1] = {**entries[-1], "id": interrupt_id, "agui_run_id": raw["r"]}
        return SealedPause(raw["r"], record)

    def _mac(self, body: str) -> str:
        digest = hmac.new(self._key, self._scope + b"\n" + body.encode(), hashlib.sha256)
        return _b64(digest.digest())[:_MAC_CHARS]


def _short(entry: dict[str, Any]) -> dict[str, Any]:
    """An earlier pause inside a later id: its own id (itself a sealed id) by a digest, so
    ids do not nest and grow with each pause of the call."""
    given = entry["id"]
    if len(given) <= _LONG:
        return entry
    return {**entry, "id": "int_" + hashlib.sha256(given.encode()).hexdigest()[:16]}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")
