"""What serving a run over AG-UI costs per step, and whether it grows with the transcript.

A scripted agent makes N tool calls, one a turn; every 10th pauses for an answer that is
given at once, so every tenth step is a continuation (a new stretch, and over HTTP a new
request). Its model answers after one pass of the event loop, as a provider's reply comes
from the network, so a stream carries each step as it happens. The same workload, side
by side:

- in process: `run.run()`, then `run.resume(True)` while it waits (the baseline); also
  attached to a SQLiteStore (the baseline of a server that keeps its runs there);
- events + encode: each stretch through `events(run, ...)` and `encode()`, the frames
  consumed in the same process (the AG-UI translation's own cost);
- HTTP: `app(agent)` served by uvicorn on 127.0.0.1 in a process of its own (``python -m
  pausepoint.agui``), stateless (the sealed transcript travels in the state), stateless
  from the history (the client sends back only the messages, with `state: {}`, as
  TanStack AI's client does: the server rebuilds the run from them) and with a SQLiteStore
  (the run is loaded per request), followed by an httpx streaming client that posts each
  RunAgentInput, parses every SSE frame as JSON and sends back the messages (and the
  state) it was given;
- RemoteRun: the same two servers followed by `RemoteRun(url)` (its client and mirror).

Printed per size, the median of the runs: wall µs per step (from the first request to the
last TOOL_CALL_RESULT received; in process, to the last call finished), its ratio to the
way's baseline and the µs it adds; AG-UI events per step and wall µs per event; CPU µs per
step on the agent's side (in process, this process with all its threads, a store's
commit thread too; over HTTP, the server process) and what that adds to the baseline's;
and over HTTP, CPU µs per step of the client (this process). CPU figures are the ones a
busy machine changes least. Goal: the server adds under 100 µs per step.

Then the growth of each way's cost per step from the smallest size to each larger one,
with the size of the last request's body. Then, for each
size of 1,000 steps or more, flatness: the last 100 steps over the first
100 (goal < 1.5), as bench_store.py computes it, by total time and by median step time.
Over HTTP a step ends when the client receives its TOOL_CALL_RESULT. While the served ways
grow with the transcript, 5,000 steps is not among the default sizes: one stateless run
of that size takes many minutes.

Last, a stateless continuation's cost side by side, from the history as TanStack AI's
client sends it and with the sealed state: the last continuation's wall time per step of
the conversation it carries, at the smallest and the largest size, their ratio (goal
< 1.5x: a continuation reads its conversation once and does nothing more that grows with
it), the last request's body, and for context the whole drive's µs per step (wall, and
the server's CPU). A drive of N steps with a pause every 10 sends N/10 continuations, each
carrying the conversation so far, so a whole stateless drive costs in N² by its nature:
its µs per step grows about as fast as N even when every continuation is linear.
`--continuations` measures only those two ways (and their baseline).

    python benchmarks/bench_agui.py [--sizes 100 1000] [--repeat 3] [--ways NAME ...]
    python benchmarks/bench_agui.py --continuations [--sizes 100 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Coroutine
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from _workload import confirm, one_call_per_turn
from pausepoint import Agent, AgentRun, ModelRequest, ModelResponse, ScriptedModel, action
from pausepoint.agui import RemoteRun, encode, events
from pausepoint.store import RunStore, SQLiteStore
from pausepoint.transcript import UserMessage

HERE = Path(__file__).resolve().parent


@action
async def bump(n: int) -> int:
    """Return n + 1."""
    return n + 1


class _Answering:
    """The scripted model of every conversation this agent has: each one's first message
    says how many calls to make (`_opening`), and its script is kept by that message, so
    one server serves many runs. It answers as a provider does, after the event loop has
    had a turn (a real model waits on the network), so a stream carries each step as it
    happens rather than a whole stretch at once. Not streaming, as in bench_loop.py."""

    def __init__(self) -> None:
        self._scripts: dict[str, ScriptedModel] = {}

    async def request(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(0)
        first = request.items[0]
        assert isinstance(first, UserMessage)
        script = self._scripts.get(first.text)
        if script is None:
            calls = int(first.text.split()[0])
            script = self._scripts[first.text] = ScriptedModel(one_call_per_turn(calls, "bump"))
        response = await script.request(request)
        # A ScriptedModel keeps each request, and a request holds its run's transcript: a
        # server that rebuilds the run per request would keep every transcript it rebuilt,
        # and its collector would walk them all (a served model keeps nothing).
        script.requests.clear()
        return response


def _opening(size: int) -> str:
    """A new conversation's first message: `size` calls, and a name of its own."""
    return f"{size} calls ({uuid.uuid4().hex})"


