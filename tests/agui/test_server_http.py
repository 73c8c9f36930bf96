"""The AG-UI server over real HTTP: uvicorn on a port of 127.0.0.1, httpx as the client."""

from __future__ import annotations

from pathlib import Path

import httpx
from tests.agui.served_agent import FINAL_TEXT, build, executions
from tests.agui.serving import (
    Served,
    answer,
    ending,
    frames,
    interrupts,
    refused,
    run_input,
    said,
    state_of,
)

from pausepoint.agui import app
from pausepoint.store import SQLiteStore

SECRET = "one secret shared by every process"


def post(url: str, body: dict[str, object]) -> list[dict[str, object]]:
    with httpx.stream("POST", url, json=body, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return frames(response.read().decode("utf-8"))


def test_over_http_an_approval_and_an_answer_take_a_stored_run_to_success(
    tmp_path: Path,
) -> None:
    count = tmp_path / "executions.txt"
    store = SQLiteStore(tmp_path / "runs.db")
    with Served(app(build(count), store)) as server:
        first = post(server.url, run_input("thread-7", "r1", text="Refund order 42"))
        [approval] = interrupts(first)
        second = post(
            server.url,
            run_input(
                "thread-7",
                "r2",
                resume=[answer(approval["id"], {"approved": True})],
                parent_run_id="r1",
            ),
        )
        [question] = interrupts(second)
        third = post(
            server.url,
            run_input("thread-7", "r3", resume=[answer(question["id"], {"speed": "fast"})]),
        )

    assert ending(third)["outcome"] == {"type": "success"}
    assert said(third) == FINAL_TEXT
    assert executions(count) == ["refund", "ship fast"]
    prompt, _ = store.load_prompt("thread-7")
    assert prompt.output == FINAL_TEXT


def test_over_http_stateless_servers_sharing_a_secret_continue_each_others_runs(
    tmp_path: Path,
) -> None:
    count = tmp_path / "executions.txt"
    one = Served(app(build(count), secret=SECRET))
    two = Served(app(build(count), secret=SECRET))
    stranger = Served(app(build(count), secret="a different secret, as long"))
    with one, two, stranger:
        first = post(one.url, run_input("t", "r1", text="Refund order 42"))
        [approval] = interrupts(first)
        continuation = run_input(
            "t", "r2", resume=[answer(approval["id"], {"approved": True})], state=state_of(first)
        )
        refusal = post(stranger.url, continuation)
        assert executions(count) == []
        second = post(two.url, continuation)
        [question] = interrupts(second)
        third = post(
            one.url,
            run_input(
                "t",
                "r3",
                resume=[answer(question["id"], {"speed": "slow"})],
                state=state_of(second),
            ),
        )

    assert refused(refusal)["code"] == "bad-state"
    assert ending(third)["outcome"] == {"type": "success"}
    assert executions(count) == ["refund", "ship slow"]
