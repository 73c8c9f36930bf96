"""What a `RemoteRun` holds a served agent's stream to: `RemoteLimits`.

The agent at the other end may be anyone's. Each limit bounds what one stream can make
this client hold or wait for; past one, the stream is closed and the run ends `failed`
with a `RemoteLimitError` naming the field to raise.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import RemoteLimitError, UsageError

__all__ = ["RemoteLimits", "count_event"]

MiB = 1024 * 1024


@dataclass(frozen=True)
class RemoteLimits:
    """The bounds of one followed stream::

        RemoteRun(url, limits=RemoteLimits(max_event_bytes=64 * MiB, idle_timeout=900))

    - `max_event_bytes`: the largest event (its `data`, as sent), refused as soon as
      more of it has arrived, before the rest is read;
    - `max_stream_bytes`: all the bytes one request's answer may hold;
    - `max_events`: the events one request's answer may hold;
    - `keep_events`: how many of the latest events `remote.events` keeps (older ones are
      dropped; the transcript keeps what they said);
    - `idle_timeout`: seconds the server may send nothing at all (no event, no comment)
      before the stream is closed.
    """

    max_event_bytes: int = 16 * MiB
    max_stream_bytes: int = 256 * MiB
    max_events: int = 100_000
    keep_events: int = 10_000
    idle_timeout: float = 300.0

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise UsageError(
                    f"RemoteLimits.{field.name} must be a positive number, not {value!r}."
                )


def count_event(count: int, limits: RemoteLimits, sender: str) -> int:
    """One more event of an answer: its number, or `RemoteLimitError` past `max_events`
    (`sender`, "The server" or "The agent", is who sent too many)."""
    count += 1
    if count > limits.max_events:
        raise RemoteLimitError(
            "max_events",
            limits.max_events,
            f"{sender} sent more than {limits.max_events:,} events in one answer",
        )
    return count