def served_agent() -> Agent:
    """The agent a server process serves: ``bench_agui:served_agent``."""
    return Agent(model=_Answering(), actions=[bump, confirm])


class Server:
    """``python -m pausepoint.agui bench_agui:served_agent`` on a free port of 127.0.0.1,
    stateless or with the SQLite store at `database`; its log goes to `log`."""

    def __init__(self, database: Path | None, log: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/"
        args = [sys.executable, "-m", "pausepoint.agui", "bench_agui:served_agent"]
        args += ["--port", str(port)]
        if database is not None:
            args += ["--store", f"sqlite:{database}"]
        with log.open("ab") as out:
            self.process = subprocess.Popen(args, cwd=HERE, stdout=out, stderr=out)
        self._log = log

    def __enter__(self) -> Server:
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise SystemExit(f"The server exited:\n{self._log.read_text()}")
            try:
                httpx.get(self.url, timeout=5).raise_for_status()
                return self
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    log = self._log.read_text()
                    raise SystemExit(f"The server did not answer:\n{log}") from None
                time.sleep(0.05)

    def cpu(self) -> float:
        """CPU seconds the server process's threads have run (Linux's schedstat)."""
        total = 0
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class Measured:
    """One run: perf_counter stamps (its start, then one per finished step), the AG-UI
    events seen, CPU seconds on the agent's side (read with `agent_clock`: by default this
    process, all its threads) and, when the agent runs elsewhere, on this process: the
    client's."""

    agent_clock: Callable[[], float] = time.process_time
    stamps: list[float] = field(default_factory=list)
    events: int = 0
    agent_cpu: float = 0.0
    client_cpu: float | None = None
    body_bytes: int = 0
    """The size of the last request's body (over HTTP)."""
    last_request: float = 0.0
    """Seconds from posting the last request (a continuation that sends the whole
    conversation) to the end of its stream (over HTTP)."""

    def start(self) -> None:
        self._agent, self._client = self.agent_clock(), time.process_time()
        self.stamps.append(time.perf_counter())

    def step(self, *_: Any) -> None:
        self.stamps.append(time.perf_counter())

    def stop(self, events: int = 0) -> Measured:
        self.agent_cpu = self.agent_clock() - self._agent
        if self.agent_clock is not time.process_time:
            self.client_cpu = time.process_time() - self._client
        self.events = events
        return self

    @property
    def steps(self) -> int:
        return len(self.stamps) - 1

    @property
    def wall(self) -> float:
        return self.stamps[-1] - self.stamps[0]


async def in_process(size: int, store: RunStore | None) -> Measured:
    run: AgentRun = served_agent().new_run(_opening(size), store=store)
    measured = Measured()
    run.on("tool_call_finished", measured.step)
    measured.start()
    result = await run.run()
    while result.status == "interrupted":
        result = await run.resume(True)
    assert result.status == "completed", result.error
    return measured.stop()


_RESULT_FRAME = 'data: {"type":"TOOL_CALL_RESULT"'


async def translated(size: int) -> Measured:
    """Each stretch through `events` and `encode`; the consumer reads the interrupts from
    the last frame (RUN_FINISHED), as a client would."""
    run = served_agent().new_run(_opening(size))
    measured = Measured()
    count = 0
    resume: list[dict[str, Any]] | None = None
    measured.start()
    while True:
        last = ""
        async for frame in encode(events(run, resume=resume)):
            count += 1
            if frame.startswith(_RESULT_FRAME):
                measured.step()
            last = frame
        outcome = json.loads(last.removeprefix("data: "))["outcome"]
        if outcome["type"] == "success":
            return measured.stop(count)
        resume = _approvals(outcome)


def _approvals(outcome: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"interruptId": i["id"], "status": "resolved", "payload": True}
        for i in outcome["interrupts"]
    ]


