"""Two server processes sharing one PostgreSQL store answer one run's continuation at
once: exactly one applies it, the other answers with a RUN_ERROR."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from pathlib import Path

import httpx
from tests.agui import served_agent
from tests.agui.served_agent import executions
from tests.agui.serving import Command, answer, frames, interrupts, refused, run_input
from tests.helpers import until


async def test_two_processes_answering_one_continuation_apply_it_once(
    tmp_path: Path, postgres_dsn: str
) -> None:
    shutil.copyfile(served_agent.__file__, tmp_path / "refunds.py")
    count, gate = tmp_path / "executions.txt", tmp_path / "gate"
    env = {served_agent.COUNT_ENV: str(count), served_agent.GATE_ENV: str(gate)}
    args = ["refunds:agent", "--store", postgres_dsn]
    thread = f"thread-{uuid.uuid4().hex}"
    with Command(args, cwd=tmp_path, env=env) as one, Command(args, cwd=tmp_path, env=env) as two:
        async with httpx.AsyncClient(timeout=120) as client:

            async def post(url: str, body: dict[str, object]) -> list[dict[str, object]]:
                response = await client.post(url + "/", json=body)
                assert response.status_code == 200
                return frames(response.text)

            first = await post(one.url, run_input(thread, "r1", text="Refund order 42"))
            [approval] = interrupts(first)
            continuation = run_input(
                thread, "r2", resume=[answer(approval["id"], {"approved": True})]
            )
            racing = {
                asyncio.ensure_future(post(one.url, continuation)): one,
                asyncio.ensure_future(post(two.url, continuation)): two,
            }
            await until(lambda: executions(count))  # one of them runs the refund...
            # ...and holds it at the gate, so the first answer back is the other's.
            done, _ = await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
            loser = done.pop()
            gate.touch()
            [winner] = [task for task in racing if task is not loser]
            won = await winner

    assert refused(loser.result())["code"] in ("interrupt-already-resolved", "run-busy")
    assert [i["message"] for i in interrupts(won)] == ["How fast should order 42 ship?"]
    assert executions(count) == ["refund"]
