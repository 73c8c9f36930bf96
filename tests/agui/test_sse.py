"""Reading server-sent events from bytes as they arrive: every way a line may end, cut
at every place a network read may cut it, and an event past its bound refused early."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from pausepoint.agui._sse import EventTooLarge, sse_data

STREAM = (
    b": a comment, skipped\r\n"
    b"event: message\r\n"
    b'data: {"a": 1}\r\n'
    b"\r\n"
    b"data: first line\n"
    b"data:second line\n"
    b"id: 7\n"
    b"\n"
    b"data: caf\xc3\xa9\r"
    b"\r"
    b"retry: 100\n"
    b"\n"
    b"data: no closing blank line"
)
EXPECTED = ['{"a": 1}', "first line\nsecond line", "café", "no closing blank line"]


async def chunks(data: bytes, size: int) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


async def read(data: bytes, size: int, limit: int = 1 << 20) -> list[str]:
    return [event async for event in sse_data(chunks(data, size), max_event_bytes=limit)]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, len(STREAM)])
async def test_events_read_the_same_however_the_bytes_are_cut(size: int) -> None:
    assert await read(STREAM, size) == EXPECTED


async def test_a_crlf_cut_between_its_two_bytes_ends_one_line() -> None:
    # The CR ends one read and the LF starts the next: one line end, not an empty line.
    events = [
        e
        async for e in sse_data(
            _reads([b"data: a\r", b"\ndata: b\r", b"\n\r\n"]), max_event_bytes=99
        )
    ]
    assert events == ["a\nb"]


async def test_an_event_past_the_bound_is_refused_before_it_ends() -> None:
    read_so_far: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        yield b"data: "
        while True:
            read_so_far.append(1)
            yield b"x" * 1000

    with pytest.raises(EventTooLarge):
        async for _ in sse_data(endless(), max_event_bytes=10_000):
            pass
    assert len(read_so_far) <= 11


async def test_many_small_events_in_one_read_are_not_one_large_event() -> None:
    data = b"".join(b"data: %d\n\n" % n for n in range(1000))
    events = await read(data, len(data), limit=16)
    assert events == [str(n) for n in range(1000)]


async def test_one_data_line_past_the_bound_in_a_single_read_is_refused() -> None:
    with pytest.raises(EventTooLarge):
        await read(b"data: " + b"x" * 100 + b"\n\n", 1 << 16, limit=50)


async def _reads(parts: list[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part
