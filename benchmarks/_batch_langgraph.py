"""The batch on the peer: LangGraph with its PostgreSQL checkpointer (`PostgresSaver`).

The same workload as pausepoint's side: a graph of a model node (scripted: one tool call
per turn, then a final text) and a tools node, looping, so one step is one model turn and
one tool call; the approval is `interrupt()` in the tools node, resumed with
`Command(resume=True)`. Each step is persisted before the next starts (`durability="sync"`
unless told otherwise; "async" is LangGraph's default).

LangGraph has no leases or workers, so the work is split the way a user would: worker
process i of W takes the threads whose number is i modulo W. Approvals go through a table
in the same database: the parent inserts every approval in one transaction with a NOTIFY;
each worker LISTENs, reads the approvals of its threads and resumes them one after the
other. Run as a script, this module is one such worker process (see `_batch.serve`).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import psycopg
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, Durability, interrupt
from psycopg.rows import dict_row

from _batch import Batch, Reply, say, serve

CHANNEL = "bench_approvals"
TABLE = """
CREATE TABLE IF NOT EXISTS bench_approvals (
    thread_id TEXT PRIMARY KEY,
    answer BOOLEAN NOT NULL
)
"""


def build_graph(batch: Batch, saver: PostgresSaver, acted: dict[str, float]) -> Any:
    """The graph every thread runs; `acted` records when each approved action ran."""

    def model(state: MessagesState) -> dict[str, Any]:
        made = sum(isinstance(message, AIMessage) for message in state["messages"])
        if made == batch.steps:
            return {"messages": [AIMessage("All done.")]}
        n = made + 1
        name = "confirm" if n == batch.approve_at else "bump"
        call = {"name": name, "args": {"n": n}, "id": f"call_{n}", "type": "tool_call"}
        return {"messages": [AIMessage("", tool_calls=[call])]}

    def tools(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        call = last.tool_calls[0]
        n = call["args"]["n"]
        if call["name"] == "confirm":
            if not interrupt({"question": f"Act on {n}?", "n": n}):
                return {"messages": [ToolMessage("declined", tool_call_id=call["id"])]}
            acted[config["configurable"]["thread_id"]] = time.time()
            result = n
        else:
            result = n + 1
        return {"messages": [ToolMessage(str(result), tool_call_id=call["id"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    graph = StateGraph(MessagesState)
    graph.add_node("model", model)
    graph.add_node("tools", tools)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", route, ["tools", END])
    graph.add_edge("tools", "model")
    return graph.compile(checkpointer=saver)


def _connect(dsn: str) -> psycopg.Connection[Any]:
    """A connection as `PostgresSaver.from_conn_string` opens it."""
    return psycopg.connect(dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row)


def set_up(dsn: str) -> None:
    """The checkpointer's tables and the approvals table (before anything is counted)."""
    with _connect(dsn) as conn:
        PostgresSaver(conn).setup()
        conn.execute(TABLE)


def approve_all(dsn: str, thread_ids: list[str]) -> float:
    """Every approval in one transaction, with a NOTIFY; returns when it committed."""
    with psycopg.connect(dsn) as conn:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO bench_approvals (thread_id, answer) VALUES (%s, true)",
                [(thread_id,) for thread_id in thread_ids],
            )
            cur.execute(f"NOTIFY {CHANNEL}")
        conn.commit()
    return time.time()


class PeerWorker:
    """One worker process: its share of the threads, run through the graph."""

    def __init__(
        self, dsn: str, batch: Batch, index: int, workers: int, durability: Durability
    ) -> None:
        self.dsn = dsn
        self.batch = batch
        self.durability: Durability = durability
        self.threads = batch.run_ids()[index::workers]
        self.acted: dict[str, float] = {}
        self.conn = _connect(dsn)
        self.graph = build_graph(batch, PostgresSaver(self.conn), self.acted)
        self.completed = 0
        self._carrying: asyncio.Task[None] | None = None
        self._cpu = 0.0

    def _config(self, thread_id: str) -> RunnableConfig:
        return {"configurable": {"thread_id": thread_id}}

    async def phase1(self) -> Reply:
        self._cpu = time.process_time()
        waiting = 0
        for thread_id in self.threads:
            out = self.graph.invoke(
                {"messages": [HumanMessage("go")]},
                self._config(thread_id),
                durability=self.durability,
            )
            waiting += "__interrupt__" in out
        return {"waiting": waiting}

    async def phase2(self) -> Reply:
        listener = psycopg.connect(self.dsn, autocommit=True)
        listener.execute(f"LISTEN {CHANNEL}")
        self._carrying = asyncio.create_task(asyncio.to_thread(self._carry_on, listener))
        return {"started": True}

    def _carry_on(self, listener: psycopg.Connection[Any]) -> None:
        """Resumes each of its threads once its approval is in, in the order they come."""
        left = set(self.threads)
        with listener:
            while left:
                rows = self.conn.execute(
                    "SELECT thread_id, answer FROM bench_approvals WHERE thread_id = ANY(%s)",
                    (sorted(left),),
                ).fetchall()
                for row in rows:
                    thread_id = row["thread_id"]
                    left.discard(thread_id)
                    out = self.graph.invoke(
                        Command(resume=row["answer"]),
                        self._config(thread_id),
                        durability=self.durability,
                    )
                    last = out["messages"][-1]
                    self.completed += "__interrupt__" not in out and last.content == "All done."
                if left and not rows:
                    for _ in listener.notifies(timeout=1.0, stop_after=1):
                        pass
        say({"done": time.time()})

    async def stop(self) -> Reply:
        if self._carrying is not None:
            await self._carrying
        self.conn.close()
        cpu = time.process_time() - self._cpu
        return {"acted": self.acted, "completed": self.completed, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dsn")
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--index", type=int, required=True)
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--durability", default="sync", choices=["sync", "async", "exit"])
    args = parser.parse_args()
    batch = Batch(runs=args.runs, steps=args.steps)
    worker = PeerWorker(args.dsn, batch, args.index, args.workers, args.durability)
    asyncio.run(serve(worker.phase1, worker.phase2, worker.stop))


if __name__ == "__main__":
    main()