async def over_http(server: Server, size: int, *, send_state: bool = True) -> Measured:
    """A plain httpx client that posts each request and parses every SSE frame; it sends
    back the state it was given unless `send_state` is False (then always `{}`)."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(60, read=None)) as client:
        thread = f"thread_{uuid.uuid4().hex}"
        messages: list[Any] = [{"id": "user-1", "role": "user", "content": _opening(size)}]
        state: Any = {}
        parent: str | None = None
        resume: list[dict[str, Any]] | None = None
        count = 0
        measured = Measured(server.cpu)
        measured.start()
        while True:
            run_id = f"run_{uuid.uuid4().hex}"
            body: dict[str, Any] = {
                "threadId": thread,
                "runId": run_id,
                "state": state,
                "messages": messages,
                "tools": [],
                "context": [],
                "forwardedProps": {},
            }
            if parent is not None:
                body["parentRunId"] = parent
            if resume is not None:
                body["resume"] = resume
            ending: dict[str, Any] = {}
            headers = {"Accept": "text/event-stream"}
            content = json.dumps(body).encode()
            measured.body_bytes = len(content)
            headers["Content-Type"] = "application/json"
            sent = time.perf_counter()
            async with client.stream(
                "POST", server.url, content=content, headers=headers
            ) as response:
                assert response.status_code == 200, response.status_code
                async for line in response.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    event = json.loads(line[5:])
                    count += 1
                    kind = event["type"]
                    if kind == "TOOL_CALL_RESULT":
                        measured.step()
                    elif kind == "MESSAGES_SNAPSHOT":
                        messages = event["messages"]
                    elif kind == "STATE_SNAPSHOT" and send_state:
                        state = event["snapshot"]
                    elif kind in ("RUN_FINISHED", "RUN_ERROR"):
                        ending = event
            assert ending.get("type") == "RUN_FINISHED", ending
            measured.last_request = time.perf_counter() - sent
            parent = run_id
            if ending["outcome"]["type"] == "success":
                return measured.stop(count)
            resume = _approvals(ending["outcome"])


async def from_history(server: Server, size: int) -> Measured:
    """The client TanStack AI's is: the conversation sent back, the state never."""
    return await over_http(server, size, send_state=False)


async def remote(server: Server, size: int) -> Measured:
    """`RemoteRun` following the server: its client, its mirror, the events it fires."""
    follower = RemoteRun(server.url)
    measured = Measured(server.cpu)
    follower.on("tool_call_finished", measured.step)
    measured.start()
    result = await follower.run(_opening(size))
    while result.status == "interrupted":
        result = await follower.resume(True)
    assert result.status == "completed", result.error
    return measured.stop(len(follower.events))


Run = Callable[[int], Measured]
BASELINE, STORED = "in process", "in process, SQLite"
SEALED, HISTORY = "HTTP, stateless", "HTTP, from history"


def ways(store: RunStore, stateless: Server, stored: Server) -> dict[str, tuple[Run, str]]:
    """Each way by name: how it runs N steps, and the name of its baseline."""

    def local(go: Callable[[int], Coroutine[Any, Any, Measured]]) -> Run:
        return lambda size: asyncio.run(go(size))

    def served(
        follow: Callable[[Server, int], Coroutine[Any, Any, Measured]], server: Server
    ) -> Run:
        return lambda size: asyncio.run(follow(server, size))

    return {
        BASELINE: (local(lambda n: in_process(n, None)), BASELINE),
        STORED: (local(lambda n: in_process(n, store)), STORED),
        "events + encode": (local(translated), BASELINE),
        SEALED: (served(over_http, stateless), BASELINE),
        HISTORY: (served(from_history, stateless), BASELINE),
        "HTTP, SQLite": (served(over_http, stored), STORED),
        "RemoteRun, stateless": (served(remote, stateless), BASELINE),
        "RemoteRun, SQLite": (served(remote, stored), STORED),
    }


