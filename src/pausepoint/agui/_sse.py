"""Reading a server-sent event stream: the `data` of each event, as the lines arrive."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

__all__ = ["sse_data"]


async def sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """The data of each event in `lines` (the stream's text, one line at a time, without
    line ends), its `data:` lines joined with newlines as the standard says. Comments
    (lines starting with `:`) and the other fields (`event`, `id`, `retry`) are skipped;
    an event with no data line yields nothing."""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:  # a stream that ends without the closing blank line
        yield "\n".join(data)
