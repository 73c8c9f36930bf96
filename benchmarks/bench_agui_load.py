"""A load test of an AG-UI server that stops by itself: clients that read, beside clients
that never read.

The server is `app(agent)` served by uvicorn on 127.0.0.1 in a process of its own,
stateless (this file run with ``--serve``: `build_app` is where it is made). Its agent's
runs are a steady stream: each turn is 2 KiB of model text and a tool call whose result is
48 KiB of text, about 90 KB of SSE a turn; the model answers after one pass of the event
loop, as a provider's reply comes from the network. A conversation's first message says
how many turns it takes: a reader's `--steps` (20, about 2 MB of SSE with the final
STATE_SNAPSHOT, which carries the sealed transcript, so there are streams enough for a
p99), a non-reading client's `--stalled-steps` (1,000, about 90 MB if nobody reads it: a
stream that outlasts the phase).

Two phases of `--seconds` each, each on a server of its own. Idle: `--readers` clients
(5) read their streams as fast as they can (httpx, every SSE frame parsed as JSON) and
start a new conversation when one ends. Loaded: the same readers beside `--stalled`
clients (20), raw sockets with a small receive buffer that send their POST and never
receive a byte; one whose connection the server resets or closes (seen in its TCP state)
posts again, so the server always faces as many. The readers start once the non-readers'
runs have filled what their streams may hold and rest (the server's CPU under 20 % of a
core; how long that took is printed): the figures are of a server that holds 20 stalled
streams. Streams still open when a phase ends are not counted.

Printed per phase: the readers' streams, their first-event latency (POST to the first
event: what a person waits before anything shows) and whole-stream time (POST to the
last event), p50 and p99; the events and MB per second they received; the server's RSS
(VmRSS of /proc/<pid>/status sampled every 100 ms: at the start, the peak, at the end,
and a second after the clients left); errors by kind (HTTP status, RUN_ERROR code,
connection errors, streams cut without an ending). Then p99 loaded over p99 idle. Goals:
with 20 non-reading clients the server's RSS stays under 300 MB, and the readers' p99
stays within 2x of the idle server's. A phase stops early if the server's RSS passes
`--rss-limit`. Ctrl-C, an error or SIGTERM closes every socket and ends the server.

    python benchmarks/bench_agui_load.py [--seconds 20] [--readers 5] [--stalled 20]
        [--steps 20] [--stalled-steps 1000] [--send-timeout S] [--rss-limit MB]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import inspect
import json
import os
import random
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any

import httpx

from pausepoint import Agent, ModelRequest, ModelResponse, ToolCallRequest, action
from pausepoint.agui import app
from pausepoint.transcript import AssistantMessage, UserMessage

if TYPE_CHECKING:
    from starlette.applications import Starlette

HERE = Path(__file__).resolve().parent
TEXT_BYTES = 2 * 1024
RESULT_BYTES = 48 * 1024
RSS_GOAL_MB = 300
P99_GOAL = 2.0

_WORDS = ["the", "of", "page", "order", "refund", "ledger", "invoice", "line", "total"]
_PROSE = " ".join(random.Random(31).choices(_WORDS, k=RESULT_BYTES))


def _text(n: int, size: int) -> str:
    """`size` characters of prose, a different stretch for each `n`."""
    start = n * 97 % (len(_PROSE) - size)
    return _PROSE[start : start + size]


@action
async def read_page(n: int) -> str:
    """Page n of the ledger (48 KiB of text)."""
    return _text(n, RESULT_BYTES)


class _Reading:
    """A model that reads the ledger page by page: each turn 2 KiB of text and a call for
    the next page, as many turns as the conversation's first message says, then a last
    text. It keeps nothing, so one server serves any number of conversations."""

    async def request(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(0)
        first = request.items[0]
        assert isinstance(first, UserMessage)
        steps = int(first.text.split()[0])
        done = sum(1 for item in request.items if isinstance(item, AssistantMessage))
        if done >= steps:
            return ModelResponse(text="Every page is read.")
        return ModelResponse(
            text=_text(done, TEXT_BYTES),
            tool_calls=[ToolCallRequest(id=f"call_{done}", name="read_page", input={"n": done})],
        )


def served_agent(turns: int) -> Agent:
    return Agent(model=_Reading(), actions=[read_page], max_turns=turns)


def app_options(send_timeout: float | None) -> dict[str, Any]:
    """The keyword arguments of `app()` beyond the agent; `send_timeout` only where this
    version of `app()` takes it."""
    options: dict[str, Any] = {}
    if send_timeout is not None:
        if "send_timeout" not in inspect.signature(app).parameters:
            raise SystemExit("--send-timeout: this version of pausepoint.agui.app() has none.")
        options["send_timeout"] = send_timeout
    return options


def build_app(turns: int, send_timeout: float | None) -> Starlette:
    """The app the server process serves: change its options here."""
    return app(served_agent(turns), **app_options(send_timeout))


def serve(port: int, parent: int, turns: int, send_timeout: float | None) -> None:
    """The server process: uvicorn on 127.0.0.1:`port`, until SIGTERM or until `parent`
    (this benchmark) is gone, however it ended."""
    import uvicorn

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(3)

    threading.Thread(target=watch, daemon=True).start()
    served = build_app(turns, send_timeout)
    uvicorn.run(
        served, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1
    )


class Server:
    """This file's ``--serve`` on a free port of 127.0.0.1, in a session of its own (so
    Ctrl-C reaches only the benchmark, which ends it); its log goes to `log`."""

    def __init__(self, log: Path, turns: int, send_timeout: float | None) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self._args = [sys.executable, str(HERE / "bench_agui_load.py"), "--serve", str(self.port)]
        self._args += ["--parent", str(os.getpid()), "--turns", str(turns)]
        if send_timeout is not None:
            self._args += ["--send-timeout", str(send_timeout)]
        self._log = log

    def __enter__(self) -> Server:
        with self._log.open("ab") as out:
            self.process = subprocess.Popen(
                self._args, cwd=HERE, stdout=out, stderr=out, start_new_session=True
            )
        try:
            self._wait_until_up()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise SystemExit(f"The server exited:\n{self._log.read_text()}")
            try:
                httpx.get(self.url, timeout=5).raise_for_status()
                return
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise SystemExit(
                        f"The server did not answer:\n{self._log.read_text()}"
                    ) from None
                time.sleep(0.05)

    def status(self, key: str) -> int:
        """A size from /proc/<pid>/status (VmRSS, VmHWM), in bytes (0 once it is gone)."""
        try:
            text = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
        return 0

    def cpu(self) -> float:
        """CPU seconds the server process has run (user and system)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