def measure(run: Run, size: int) -> Measured:
    gc.collect()
    measured = run(size)
    assert measured.steps == size, (measured.steps, size)
    return measured


@dataclass(frozen=True)
class Figures:
    """The medians of a way's runs: wall µs per step and per event, AG-UI events per
    step, CPU µs per step on the agent's side and on the client's (None in process)."""

    wall: float
    events: float
    per_event: float
    agent: float
    client: float | None

    @classmethod
    def of(cls, runs: list[Measured]) -> Figures:
        def median(value: Callable[[Measured], float]) -> float:
            return statistics.median(value(m) for m in runs)

        client = [m.client_cpu / m.steps * 1e6 for m in runs if m.client_cpu is not None]
        return cls(
            wall=median(lambda m: m.wall / m.steps * 1e6),
            events=median(lambda m: m.events / m.steps),
            per_event=median(lambda m: m.wall / m.events * 1e6 if m.events else 0.0),
            agent=median(lambda m: m.agent_cpu / m.steps * 1e6),
            client=statistics.median(client) if client else None,
        )


def report(size: int, measured: dict[str, list[Measured]], bases: dict[str, str]) -> None:
    title = f"{size:,} steps"
    print(
        f"\n  {title:<22}{'wall':>9}{'× base':>8}{'added':>9}{'events':>8}{'wall':>9}"
        f"{'agent CPU':>11}{'added':>9}{'client CPU':>12}"
    )
    print(
        f"  {'':<22}{'µs/step':>9}{'':>8}{'µs/step':>9}{'/step':>8}{'µs/event':>9}"
        f"{'µs/step':>11}{'µs/step':>9}{'µs/step':>12}"
    )
    seen = {name: Figures.of(runs) for name, runs in measured.items()}
    for name, f in seen.items():
        base, own = seen[bases[name]], bases[name] == name
        line = f"  {name:<22}{f.wall:>9.1f}{f.wall / base.wall:>8.2f}"
        line += f"{'—':>9}" if own else f"{f.wall - base.wall:>9.0f}"
        line += f"{f.events:>8.1f}{f.per_event:>9.1f}" if f.events else f"{'—':>8}{'—':>9}"
        line += f"{f.agent:>11.1f}"
        line += f"{'—':>9}" if own else f"{f.agent - base.agent:>9.0f}"
        line += f"{'—':>12}" if f.client is None else f"{f.client:>12.1f}"
        print(line)


def growth(sizes: list[int], per_size: dict[int, dict[str, list[Measured]]]) -> None:
    """Each way's cost per step of the whole run at each size over its cost at the
    smallest, with the last request's body."""
    first, *larger = sizes
    for size in larger:
        print(f"\nµs per step of the whole run at {size:,} steps over {first:,}:")
        for name, runs in per_size[size].items():
            small = Figures.of(per_size[first][name]).wall
            big = Figures.of(runs).wall
            body = statistics.median(m.body_bytes for m in runs)
            shown = f", last request {body / 1024:,.0f} KiB" if body else ""
            print(f"  {name:<22}{small:>9.1f} -> {big:>9.1f} µs/step  × {big / small:.2f}{shown}")


