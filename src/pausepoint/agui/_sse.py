"""Reading a server-sent event stream: the `data` of each event, as the bytes arrive,
never holding more of one event than a bound."""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, AsyncIterator

__all__ = ["EventTooLarge", "sse_data"]

_LINE_END = re.compile(rb"\r\n|\r|\n")


class EventTooLarge(ValueError):
    """An event's data (or one line of it) grew past the bound before it ended."""


async def sse_data(chunks: AsyncIterable[bytes], *, max_event_bytes: int) -> AsyncIterator[str]:
    """The data of each event in `chunks` (the stream's bytes, as read), its `data:` lines
    joined with newlines as the standard says. Lines end with CRLF, LF or CR; comments
    (lines starting with `:`) and the other fields (`event`, `id`, `retry`) are skipped;
    an event with no data line yields nothing. An event whose data, with the line still
    arriving, passes `max_event_bytes` raises `EventTooLarge` without reading further."""
    pending = bytearray()
    data: list[bytes] = []
    size = 0
    async for chunk in chunks:
        searched = max(len(pending) - 1, 0)  # a CR at the end may be half of a CRLF
        pending += chunk
        start = 0
        for match in _LINE_END.finditer(pending, searched):
            if match.group() == b"\r" and match.end() == len(pending):
                break  # wait for the next chunk: it may start with the LF
            line = bytes(pending[start : match.start()])
            start = match.end()
            if not line:
                if data:
                    yield b"\n".join(data).decode("utf-8", "replace")
                    data, size = [], 0
                continue
            field, _, value = line.partition(b":")
            if field == b"data":
                value = value[1:] if value.startswith(b" ") else value
                data.append(value)
                size += len(value) + 1
                if size > max_event_bytes:
                    raise EventTooLarge(size)
        del pending[:start]
        if size + len(pending) > max_event_bytes:
            raise EventTooLarge(size + len(pending))
    if pending:
        field, _, value = bytes(pending).partition(b":")
        if field == b"data":
            data.append(value[1:] if value.startswith(b" ") else value)
    if data:  # a stream that ends without the closing blank line
        yield b"\n".join(data).decode("utf-8", "replace")