class Sampler(threading.Thread):
    """The server's VmRSS every 100 ms, from a thread (the event loop may be busy)."""

    def __init__(self, server: Server, limit: int) -> None:
        super().__init__(daemon=True)
        self.server, self.limit = server, limit
        self.samples: list[tuple[float, int]] = []
        """(time.monotonic(), VmRSS in bytes)"""
        self.over = threading.Event()
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.1):
            rss = self.server.status("VmRSS")
            self.samples.append((time.monotonic(), rss))
            if rss > self.limit:
                self.over.set()

    def __enter__(self) -> Sampler:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self.join()


def _opening(steps: int) -> bytes:
    """A new conversation's RunAgentInput, with a thread of its own."""
    body = {
        "threadId": f"thread_{uuid.uuid4().hex}",
        "runId": f"run_{uuid.uuid4().hex}",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": f"{steps} pages to read"}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    return json.dumps(body).encode()


@dataclass
class Tally:
    """What the readers of one phase saw."""

    first: list[float] = field(default_factory=list)
    whole: list[float] = field(default_factory=list)
    events: int = 0
    received: int = 0
    errors: collections.Counter[str] = field(default_factory=collections.Counter)
    open: int = 0


def _frames(buffer: bytearray) -> Iterator[bytes]:
    """The complete SSE frames at the head of `buffer`, taken out of it."""
    while (end := buffer.find(b"\n\n")) >= 0:
        frame = bytes(buffer[:end])
        del buffer[: end + 2]
        yield frame


async def read_stream(client: httpx.AsyncClient, url: str, steps: int, tally: Tally) -> None:
    """Post a new conversation and read its stream to the end, as fast as it comes."""
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    sent = time.perf_counter()
    first = last = 0.0
    ending: dict[str, Any] = {}
    tally.open += 1
    try:
        async with client.stream("POST", url, content=_opening(steps), headers=headers) as r:
            if r.status_code != 200:
                tally.errors[f"HTTP {r.status_code}"] += 1
                return
            buffer = bytearray()
            async for chunk in r.aiter_raw():
                tally.received += len(chunk)
                buffer += chunk
                for frame in _frames(buffer):
                    data = b"\n".join(
                        line[5:] for line in frame.split(b"\n") if line.startswith(b"data:")
                    )
                    if not data:
                        continue
                    event = json.loads(data)
                    last = time.perf_counter()
                    if not first:
                        first = last
                    tally.events += 1
                    if event["type"] in ("RUN_FINISHED", "RUN_ERROR"):
                        ending = event
    except httpx.HTTPError as exc:
        tally.errors[f"connection: {type(exc).__name__}"] += 1
        return
    finally:
        tally.open -= 1
    if ending.get("type") == "RUN_ERROR":
        tally.errors[f"RUN_ERROR {ending.get('code')}"] += 1
    elif not ending:
        tally.errors["stream cut without RUN_FINISHED"] += 1
    else:
        tally.first.append(first - sent)
        tally.whole.append(last - sent)


async def reader(url: str, steps: int, tally: Tally) -> None:
    async with httpx.AsyncClient(timeout=httpx.Timeout(30, read=None)) as client:
        while True:
            await read_stream(client, url, steps, tally)


_TCP_ESTABLISHED = 1


class Stalled:
    """A client that posts a new conversation and never receives: a raw socket with a
    small receive buffer, so what the server sends piles up on the server's side."""

    def __init__(self, port: int, steps: int) -> None:
        self.port, self.steps = port, steps
        self.opened = self.cut = 0
        self._socket: socket.socket | None = None

    def open(self) -> None:
        body = _opening(self.steps)
        head = (
            f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/json\r\nAccept: text/event-stream\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", self.port))
        sock.sendall(head.encode() + body)
        self._socket = sock
        self.opened += 1

    def check(self) -> None:
        """Post again if the server reset or closed this connection."""
        sock = self._socket
        assert sock is not None
        error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        state = struct.unpack("B", sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1))[0]
        if error or state != _TCP_ESTABLISHED:
            self.cut += 1
            self.close()
            self.open()

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


@dataclass
class Phase:
    """One phase's figures: the readers' tally, its length, the server's RSS samples from
    its start, its VmRSS as it ended (before the clients left) and a second after, its
    VmHWM, the server's and this process's CPU seconds, the non-reading connections and how
    long their runs took to fill their streams and rest."""

    name: str
    tally: Tally
    seconds: float
    rss: list[tuple[float, int]]
    at_end: int
    after: int
    peak: int
    server_cpu: float
    client_cpu: float
    stopped_early: bool
    opened: int
    cut: int
    settled: float


async def drive(
    name: str, server: Server, sampler: Sampler, args: argparse.Namespace, stalled: int
) -> Phase:
    tally = Tally()
    async with httpx.AsyncClient(timeout=httpx.Timeout(30, read=None)) as client:
        await read_stream(client, server.url, args.steps, Tally())  # warm-up, not counted
    clients = [Stalled(server.port, args.stalled_steps) for _ in range(stalled)]
    readers: list[asyncio.Task[None]] = []
    try:
        for one in clients:
            one.open()
        settled = await _rest(server) if clients else 0.0
        start, cpu, own = time.monotonic(), server.cpu(), time.process_time()
        readers = [
            asyncio.ensure_future(reader(server.url, args.steps, tally))
            for _ in range(args.readers)
        ]
        while time.monotonic() - start < args.seconds and not sampler.over.is_set():
            await asyncio.sleep(0.25)
            for one in clients:
                one.check()
        elapsed = time.monotonic() - start
        server_cpu, client_cpu = server.cpu() - cpu, time.process_time() - own
        at_end = server.status("VmRSS")
    finally:
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        for one in clients:
            one.close()
    tally.errors["streams open at the end (not counted)"] += tally.open
    await asyncio.sleep(1)
    return Phase(
        name,
        tally,
        elapsed,
        [(t - start, rss) for t, rss in sampler.samples if t >= start],
        at_end,
        after=server.status("VmRSS"),
        peak=server.status("VmHWM"),
        server_cpu=server_cpu,
        client_cpu=client_cpu,
        stopped_early=sampler.over.is_set(),
        opened=sum(c.opened for c in clients),
        cut=sum(c.cut for c in clients),
        settled=settled,
    )


async def _rest(server: Server, *, busy: float = 0.2, within: float = 30.0) -> float:
    """Seconds until the server rests after the non-readers arrived: their runs have
    filled what a stream may hold for them and wait (the server used under `busy` of a
    core over half a second)."""
    began = time.monotonic()
    while time.monotonic() - began < within:
        before = server.cpu()
        await asyncio.sleep(0.5)
        if (server.cpu() - before) / 0.5 < busy:
            break
    return time.monotonic() - began


def phase(name: str, args: argparse.Namespace, log: Path, stalled: int) -> Phase:
    """A phase on a server of its own, so that one's RSS says nothing of the other's."""
    turns = max(args.steps, args.stalled_steps) + 1
    with (
        Server(log, turns, args.send_timeout) as server,
        Sampler(server, args.rss_limit * 2**20) as sampler,
    ):
        return asyncio.run(drive(name, server, sampler, args, stalled))


def _p(values: list[float], q: int) -> float:
    """The q-th percentile in ms (nan without values)."""
    if len(values) < 2:
        return values[0] * 1e3 if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1e3


def _mb(size: float) -> str:
    return f"{size / 2**20:,.0f} MB"


def report(idle: Phase, loaded: Phase, args: argparse.Namespace) -> None:
    print(
        f"\n  {'':<8}{'streams':>8}{'first event ms':>18}{'whole stream ms':>18}"
        f"{'events/s':>10}{'MB/s':>7}{'CPU %: server':>15}{'client':>8}"
    )
    print(f"  {'':<8}{'':>8}{'p50':>9}{'p99':>9}{'p50':>9}{'p99':>9}")
    for one in (idle, loaded):
        t = one.tally
        print(
            f"  {one.name:<8}{len(t.whole):>8}{_p(t.first, 50):>9.0f}{_p(t.first, 99):>9.0f}"
            f"{_p(t.whole, 50):>9.0f}{_p(t.whole, 99):>9.0f}{t.events / one.seconds:>10,.0f}"
            f"{t.received / one.seconds / 2**20:>7.1f}"
            f"{one.server_cpu / one.seconds * 100:>15.0f}{one.client_cpu / one.seconds * 100:>8.0f}"
        )
    print(
        f"\n  server RSS{'start':>10}{'peak':>10}{'end':>10}{'after':>10}{'VmHWM':>10}   (peak: "
        f"sampled in the phase; after: 1 s after the clients left; VmHWM: the kernel's peak)"
    )
    for one in (idle, loaded):
        during = [rss for at, rss in one.rss if at <= one.seconds] or [0]
        print(
            f"  {one.name:<10}{_mb(during[0]):>10}{_mb(max(during)):>10}{_mb(one.at_end):>10}"
            f"{_mb(one.after):>10}{_mb(one.peak):>10}"
        )
    first = _p(loaded.tally.first, 99) / _p(idle.tally.first, 99)
    whole = _p(loaded.tally.whole, 99) / _p(idle.tally.whole, 99)
    print(
        f"\np99 loaded / idle: first event {first:.2f}x, whole stream {whole:.2f}x "
        f"(goal <= {P99_GOAL:.0f}x): {'within' if max(first, whole) <= P99_GOAL else 'over'}"
    )
    within = loaded.peak < RSS_GOAL_MB * 2**20
    print(
        f"server RSS peak (VmHWM) with {args.stalled} clients that never read: "
        f"{_mb(loaded.peak)} "
        f"(goal < {RSS_GOAL_MB} MB): {'within' if within else 'over'}"
    )
    if loaded.stopped_early:
        print(f"  the phase stopped early: the RSS passed --rss-limit {args.rss_limit} MB")
    marks: list[str] = []
    for at, rss in loaded.rss:
        if at >= 2 * (len(marks) + 1):
            marks.append(f"{at:.0f}s {rss / 2**20:,.0f}")
    print("  loaded, RSS MB every 2 s: " + ", ".join(marks))
    print(
        f"non-reading clients: {loaded.opened} connections opened, {loaded.cut} reset or "
        f"closed by the server; their runs filled what their streams may hold and rested "
        f"{loaded.settled:.1f} s after they arrived, and the readers were timed from then"
    )
    for one in (idle, loaded):
        errors = {kind: n for kind, n in one.tally.errors.items() if n}
        listed = ", ".join(f"{kind}: {n}" for kind, n in sorted(errors.items())) or "none"
        print(f"errors, {one.name}: {listed}")


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20, help="each phase's length (20)")
    parser.add_argument("--readers", type=int, default=5, help="clients that read (5)")
    parser.add_argument("--stalled", type=int, default=20, help="clients that never read (20)")
    parser.add_argument("--steps", type=int, default=20, help="turns of a reader's run (20)")
    parser.add_argument(
        "--stalled-steps", type=int, default=1000, help="turns of a non-reader's run (1000)"
    )
    parser.add_argument(
        "--send-timeout", type=float, help="passed to app() when this version takes it"
    )
    parser.add_argument(
        "--rss-limit", type=int, default=4000, help="MB of server RSS that stop a phase (4000)"
    )
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--parent", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--turns", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.parent, args.turns, args.send_timeout)
        return
    if not Path(f"/proc/{os.getpid()}/status").is_file():
        raise SystemExit("bench_agui_load reads the server's RSS from /proc (Linux).")
    app_options(args.send_timeout)  # refused here, before any server starts
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    print(
        f"{args.readers} readers for {args.seconds:g} s, on an idle server then beside "
        f"{args.stalled} clients that never read. A turn: {TEXT_BYTES // 1024} KiB of text "
        f"and a {RESULT_BYTES // 1024} KiB tool result; a reader's run {args.steps} turns, "
        f"a non-reader's {args.stalled_steps}."
    )
    try:
        with tempfile.TemporaryDirectory() as folder:
            log = Path(folder) / "server.log"
            idle = phase("idle", args, log, 0)
            loaded = phase("loaded", args, log, args.stalled)
            report(idle, loaded, args)
    except KeyboardInterrupt:
        with contextlib.suppress(BrokenPipeError):
            print("\nInterrupted: the clients' sockets are closed and the server has ended.")
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