def continuations(sizes: list[int], per_size: dict[int, dict[str, list[Measured]]]) -> None:
    """A stateless continuation's cost per step of its conversation at the smallest and the
    largest size, from the history beside the sealed state; the whole drive for context."""
    first, last = sizes[0], sizes[-1]
    print(
        f"\nA stateless continuation over HTTP (uvicorn): the last request's wall µs per "
        f"step of its conversation at {first:,} and {last:,} steps (goal < 1.5x); the "
        f"whole drive's µs per step (wall, server CPU) for context:"
    )
    print(
        f"  {'':<20}{'last continuation':>28}{'':>10}{'body':>9}"
        f"{'whole drive, wall':>26}{'server CPU':>22}"
    )
    print(
        f"  {'':<20}{first:>10,}{last:>10,}{'×':>8}{'':>10}{'KiB':>9}"
        f"{first:>10,}{last:>10,}{'×':>6}{first:>10,}{last:>10,}{'×':>6}"
    )
    for name in (HISTORY, SEALED):
        if name not in per_size[last]:
            continue
        runs_small, runs_big = per_size[first][name], per_size[last][name]
        one = statistics.median(m.last_request for m in runs_small) / first * 1e6
        many = statistics.median(m.last_request for m in runs_big) / last * 1e6
        small, big = Figures.of(runs_small), Figures.of(runs_big)
        body = statistics.median(m.body_bytes for m in runs_big) / 1024
        verdict = "within" if many / one < 1.5 else "over"
        print(
            f"  {name:<20}{one:>10.1f}{many:>10.1f}{many / one:>7.2f}x  {verdict:<8}"
            f"{body:>9,.0f}{small.wall:>10.0f}{big.wall:>10.0f}{big.wall / small.wall:>5.1f}x"
            f"{small.agent:>10.0f}{big.agent:>10.0f}{big.agent / small.agent:>5.1f}x"
        )


def _ratios(stamps: list[float]) -> tuple[float, float]:
    """Last 100 steps over the first 100: by total time, and by median step time."""
    steps = [b - a for a, b in itertools.pairwise(stamps)]
    first, last = steps[:100], steps[-100:]
    return sum(last) / sum(first), statistics.median(last) / statistics.median(first)


def flatness(size: int, measured: dict[str, list[Measured]]) -> None:
    print(f"\nlast-100 / first-100 steps at {size:,} steps (goal < 1.5):")
    for name, runs in measured.items():
        ratios = [_ratios(m.stamps) for m in runs]
        totals = [total for total, _ in ratios]
        medians = [median for _, median in ratios]
        print(
            f"  {name:<22} total {statistics.median(totals):>6.2f} (runs: "
            + ", ".join(f"{r:.2f}" for r in totals)
            + f"), median step {statistics.median(medians):>5.2f} (runs: "
            + ", ".join(f"{r:.2f}" for r in medians)
            + ")"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ways", nargs="+", help="only these ways (and their baselines)")
    parser.add_argument(
        "--continuations",
        action="store_true",
        help=f"only the stateless continuations: the ways {SEALED!r} and {HISTORY!r}",
    )
    args = parser.parse_args()
    if args.continuations:
        args.ways = [*(args.ways or ()), SEALED, HISTORY]
    if not Path(f"/proc/{os.getpid()}/task").is_dir():
        raise SystemExit("bench_agui reads a server's CPU time from /proc (Linux).")
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        store = stack.enter_context(SQLiteStore(folder / "runs.db"))
        stateless = stack.enter_context(Server(None, folder / "servers.log"))
        stored = stack.enter_context(Server(folder / "served.db", folder / "servers.log"))
        every = ways(store, stateless, stored)
        unknown = set(args.ways or ()) - set(every)
        if unknown:
            raise SystemExit(f"No way named {sorted(unknown)}; the ways: {list(every)}")
        wanted = set(args.ways or every) | {every[name][1] for name in args.ways or ()}
        chosen = {name: way for name, way in every.items() if name in wanted}
        bases = {name: base for name, (_, base) in chosen.items()}
        for run, _ in chosen.values():  # warm-up: imports, first connections, caches
            measure(run, 20)
        per_size: dict[int, dict[str, list[Measured]]] = {}
        for size in args.sizes:
            measured: dict[str, list[Measured]] = {name: [] for name in chosen}
            per_size[size] = measured
            for i in range(args.repeat):
                # Taking turns, starting from each end in turn: drift falls on all.
                order = list(chosen.items())
                for name, (run, _) in order if i % 2 == 0 else order[::-1]:
                    measured[name].append(measure(run, size))
            report(size, measured, bases)
            if size >= 1000:
                flatness(size, measured)
        if len(args.sizes) > 1:
            growth(sorted(args.sizes), per_size)
            continuations(sorted(args.sizes), per_size)


if __name__ == "__main__":
    main()
